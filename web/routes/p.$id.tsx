import { createFileRoute } from "@tanstack/react-router";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";

export const Route = createFileRoute("/p/$id")({
  component: () => <UpcomingPage title="Paywall" description="Paywall pages arrive with the content release." />,
});
