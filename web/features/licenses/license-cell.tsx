// A sale's license key in the sales table: the key, its status and activations, and the creator's
// switch to disable or re-enable it (POST /api/licenses/{id}/disable | enable).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { CreatorLicense } from "@shared/licenses";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast } from "@/hooks/use-toast";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const STATUS_LABEL: Record<CreatorLicense["status"], string> = {
  valid: "Valid",
  refunded: "Refunded",
  disabled: "Disabled",
};

export function LicenseCell({ license }: { license: CreatorLicense | null | undefined }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: async (action: "disable" | "enable") =>
      api(action === "disable" ? "POST /api/licenses/:id/disable" : "POST /api/licenses/:id/enable", {
        params: { id: license!.id },
        body: {},
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.creatorSales }),
    onError: (err) =>
      toast({ title: "Couldn't change the license key", description: (err as Error).message, variant: "destructive" }),
  });
  if (!license) return <span className="text-muted-foreground">—</span>;
  return (
    <div className="flex flex-col gap-1" data-testid="sale-license">
      <code className="select-all font-mono text-xs" data-testid="sale-license-key">
        {license.key}
      </code>
      <div className="flex flex-wrap items-center gap-1.5">
        <Badge variant={license.status === "valid" ? "success" : "destructive"} data-testid="sale-license-status">
          {STATUS_LABEL[license.status]}
        </Badge>
        <span className="text-xs text-muted-foreground">
          {license.activations} / {license.limit ?? "∞"} activations
        </span>
        {license.status === "valid" && (
          <Button
            size="sm"
            variant="outline"
            className="h-6 px-2 text-xs"
            disabled={toggle.isPending}
            onClick={() => toggle.mutate("disable")}
          >
            Disable key
          </Button>
        )}
        {license.disabledByCreator && (
          <Button
            size="sm"
            variant="outline"
            className="h-6 px-2 text-xs"
            disabled={toggle.isPending}
            onClick={() => toggle.mutate("enable")}
          >
            Enable key
          </Button>
        )}
      </div>
    </div>
  );
}
