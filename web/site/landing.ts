// The landing's island (docs/pages.md): the drop zone (click or drag & drop to pick, 'Drop your
// file here!' while a file is over it, a file over the maximum silently ignored: spec §5) and the
// link and text cards. A choice is kept as the visitor's pending upload intent and the browser goes
// to sign in, as the SPA's landing did: the upload page picks the intent up after sign-in
// (web/lib/pending-upload.ts). No React: the Worker's HTML is the page (worker/pages/landing.tsx).
import "./common";
import { formatFileSize, MAX_UPLOAD_BYTES } from "@shared/file-size";
import { DROP_ZONE_TEXT, LANDING_PART as PART } from "@shared/landing";
import { goToLogin } from "@/lib/login";
import { savePendingUpload, type PendingUpload } from "@/lib/pending-upload";

const part = <T extends Element = HTMLElement>(name: string) => document.querySelector<T>(`[data-part="${name}"]`) as T;

const startWith = (intent: PendingUpload) => {
  savePendingUpload(intent);
  goToLogin();
};

const form = part<HTMLFormElement>(PART.dropZone);
const zone = form.querySelector<HTMLElement>('[role="button"]') as HTMLElement;
const input = part<HTMLInputElement>(PART.fileInput);
const title = part(PART.dropTitle);
const selected = part(PART.selected);
const submit = part<HTMLButtonElement>(PART.submit);
let chosen: File | null = null;

function show(file: File | null) {
  chosen = file;
  selected.hidden = !file;
  part(PART.selectedName).textContent = file?.name ?? "";
  part(PART.selectedSize).textContent = file ? formatFileSize(file.size) : "";
  submit.textContent = file ? DROP_ZONE_TEXT.upload(file.name) : DROP_ZONE_TEXT.apeIt;
}

/** Spec §4: picking a file stores its metadata and goes to sign-in at once. */
function pick(file: File | undefined) {
  if (!file || file.size > MAX_UPLOAD_BYTES) return;
  show(file);
  startWith({ kind: "file", uploadFile: { name: file.name, size: file.size, type: file.type } });
}

function dragging(on: boolean) {
  zone.toggleAttribute("data-dragging", on);
  title.textContent = on ? DROP_ZONE_TEXT.dragOver : DROP_ZONE_TEXT.title;
  title.classList.toggle("text-primary", on);
}

zone.addEventListener("click", (e) => {
  // The input's own click bubbles up here: open the picker once.
  if (e.target !== input) input.click();
});
zone.addEventListener("keydown", (e) => {
  if (e.key !== "Enter" && e.key !== " ") return;
  e.preventDefault();
  input.click();
});
zone.addEventListener("dragover", (e) => {
  e.preventDefault();
  dragging(true);
});
zone.addEventListener("dragleave", () => dragging(false));
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  dragging(false);
  pick(e.dataTransfer?.files[0]);
});
input.addEventListener("change", () => {
  pick(input.files?.[0]);
  input.value = "";
});
part(PART.clear).addEventListener("click", () => show(null));
form.addEventListener("submit", (e) => {
  e.preventDefault();
  if (chosen) pick(chosen);
  else input.click();
});

const linkForm = part<HTMLFormElement>(PART.linkForm);
linkForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const link = (linkForm.querySelector("input") as HTMLInputElement).value.trim();
  if (link) startWith({ kind: "link", uploadLink: link });
});
const textForm = part<HTMLFormElement>(PART.textForm);
textForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const text = (textForm.querySelector("textarea") as HTMLTextAreaElement).value;
  if (text.trim()) startWith({ kind: "text", uploadText: text });
});
