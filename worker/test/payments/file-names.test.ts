// A long file name shortened in the middle for a phone keeps its start, its end and its extension
// (shared/file-names.ts; docs/payments.md, "Access: what a buyer keeps").
import { describe, expect, it } from "vitest";
import { middleEllipsis } from "../../../shared/file-names";

describe("middleEllipsis", () => {
  it("leaves a name that fits as it is", () => {
    expect(middleEllipsis("beats.zip")).toBe("beats.zip");
    expect(middleEllipsis("a".repeat(28))).toBe("a".repeat(28));
  });

  it("cuts in the middle at separators, keeping the extension", () => {
    const short = middleEllipsis("Portra-400-film-emulation-presets-for-lightroom-and-capture-one-vol1.zip");
    expect(short).toBe("Portra-400-film-…-vol1.zip");
    expect(Array.from(short).length).toBeLessThanOrEqual(28);
    expect(middleEllipsis("Portra-400-film-emulation-presets-for-lightroom-and-capture-one-vol1.zip", 22)).toBe(
      "Portra-400-…-vol1.zip",
    );
  });

  it("cuts a name without separators or extension by characters, and never splits a character", () => {
    expect(middleEllipsis("x".repeat(60))).toBe(`${"x".repeat(18)}…${"x".repeat(9)}`);
    const emoji = middleEllipsis(`${"📷".repeat(40)}.jpg`, 12);
    expect(emoji).toBe(`${"📷".repeat(5)}…${"📷".repeat(2)}.jpg`);
  });
});
