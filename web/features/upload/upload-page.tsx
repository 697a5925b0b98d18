import { Link } from "@tanstack/react-router";
import { ArrowLeft } from "lucide-react";
import { useState } from "react";
import type { CurrentUser } from "@shared/auth";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { FunnelOption, UpsellFunnelModal, type FunnelChoice } from "@/features/funnels/upload-funnel";
import { peekPendingUpload } from "@/lib/pending-upload";
import { RestoredIntent } from "./restored-intent";
import { UploadForm } from "./upload-form";
import { UploadSteps } from "./upload-steps";

export function UploadPage({ user }: { user: CurrentUser }) {
  const [intent] = useState(peekPendingUpload);
  const [step, setStep] = useState(0);
  const [funnel, setFunnel] = useState<FunnelChoice>({ wanted: false, name: "" });
  const [published, setPublished] = useState<{ id: string; title: string } | null>(null);
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-3xl space-y-6 px-4 py-8">
        <Link to="/" className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
          <ArrowLeft className="size-4" /> Back to dashboard
        </Link>
        <UploadSteps current={step} />
        {intent && <RestoredIntent intent={intent} />}
        <Card>
          <CardHeader>
            <CardTitle className="text-2xl">Create a paywall</CardTitle>
            <CardDescription>
              Upload a file (up to 5 GB), or paywall a link or a text, then set your price.
            </CardDescription>
          </CardHeader>
          <CardContent>
            {published ? (
              <p className="text-sm text-muted-foreground" data-testid="published-note">
                "{published.title}" is published at {location.origin}/p/{published.id}. Now set up its funnel.
              </p>
            ) : (
              <UploadForm
                intent={intent}
                onStepChange={setStep}
                extra={<FunnelOption value={funnel} onChange={setFunnel} />}
                onPublished={(created) => {
                  if (!funnel.wanted || !funnel.name.trim()) return false;
                  setPublished(created);
                  return true;
                }}
              />
            )}
          </CardContent>
        </Card>
      </main>
      {published && <UpsellFunnelModal item={published} funnelName={funnel.name.trim()} />}
    </div>
  );
}
