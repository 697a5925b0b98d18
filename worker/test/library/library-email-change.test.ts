// "Change email" from the library: the library signed in as a purchase's address may move it to
// another address (POST /api/purchases/{id}/email); it then shows in that address's library only.
// Nobody else's purchase moves (docs/library.md).
import { describe, expect, it } from "vitest";
import type { LibraryList } from "../../../shared/library";
import { call, postJson } from "../support/helpers";
import { libraryCookie, paidWith } from "./library-fixtures";

const titles = async (cookie: string) =>
  (await (await call("/api/library/purchases", { cookie })).json<LibraryList>()).purchases.map((p) => p.title);

describe("changing a purchase's email from the library", () => {
  it("moves it from this library to the new address's", async () => {
    const bought = await paidWith("lib-move-creator@example.com", "lib-move-old@example.com", {
      title: "Moving thing",
    });
    const oldLibrary = await libraryCookie("lib-move-old@example.com");
    expect(await titles(oldLibrary)).toEqual(["Moving thing"]);
    const res = await postJson(
      `/api/purchases/${bought.purchaseId}/email`,
      { email: "lib-move-new@example.com" },
      oldLibrary,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ changed: true });
    expect(await titles(oldLibrary)).toEqual([]);
    expect(await titles(await libraryCookie("lib-move-new@example.com"))).toEqual(["Moving thing"]);
    // The old library has no say over it any more.
    const back = await postJson(
      `/api/purchases/${bought.purchaseId}/email`,
      { email: "lib-move-old@example.com" },
      oldLibrary,
    );
    expect(back.status).toBe(404);
  });

  it("another buyer's purchase, or a creator's session, moves nothing", async () => {
    const theirs = await paidWith("lib-move-other-creator@example.com", "lib-move-them@example.com");
    const mine = await libraryCookie("lib-move-me@example.com");
    for (const cookie of [mine, theirs.creatorCookie]) {
      const res = await postJson(`/api/purchases/${theirs.purchaseId}/email`, { email: "thief@example.com" }, cookie);
      expect(res.status).toBe(404);
    }
    expect(await titles(await libraryCookie("lib-move-them@example.com"))).toHaveLength(1);
  });
});
