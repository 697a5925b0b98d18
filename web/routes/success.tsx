import { createFileRoute } from "@tanstack/react-router";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";

export const Route = createFileRoute("/success")({
  component: () => <UpcomingPage title="Purchase" description="Purchase confirmation arrives with the payments release." />,
});
