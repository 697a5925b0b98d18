import { Loader2 } from "lucide-react";
import { cn } from "@/lib/utils";

export function Spinner({ className, label = "Loading" }: { className?: string; label?: string }) {
  return <Loader2 role="status" aria-label={label} className={cn("size-8 animate-spin text-primary", className)} />;
}

/** The whole-page spinner shown while the sign-in state loads. */
export function PageSpinner() {
  return (
    <div className="flex min-h-screen items-center justify-center">
      <Spinner />
    </div>
  );
}

/** A spinner centred in a section (or, with more room, a page inside the layout) while its data loads. */
export function SectionSpinner({ className }: { className?: string }) {
  return (
    <div className={cn("flex justify-center py-16", className)}>
      <Spinner />
    </div>
  );
}
