import { createFileRoute } from "@tanstack/react-router";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";

export const Route = createFileRoute("/checkout/$id")({
  component: () => <UpcomingPage title="Checkout" description="Card checkout arrives with the payments release." />,
});
