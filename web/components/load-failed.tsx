import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

/**
 * A section whose data did not load: "Couldn't load <what>." with the reason after it and, when the
 * caller can ask again, a "Try again" button. `className` styles the line (or the box with the button).
 */
export function LoadFailed({
  what,
  detail,
  onRetry,
  className,
}: {
  what: string;
  detail?: string;
  onRetry?: () => unknown;
  className?: string;
}) {
  const line = `Couldn't load ${what}.${detail ? ` ${detail}` : ""}`;
  if (!onRetry) return <p className={cn("text-destructive", className)}>{line}</p>;
  return (
    <div className={cn("space-y-3 py-6 text-center", className)}>
      <p className="text-destructive">{line}</p>
      <Button variant="outline" size="sm" onClick={() => void onRetry()}>
        Try again
      </Button>
    </div>
  );
}
