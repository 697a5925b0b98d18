import { createFileRoute } from "@tanstack/react-router";
import { RequireAuth } from "@/features/shell/guard-screens";
import { UploadPage } from "@/features/upload/upload-page";

export const Route = createFileRoute("/upload")({
  component: () => <RequireAuth>{(user) => <UploadPage user={user} />}</RequireAuth>,
});
