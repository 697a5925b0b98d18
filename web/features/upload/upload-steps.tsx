import { Check } from "lucide-react";
import { cn } from "@/lib/utils";

const STEPS = ["Upload", "Details", "Publish"] as const;

/** The upload page's 3-step header; `current` is 0-based. */
export function UploadSteps({ current }: { current: number }) {
  return (
    <ol className="flex items-center gap-2 sm:gap-4" aria-label="Upload steps">
      {STEPS.map((label, i) => (
        <li
          key={label}
          className="flex flex-1 items-center gap-2 sm:gap-3"
          aria-current={i === current ? "step" : undefined}
        >
          <span
            className={cn(
              "flex size-8 shrink-0 items-center justify-center rounded-full border-2 text-sm font-semibold",
              i < current && "border-primary bg-primary text-primary-foreground",
              i === current && "border-primary text-primary",
              i > current && "border-border text-muted-foreground",
            )}
          >
            {i < current ? <Check className="size-4" /> : i + 1}
          </span>
          <span className={cn("text-sm font-medium", i > current && "text-muted-foreground")}>{label}</span>
          {i < STEPS.length - 1 && (
            <span className={cn("h-0.5 flex-1 rounded", i < current ? "bg-primary" : "bg-border")} />
          )}
        </li>
      ))}
    </ol>
  );
}
