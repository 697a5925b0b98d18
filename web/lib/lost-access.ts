// "Lost your access?" sent from the pages drawn without React (the paywall's island and the success
// page's, docs/pages.md): the form worker/pages/lost-access.tsx drew inside `root`, checked and sent
// to POST /api/purchase/recover, then replaced by its "sent" note.
import { LOST_ACCESS_TEXT, lostAccessProblem, RECOVER_ACCESS_MESSAGE } from "@shared/paywall";
import { api } from "@/lib/api";

export function sendsLostAccess(root: HTMLElement, form: HTMLFormElement): void {
  const input = form.querySelector("input")!;
  const send = form.querySelector<HTMLButtonElement>("button")!;
  const problem = form.querySelector<HTMLElement>("[role=alert]")!;
  const spinner = send.querySelector("svg");
  send.disabled = false;
  input.addEventListener("input", () => (problem.textContent = ""));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const email = input.value.trim();
    if (!email) {
      problem.textContent = LOST_ACCESS_TEXT.emptyEmail;
      return;
    }
    send.disabled = true;
    send.setAttribute("aria-busy", "true");
    spinner?.classList.remove("hidden");
    try {
      const { message } = await api("POST /api/purchase/recover", { body: { email } });
      const sent = root.querySelector("template")!.content.firstElementChild!.cloneNode(true) as HTMLElement;
      sent.querySelector("span")!.textContent = message ?? RECOVER_ACCESS_MESSAGE;
      form.replaceWith(sent);
    } catch (err) {
      problem.textContent = lostAccessProblem(String((err as Error).message));
    } finally {
      send.disabled = false;
      send.setAttribute("aria-busy", "false");
      spinner?.classList.add("hidden");
    }
  });
}
