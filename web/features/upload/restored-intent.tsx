// What the visitor picked on the landing before signing in, restored on the upload page.
import { FileUp, Link2, Type } from "lucide-react";
import { formatFileSize } from "@shared/uploads";
import type { PendingUpload } from "@/lib/pending-upload";

export function RestoredIntent({ intent }: { intent: PendingUpload }) {
  return (
    <div
      className="flex items-start gap-3 rounded-xl border border-primary/30 bg-accent/60 px-4 py-3 text-sm"
      data-testid="restored-intent"
    >
      {intent.kind === "file" && (
        <>
          <FileUp className="mt-0.5 size-5 shrink-0 text-primary" />
          <div>
            <p className="font-semibold">Continue with {intent.uploadFile.name}</p>
            <p className="text-muted-foreground">
              {formatFileSize(intent.uploadFile.size)} · For your privacy the browser doesn't keep files across sign-in:
              please pick <strong className="text-foreground">{intent.uploadFile.name}</strong> again below.
            </p>
          </div>
        </>
      )}
      {intent.kind === "link" && (
        <>
          <Link2 className="mt-0.5 size-5 shrink-0 text-primary" />
          <div className="min-w-0">
            <p className="font-semibold">Paywalling your link</p>
            <p className="truncate text-muted-foreground">{intent.uploadLink}</p>
          </div>
        </>
      )}
      {intent.kind === "text" && (
        <>
          <Type className="mt-0.5 size-5 shrink-0 text-primary" />
          <div className="min-w-0">
            <p className="font-semibold">Paywalling your text</p>
            <p className="line-clamp-2 text-muted-foreground">{intent.uploadText}</p>
          </div>
        </>
      )}
    </div>
  );
}
