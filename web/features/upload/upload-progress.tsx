import { formatFileSize } from "@shared/uploads";
import { Button } from "@/components/ui/button";
import { Progress } from "@/components/ui/progress";
import { formatDuration, type UploadProgress } from "./multipart-upload";

export function UploadProgressPanel({
  fileName,
  progress,
  onCancel,
}: {
  fileName: string;
  progress: UploadProgress;
  onCancel: () => void;
}) {
  return (
    <div className="space-y-2 rounded-xl border bg-card p-4" data-testid="upload-progress" aria-live="polite">
      <div className="flex items-center justify-between gap-3 text-sm">
        <span className="truncate font-medium">Uploading {fileName}</span>
        <span className="font-semibold tabular-nums" data-testid="upload-percent">
          {Math.floor(progress.percent)}%
        </span>
      </div>
      <Progress value={progress.percent} aria-label="Upload progress" />
      <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted-foreground">
        <span className="tabular-nums">
          {formatFileSize(progress.loaded)} of {formatFileSize(progress.total)}
          {progress.bytesPerSecond > 0 && ` · ${formatFileSize(progress.bytesPerSecond)}/s`} ·{" "}
          {formatDuration(progress.secondsLeft)}
          {progress.resumedParts > 0 && ` · resumed (${progress.resumedParts} parts were already uploaded)`}
        </span>
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          Cancel upload
        </Button>
      </div>
    </div>
  );
}
