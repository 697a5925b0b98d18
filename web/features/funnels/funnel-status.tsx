// A funnel's status where it is shown (/funnels and the editor): the Test / Live badge, the switch
// between them, the preview of its steps, and the notice that a funnel in Test reaches no buyer.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FlaskConical } from "lucide-react";
import { FUNNEL_STATUS_LABEL, FUNNEL_TEST_NOTICE, type Funnel } from "@shared/funnels";
import { Badge } from "@/components/ui/badge";
import { queryKeys } from "@/lib/query-keys";
import { cn } from "@/lib/utils";
import { setTestMode } from "./api";

/** The one status a funnel shows, here and in its editor: Test (previews only) or Live (buyers see it). */
export function FunnelStatusBadge({ funnel }: { funnel: Funnel }) {
  return (
    <Badge
      variant={funnel.status === "live" ? "default" : "outline"}
      className={funnel.status === "live" ? "bg-emerald-600 text-white" : "border-amber-400 text-amber-800"}
      data-testid="funnel-status"
    >
      {FUNNEL_STATUS_LABEL[funnel.status]}
    </Badge>
  );
}

export function TestLiveToggle({ funnel }: { funnel: Funnel }) {
  const queryClient = useQueryClient();
  // Spec §8: a test-mode failure shows no message; the switch just stays where it was.
  const toggle = useMutation({
    mutationFn: (testMode: boolean) => setTestMode(funnel.id, testMode),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.funnels }),
  });
  const live = !funnel.testMode;
  return (
    <div className="inline-flex shrink-0 rounded-lg border p-0.5" role="radiogroup" aria-label="Funnel mode">
      {[
        { label: "Test", on: !live, testMode: true },
        { label: "Live", on: live, testMode: false },
      ].map((o) => (
        // biome-ignore lint/a11y/useSemanticElements: a segmented control of buttons; role=radio with aria-checked gives it the radios' semantics
        <button
          key={o.label}
          type="button"
          role="radio"
          aria-checked={o.on}
          disabled={toggle.isPending}
          onClick={() => !o.on && toggle.mutate(o.testMode)}
          className={cn(
            "rounded-md px-3 py-1 text-sm font-medium",
            o.on
              ? live
                ? "bg-emerald-600 text-white"
                : "bg-amber-500 text-white"
              : "text-muted-foreground hover:bg-muted",
          )}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

/** Above a form that changes a funnel in Test: what is saved there reaches no buyer yet. */
export function TestModeNotice({ funnel }: { funnel: Funnel }) {
  if (!funnel.testMode) return null;
  return (
    <p
      className="flex items-center gap-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900"
      data-testid="funnel-test-notice"
    >
      <FlaskConical className="size-4 shrink-0" /> {FUNNEL_TEST_NOTICE}
    </p>
  );
}

/** The toast's description after a change to `funnel` is saved: said only while it is in Test. */
export const testModeDescription = (funnel: Funnel, live: string) => (funnel.testMode ? FUNNEL_TEST_NOTICE : live);
