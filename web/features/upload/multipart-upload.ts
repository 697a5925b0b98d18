// The browser side of multipart uploads: splits a file into the server's equal parts, sends a few at
// once with per-part progress, retries failed parts with backoff (waiting out offline spells), and
// after a reload resumes by sending only the parts the server does not have yet.
import type { UploadState } from "@shared/uploads";
import { api, apiRequest } from "@/lib/api";

export type UploadProgress = {
  loaded: number;
  total: number;
  percent: number;
  bytesPerSecond: number;
  secondsLeft: number | null;
  resumedParts: number;
};

type Options = {
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
  concurrency?: number;
  maxRetries?: number;
};

const RESUME_PREFIX = "apewall.upload:";
const resumeKey = (file: File) => `${RESUME_PREFIX}${file.name}:${file.size}:${file.lastModified}`;

class PartError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

function putPart(url: string, blob: Blob, onLoaded: (bytes: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => onLoaded(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let message = xhr.responseText || xhr.statusText;
      try {
        message = JSON.parse(xhr.responseText).message ?? message;
      } catch {
        // plain text
      }
      const retryable = xhr.status >= 500 || xhr.status === 408 || xhr.status === 429;
      reject(new PartError(`${xhr.status}: ${message}`, retryable));
    };
    xhr.onerror = () => reject(new PartError("Network error while uploading", true));
    xhr.ontimeout = () => reject(new PartError("Upload timed out", true));
    const abort = () => xhr.abort();
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    signal?.addEventListener("abort", abort, { once: true });
    xhr.send(blob);
  });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new DOMException("Upload cancelled", "AbortError"));
    });
  });

const waitUntilOnline = (signal?: AbortSignal) =>
  navigator.onLine
    ? Promise.resolve()
    : new Promise<void>((resolve, reject) => {
        window.addEventListener("online", () => resolve(), { once: true });
        signal?.addEventListener("abort", () => reject(new DOMException("Upload cancelled", "AbortError")));
      });

async function findResumable(file: File): Promise<UploadState | null> {
  const id = localStorage.getItem(resumeKey(file));
  if (!id) return null;
  try {
    const state = await api("GET /api/uploads/:id", { params: { id } });
    if (state.size === file.size && state.status !== "aborted" && state.status !== "removed") return state;
  } catch {
    // Gone or not ours any more: start afresh.
  }
  localStorage.removeItem(resumeKey(file));
  return null;
}

/** Uploads `file` and returns the finished upload's id, for POST /api/content's `uploadId`. */
export async function uploadFile(
  file: File,
  { onProgress, signal, concurrency = 4, maxRetries = 6 }: Options = {},
): Promise<string> {
  let state = await findResumable(file);
  if (!state) {
    state = await api("POST /api/uploads", {
      body: { fileName: file.name, size: file.size, contentType: file.type },
    });
    localStorage.setItem(resumeKey(file), state.id);
  }
  const { id, partSize, partCount } = state;
  const done = new Set(state.uploadedParts);
  const partLength = (n: number) => (n < partCount ? partSize : file.size - partSize * (partCount - 1));

  let completedBytes = [...done].reduce((sum, n) => sum + partLength(n), 0);
  const inFlight = new Map<number, number>();
  const samples: { t: number; loaded: number }[] = [];
  const report = () => {
    const loaded = completedBytes + [...inFlight.values()].reduce((a, b) => a + b, 0);
    const now = performance.now();
    samples.push({ t: now, loaded });
    while (samples.length > 2 && now - samples[0].t > 5000) samples.shift();
    const first = samples[0];
    const seconds = (now - first.t) / 1000;
    const bytesPerSecond = seconds > 0.2 ? (loaded - first.loaded) / seconds : 0;
    onProgress?.({
      loaded,
      total: file.size,
      percent: file.size ? Math.min(100, (loaded / file.size) * 100) : 100,
      bytesPerSecond,
      secondsLeft: bytesPerSecond > 0 ? (file.size - loaded) / bytesPerSecond : null,
      resumedParts: state!.uploadedParts.length,
    });
  };
  report();

  if (state.status !== "completed") {
    const queue = Array.from({ length: partCount }, (_, i) => i + 1).filter((n) => !done.has(n));
    const sendPart = async (n: number) => {
      const start = (n - 1) * partSize;
      const blob = file.slice(start, start + partLength(n));
      for (let attempt = 0; ; attempt++) {
        try {
          await putPart(
            `/api/uploads/${id}/parts/${n}`,
            blob,
            (bytes) => {
              inFlight.set(n, bytes);
              report();
            },
            signal,
          );
          inFlight.delete(n);
          completedBytes += blob.size;
          report();
          return;
        } catch (err) {
          inFlight.delete(n);
          if (!(err instanceof PartError) || !err.retryable || attempt >= maxRetries) throw err;
          await waitUntilOnline(signal);
          await sleep(Math.min(30_000, 1000 * 2 ** attempt), signal);
        }
      }
    };
    const worker = async () => {
      for (let n = queue.shift(); n !== undefined; n = queue.shift()) await sendPart(n);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    await completeUpload(id, signal);
  }
  localStorage.removeItem(resumeKey(file));
  return id;
}

/**
 * Asks the server to assemble the parts. Another tab (or a retried request) may be completing the
 * same upload: the server then answers 409 "being completed", and we wait for its finished state.
 */
async function completeUpload(id: string, signal?: AbortSignal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await apiRequest("POST", `/api/uploads/${id}/complete`);
      return;
    } catch (err) {
      if (
        !(err instanceof Error && err.message.startsWith("409") && err.message.includes("being completed")) ||
        attempt >= 20
      )
        throw err;
      await sleep(1000, signal);
    }
  }
}

/** Stops an upload for good: the server aborts it and forgets its parts. */
export async function discardUpload(file: File): Promise<void> {
  const id = localStorage.getItem(resumeKey(file));
  localStorage.removeItem(resumeKey(file));
  if (id)
    await fetch(`/api/uploads/${encodeURIComponent(id)}`, { method: "DELETE", credentials: "include" }).catch(
      () => undefined,
    );
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "calculating…";
  if (seconds < 60) return `${Math.ceil(seconds)}s left`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${Math.ceil(seconds % 60)}s left`;
  return `${Math.floor(m / 60)}h ${m % 60}m left`;
}
