// One toast at a time for the pages drawn without React (the paywall's island and the public pages'
// islands, docs/pages.md): the app's toast as DOM, into the page's toast list (an `<ol aria-live>`).
// Both stylesheets (web/paywall/paywall.css, web/site/site.css) read this file for its classes.

export type ToastMessage = { title: string; description: string };

export function showToast(list: HTMLElement | null, { title, description }: ToastMessage, destructive = false) {
  if (!list) return;
  const item = document.createElement("li");
  item.setAttribute("role", "status");
  item.className = `pointer-events-auto relative flex w-full flex-col gap-1 overflow-hidden rounded-lg border p-5 pr-8 shadow-lg animate-in fade-in-0 slide-in-from-top-full sm:slide-in-from-bottom-full ${
    destructive ? "border-destructive bg-destructive text-white" : "bg-background text-foreground"
  }`;
  const heading = document.createElement("div");
  heading.className = "text-sm font-semibold";
  heading.textContent = title;
  const text = document.createElement("div");
  text.className = "text-sm opacity-90";
  text.textContent = description;
  const close = document.createElement("button");
  close.type = "button";
  close.setAttribute("aria-label", "Close");
  close.className = "absolute top-2 right-2 rounded-md p-1 opacity-70 hover:opacity-100";
  close.textContent = "×";
  close.addEventListener("click", () => item.remove());
  item.append(heading, text, close);
  list.replaceChildren(item);
  setTimeout(() => item.remove(), 5000);
}
