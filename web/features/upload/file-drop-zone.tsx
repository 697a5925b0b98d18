// The drag-and-drop / click-to-pick area of the upload, edit and funnel-step forms (spec §2, §5; the
// landing's is the Worker's page, web/site/landing.ts). A file over the maximum size is silently
// ignored and not selected.
import { CloudUpload, FileText, Image, Video, X } from "lucide-react";
import { useRef, useState, type DragEvent } from "react";
import { formatFileSize, MAX_UPLOAD_BYTES } from "@shared/uploads";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

type Props = {
  selected: File | null;
  onSelect: (file: File) => void;
  onClear: () => void;
  onSubmit: () => void;
  maxSize?: number;
  accept?: string;
  /** The upload form has its own Publish button. */
  hideSubmit?: boolean;
};

export function FileDropZone({
  selected,
  onSelect,
  onClear,
  onSubmit,
  maxSize = MAX_UPLOAD_BYTES,
  accept,
  hideSubmit,
}: Props) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const pick = (file: File | undefined) => {
    if (!file || file.size > maxSize) return;
    onSelect(file);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    pick(e.dataTransfer.files[0]);
  };

  return (
    <div className="space-y-4">
      {/* biome-ignore lint/a11y/useSemanticElements: the drop target holds text and a preview a <button> may not contain */}
      <div
        role="button"
        tabIndex={0}
        data-testid="drop-zone"
        onClick={() => inputRef.current?.click()}
        onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && inputRef.current?.click()}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cn(
          "flex cursor-pointer flex-col items-center justify-center gap-3 rounded-2xl border-2 border-dashed px-6 py-10 text-center transition-colors",
          dragging
            ? "border-primary bg-accent"
            : "border-border bg-background hover:border-primary/60 hover:bg-accent/40",
        )}
      >
        <input
          ref={inputRef}
          type="file"
          className="hidden"
          accept={accept}
          data-testid="file-input"
          onChange={(e) => {
            pick(e.target.files?.[0]);
            e.target.value = "";
          }}
        />
        <div className="flex size-14 items-center justify-center rounded-full bg-brand-gradient text-white shadow-md">
          <CloudUpload className="size-7" />
        </div>
        {dragging ? (
          <p className="text-lg font-semibold text-primary">Drop your file here!</p>
        ) : (
          <p className="text-lg font-semibold">Drag & drop your file here, or click to upload</p>
        )}
        <p className="text-sm text-muted-foreground">Support for images, videos, PDFs, documents, and more</p>
        <p className="text-xs text-muted-foreground">Maximum file size: {formatFileSize(maxSize)}</p>
        <div className="mt-2 flex gap-6 text-xs text-muted-foreground">
          <span className="flex items-center gap-1.5">
            <Image className="size-4" /> Images
          </span>
          <span className="flex items-center gap-1.5">
            <Video className="size-4" /> Videos
          </span>
          <span className="flex items-center gap-1.5">
            <FileText className="size-4" /> Documents
          </span>
        </div>
      </div>

      {selected && (
        <div
          className="flex items-center justify-between rounded-lg border bg-card px-4 py-3"
          data-testid="selected-file"
        >
          <div className="min-w-0 text-left">
            <p className="truncate font-medium">{selected.name}</p>
            <p className="text-xs text-muted-foreground">{formatFileSize(selected.size)}</p>
          </div>
          <Button variant="ghost" size="icon" onClick={onClear} aria-label="Remove file">
            <X />
          </Button>
        </div>
      )}

      {!hideSubmit && (
        <Button
          variant="brand"
          size="lg"
          className="w-full text-base"
          onClick={selected ? onSubmit : () => inputRef.current?.click()}
        >
          {selected ? `Upload ${selected.name}` : "Ape It"}
        </Button>
      )}
    </div>
  );
}
