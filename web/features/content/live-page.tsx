// "You're live" (after Publish): the item's link to copy or share, its social card as chats will show
// it (the paywall's og:title, og:description and og:image), and "View as a buyer".
import { formatDollarsPlain } from "@shared/money";
import { Link } from "@tanstack/react-router";
import { Check, Copy, ExternalLink, Pencil, Share2 } from "lucide-react";
import { useState } from "react";
import type { CreatorContent } from "@shared/content";
import type { CurrentUser } from "@shared/auth";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { NotFoundScreen } from "@/features/shell/guard-screens";
import { toast } from "@/hooks/use-toast";
import { paywallUrl } from "./content-row";
import { useMyItem } from "./use-my-item";

/** The card's title as the paywall's og:title writes it (worker/routes/paywall-page.tsx). */
const cardTitle = (item: CreatorContent) =>
  `${item.title} · ${item.pricingModel === "pay_what_you_want" ? `from ${formatDollarsPlain(item.minimumPrice ?? item.price)}` : formatDollarsPlain(item.price)}`;

function SocialCard({ item }: { item: CreatorContent }) {
  return (
    <figure
      className="overflow-hidden rounded-xl border bg-background"
      data-testid="social-card"
      aria-label="How chats show your link"
    >
      {/* With a preview image the page asks for the large card; without one, the small card with the site's icon. */}
      <div className={item.previewImage ? "" : "flex items-center"}>
        {item.previewImage ? (
          <img src={item.previewImage} alt="" className="aspect-[1.91/1] w-full object-cover" />
        ) : (
          <img src="/favicon.svg" alt="" className="m-3 size-16 shrink-0 rounded-md" />
        )}
        <figcaption className={`min-w-0 space-y-1 bg-muted/50 px-4 py-3 ${item.previewImage ? "border-t" : "flex-1"}`}>
          <p className="text-xs uppercase text-muted-foreground">{location.host}</p>
          <p className="break-words font-semibold">{cardTitle(item)}</p>
          <p className="line-clamp-2 break-words text-sm text-muted-foreground">
            {item.description || `Unlock "${item.title}" on ApeWall.`}
          </p>
        </figcaption>
      </div>
    </figure>
  );
}

export function LivePage({ user, contentId }: { user: CurrentUser; contentId: string }) {
  const { item, isPending, isError, refetch } = useMyItem(contentId);
  const [copied, setCopied] = useState(false);
  const url = paywallUrl(contentId);
  const canShare = typeof navigator.share === "function";

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
      toast({ title: "Link Copied", description: "Paywall link copied to clipboard." });
    } catch {
      toast({ title: "Copy Failed", description: "Could not copy link to clipboard.", variant: "destructive" });
    }
  };
  const share = async () => {
    try {
      await navigator.share({ title: item?.title, url });
    } catch {
      // Closed by the buyer-to-be's creator: nothing to say.
    }
  };

  let body: React.ReactNode;
  if (isPending) body = <SectionSpinner className="py-24" />;
  else if (isError)
    body = (
      <div className="space-y-3 py-16 text-center" role="alert">
        <p className="font-semibold">Could not load your item.</p>
        <Button variant="outline" onClick={() => refetch()}>
          Try again
        </Button>
      </div>
    );
  else if (!item) return <NotFoundScreen />;
  else
    body = (
      <div className="space-y-6">
        <div className="space-y-1 text-center">
          <p className="mx-auto flex size-12 items-center justify-center rounded-full bg-emerald-100 text-emerald-700">
            <Check className="size-6" />
          </p>
          <h1 className="text-3xl font-bold">You're live</h1>
          <p className="text-muted-foreground">
            {!item.published
              ? `"${item.title}" is unpublished: its page says it is no longer for sale.`
              : item.upsellOnly
                ? `"${item.title}" is offered only after a purchase, as a funnel step.`
                : `"${item.title}" is for sale. Share its link anywhere.`}
          </p>
        </div>
        <Card>
          <CardContent className="space-y-3">
            <label htmlFor="live-link" className="text-sm font-medium">
              Your link
            </label>
            <div className="flex flex-col gap-2 sm:flex-row">
              <Input
                id="live-link"
                readOnly
                value={url}
                onFocus={(e) => e.currentTarget.select()}
                className="min-w-0 font-mono text-sm"
                data-testid="live-link"
              />
              <div className="flex gap-2">
                <Button type="button" onClick={copy} className="flex-1 sm:flex-none">
                  {copied ? <Check /> : <Copy />} {copied ? "Copied" : "Copy link"}
                </Button>
                {canShare && (
                  <Button type="button" variant="outline" onClick={share} className="flex-1 sm:flex-none">
                    <Share2 /> Share
                  </Button>
                )}
              </div>
            </div>
          </CardContent>
        </Card>
        <div className="space-y-2">
          <p className="text-sm font-medium">How chats and social apps show it</p>
          <SocialCard item={item} />
        </div>
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button asChild variant="brand" className="flex-1">
            <a href={`/p/${item.id}`} target="_blank" rel="noreferrer">
              <ExternalLink /> View as a buyer
            </a>
          </Button>
          <Button asChild variant="outline" className="flex-1">
            <Link to="/content/$contentId/edit" params={{ contentId: item.id }}>
              <Pencil /> Edit item
            </Link>
          </Button>
          <Button asChild variant="ghost" className="flex-1">
            <Link to="/">Go to dashboard</Link>
          </Button>
        </div>
      </div>
    );
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-2xl px-4 py-8">{body}</main>
    </div>
  );
}
