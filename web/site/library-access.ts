// Each paid purchase on /library opens when its card comes within 100px of the viewport (a long
// library does not open every purchase at once): GET /api/library/purchases/{id}, what its access
// link opens, drawn from the page's kit in place of the server's 'Open access page' link, as the
// app's PurchaseAccess draws it (web/features/access/purchase-access.tsx). docs/library.md.
import type { LibraryAccess } from "@shared/library";
import { LIBRARY_PART as PART, LIBRARY_TOAST } from "@shared/library-text";
import { middleEllipsis } from "@shared/file-names";
import { api } from "@/lib/api";
import { is401, kit, sessionEnded, setBusy, toast } from "./library-kit";

/** How far below the fold a card starts loading, so it is usually ready when scrolled to. */
const AHEAD = "100px 0px";

type Content = LibraryAccess["verification"]["content"];

const isAudio = (type: string | null) => !!type && type.startsWith("audio/");
const isImage = (type: string | null) => !!type && /^image\/(png|jpeg|gif|webp|avif)$/.test(type);

/** Asks for a signed URL and navigates to it: the file is an attachment, so the page stays. */
async function startDownload(content: Content, access: string, button: HTMLButtonElement) {
  setBusy(button, true);
  try {
    const { url } = await api("POST /api/content/:id/download", { params: { id: content.id }, body: { access } });
    const a = document.createElement("a");
    a.href = url;
    a.download = content.fileName ?? "";
    document.body.append(a);
    a.click();
    a.remove();
    toast(LIBRARY_TOAST.downloadStarted);
  } catch {
    toast(LIBRARY_TOAST.downloadFailed, true);
  } finally {
    setBusy(button, false);
  }
}

const withHref = <T extends HTMLElement>(el: T | null, href: string) => {
  el?.setAttribute(el instanceof HTMLAnchorElement ? "href" : "src", href);
  return el;
};

/** The controls for one purchase, by access type. */
function controls({ verification: v, access }: LibraryAccess): HTMLElement[] {
  const { content } = v;
  const out: (HTMLElement | null)[] = [];
  if (content.accessType === "download" && content.fileUrl) {
    const button = kit<HTMLButtonElement>("download");
    if (button) {
      if (content.fileName) {
        button.setAttribute("aria-label", `Download ${content.fileName}`);
        const name = button.querySelector<HTMLElement>("span > span")!;
        name.textContent = middleEllipsis(content.fileName);
        name.title = content.fileName;
      }
      button.addEventListener("click", () => void startDownload(content, access, button));
    }
    out.push(button);
  }
  if (content.accessType === "link" && content.linkUrl) out.push(withHref(kit("link"), content.linkUrl));
  if (content.accessType === "stream" && content.fileUrl) {
    out.push(withHref(kit(isAudio(content.fileType) ? "audio" : "video"), content.fileUrl));
    out.push(withHref(kit("watch"), content.fileUrl));
  }
  if (content.accessType === "view" && content.fileUrl) {
    if (isImage(content.fileType)) {
      const img = withHref(kit<HTMLImageElement>("image"), content.fileUrl);
      if (img) img.alt = content.title;
      out.push(img);
    }
    out.push(withHref(kit(content.textContent ? "view-secondary" : "view"), content.fileUrl));
  }
  if (content.textContent) {
    const text = kit("text");
    if (text) text.textContent = content.textContent;
    out.push(text);
  }
  if (v.purchase.licenseKey) {
    const box = kit("license");
    if (box) {
      box.querySelector("code")!.textContent = v.purchase.licenseKey;
      box.querySelector<HTMLElement>(`[data-part="${PART.copy}"]`)!.dataset.copy = v.purchase.licenseKey;
    }
    out.push(box);
  }
  return out.filter((el): el is HTMLElement => !!el);
}

async function open(slot: HTMLElement) {
  const id = slot.dataset.id;
  if (!id) return;
  try {
    const answer = await api("GET /api/library/purchases/:id", { params: { id } });
    const wrap = document.createElement("div");
    wrap.className = "space-y-4";
    wrap.dataset.testid = "purchase-access";
    wrap.dataset.accessType = answer.verification.content.accessType;
    wrap.append(...controls(answer));
    slot.replaceChildren(wrap);
  } catch (err) {
    if (is401(err)) return sessionEnded();
    // The server's link stays: the access page opens the purchase all the same.
  }
}

const observer =
  typeof IntersectionObserver === "undefined"
    ? null
    : new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            observer?.unobserve(entry.target);
            void open(entry.target as HTMLElement);
          }
        },
        { rootMargin: AHEAD },
      );

/** Opens each purchase under `scope` as it nears the viewport (all at once without an observer). */
export function openWhenSeen(scope: ParentNode) {
  for (const slot of scope.querySelectorAll<HTMLElement>(`[data-part="${PART.access}"]`)) {
    if (observer) observer.observe(slot);
    else void open(slot);
  }
}
