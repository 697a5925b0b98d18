// What a buyer gets, by access type: one component for the paywall's unlocked state and the
// success page. Downloads navigate to a short-lived signed URL, so the browser streams the file
// to disk as it arrives; streams play from the Range endpoint; text shows inline; links open.
import { Copy, Download, ExternalLink, Eye, PlayCircle } from "lucide-react";
import { useState } from "react";
import { middleEllipsis } from "@shared/file-names";
import type { PurchaseVerification } from "@shared/payments";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { toast } from "@/hooks/use-toast";
import { api } from "@/lib/api";

type Content = PurchaseVerification["content"];
/** Where the buyer is: the paywall and the success page word a failed download differently (spec §8). */
export type AccessPlace = "paywall" | "success";

const DOWNLOAD_ERROR: Record<AccessPlace, { title: string; description: string }> = {
  paywall: { title: "Download Error", description: "Failed to download content. Please contact support." },
  success: { title: "Download Failed", description: "There was an error downloading your file." },
};

/** Asks for a signed URL and navigates to it: the file is an attachment, so the page stays. */
async function startDownload(content: Content, access: string | undefined, place: AccessPlace): Promise<void> {
  try {
    const { url } = await api("POST /api/content/:id/download", {
      params: { id: content.id },
      body: access ? { access } : {},
    });
    const a = document.createElement("a");
    a.href = url;
    a.download = content.fileName ?? "";
    document.body.appendChild(a);
    a.click();
    a.remove();
    toast({ title: "Download Started", description: "Your file is being downloaded." });
  } catch {
    toast({ ...DOWNLOAD_ERROR[place], variant: "destructive" });
  }
}

const isAudio = (type: string | null) => !!type && type.startsWith("audio/");
const isImage = (type: string | null) => !!type && /^image\/(png|jpeg|gif|webp|avif)$/.test(type);

export function PurchaseAccess({ v, access, place }: { v: PurchaseVerification; access?: string; place: AccessPlace }) {
  const { content } = v;
  const [downloading, setDownloading] = useState(false);
  const download = async () => {
    setDownloading(true);
    await startDownload(content, access, place);
    setDownloading(false);
  };

  return (
    <div className="space-y-4" data-testid="purchase-access" data-access-type={content.accessType}>
      {content.accessType === "download" && content.fileUrl && (
        // A long name is shortened in the middle (its full name is the title) and may wrap: on a
        // phone the button stays inside the screen and nothing of it is cut.
        <Button
          variant="brand"
          size="lg"
          className="h-auto min-h-12 w-full py-2 text-base whitespace-normal"
          onClick={download}
          disabled={downloading}
          aria-label={content.fileName ? `Download ${content.fileName}` : undefined}
        >
          {downloading ? <Spinner className="size-4 text-white" /> : <Download />}
          <span className="min-w-0 wrap-anywhere">
            Download{" "}
            {content.fileName && (
              // One piece: it moves to its own line rather than break, unless it alone is too wide.
              <span className="inline-block max-w-full" title={content.fileName}>
                {middleEllipsis(content.fileName)}
              </span>
            )}
          </span>
        </Button>
      )}
      {content.accessType === "link" && content.linkUrl && (
        <Button variant="brand" size="lg" className="h-12 w-full text-base" asChild>
          <a href={content.linkUrl} target="_blank" rel="noreferrer noopener">
            <ExternalLink /> Open Link
          </a>
        </Button>
      )}
      {content.accessType === "stream" && content.fileUrl && (
        <>
          {isAudio(content.fileType) ? (
            // biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track
            <audio controls preload="metadata" src={content.fileUrl} className="w-full" data-testid="stream-player" />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track
            <video
              controls
              preload="metadata"
              src={content.fileUrl}
              className="aspect-video w-full rounded-lg bg-black"
              data-testid="stream-player"
            />
          )}
          <Button size="lg" variant="outline" className="w-full" asChild>
            <a href={content.fileUrl} target="_blank" rel="noreferrer">
              <PlayCircle /> Watch in a new tab
            </a>
          </Button>
        </>
      )}
      {content.accessType === "view" && content.fileUrl && (
        <>
          {isImage(content.fileType) && (
            <img
              src={content.fileUrl}
              alt={content.title}
              className="w-full rounded-lg border"
              data-testid="view-image"
            />
          )}
          <Button
            size="lg"
            variant={content.textContent ? "outline" : "brand"}
            className="h-12 w-full text-base"
            asChild
          >
            <a href={content.fileUrl} target="_blank" rel="noreferrer">
              <Eye /> View Online
            </a>
          </Button>
        </>
      )}
      {content.textContent && (
        <div
          className="max-h-[60vh] overflow-auto whitespace-pre-wrap rounded-lg border bg-muted/40 p-4 text-sm"
          data-testid="text-content"
        >
          {content.textContent}
        </div>
      )}
      {v.purchase.licenseKey && <LicenseKey value={v.purchase.licenseKey} />}
    </div>
  );
}

/** The purchase's license key, selectable and copyable (only its owner gets a verification). */
function LicenseKey({ value }: { value: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      toast({ title: "Copied", description: "License key copied to the clipboard." });
    } catch {
      toast({ title: "Copy failed", description: "Select the key and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <div className="rounded-lg border bg-muted/40 p-3 text-left">
      <div className="text-xs font-medium text-muted-foreground">Your license key</div>
      <div className="mt-1 flex items-center gap-2">
        <code className="flex-1 select-all break-all font-mono text-sm" data-testid="license-key">
          {value}
        </code>
        <Button type="button" size="sm" variant="outline" onClick={copy} aria-label="Copy license key">
          <Copy /> Copy
        </Button>
      </div>
    </div>
  );
}
