import { createFileRoute } from "@tanstack/react-router";
import { SettingsPage } from "@/features/payouts/settings-page";
import { RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/settings")({
  component: () => <RequireAuth>{(user) => <SettingsPage user={user} />}</RequireAuth>,
});
