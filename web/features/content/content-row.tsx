import { Link } from "@tanstack/react-router";
import { Copy, ExternalLink, FileText, GitBranch, Link2, Pencil, PlayCircle, Trash2, Type } from "lucide-react";
import { ACCESS_BADGES, type CreatorContent, categoryLabel } from "@shared/content";
import type { AnalyticsItem } from "@shared/analytics";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { LinkFunnel } from "@/features/analytics/link-funnel";
import { toast } from "@/hooks/use-toast";
import { formatDollars } from "@shared/money";

const ACCESS_ICON = { download: FileText, view: Type, stream: PlayCircle, link: Link2 } as const;

export const paywallUrl = (id: string) => `${location.origin}/p/${id}`;
const sizeInMb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2)} MB`;

function IconAction({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent>{label}</TooltipContent>
    </Tooltip>
  );
}

export function ContentRow({
  item,
  onDelete,
  funnel,
}: {
  item: CreatorContent;
  onDelete: () => void;
  funnel?: AnalyticsItem;
}) {
  const Icon = ACCESS_ICON[item.accessType];
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(paywallUrl(item.id));
      toast({ title: "Link Copied", description: "Paywall link copied to clipboard." });
    } catch {
      toast({ title: "Copy Failed", description: "Could not copy link to clipboard.", variant: "destructive" });
    }
  };
  return (
    <li className="flex flex-col gap-4 p-4 sm:flex-row sm:items-center" data-testid="content-row">
      <div className="flex min-w-0 flex-1 items-center gap-4">
        {item.previewImage ? (
          <img
            src={item.previewImage}
            alt=""
            className="size-14 shrink-0 rounded-lg border object-cover"
            loading="lazy"
          />
        ) : (
          <div className="flex size-14 shrink-0 items-center justify-center rounded-lg bg-accent text-primary">
            <Icon className="size-6" />
          </div>
        )}
        <div className="min-w-0 space-y-1">
          <p className="truncate font-semibold">{item.title}</p>
          <div className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
            <Badge variant="secondary">{categoryLabel(item.category)}</Badge>
            <Badge variant="outline">{ACCESS_BADGES[item.accessType]}</Badge>
            {item.upsellOnly && (
              <Badge
                variant="outline"
                data-testid="upsell-only-badge"
                title="Sold only as a funnel step, after a purchase"
              >
                Upsell only
              </Badge>
            )}
            {!item.published && (
              <Badge variant="destructive" data-testid="unpublished-badge">
                Unpublished
              </Badge>
            )}
            {item.fileSize !== null && <span data-testid="content-size">{sizeInMb(item.fileSize)}</span>}
            <span>· {new Date(item.createdAt).toLocaleDateString()}</span>
          </div>
          {funnel && <LinkFunnel stats={funnel} />}
        </div>
      </div>
      <div className="grid grid-cols-3 gap-4 text-sm sm:w-72">
        <div>
          <p className="text-xs text-muted-foreground">
            {item.pricingModel === "pay_what_you_want" ? "Min. price" : "Price"}
          </p>
          <p className="font-semibold">
            {formatDollars(item.pricingModel === "pay_what_you_want" ? (item.minimumPrice ?? item.price) : item.price)}
          </p>
        </div>
        <div>
          <p className="text-xs text-muted-foreground">Unlocks</p>
          <p className="font-semibold">{item.unlockCount}</p>
        </div>
        <div>
          <p className="text-xs text-muted-foreground">Earnings</p>
          <p className="font-semibold">{formatDollars(item.totalEarnings)}</p>
        </div>
      </div>
      <div className="flex items-center gap-1">
        <IconAction label="Copy link">
          <Button variant="ghost" size="icon" onClick={copy} aria-label="Copy link">
            <Copy />
          </Button>
        </IconAction>
        <IconAction label="Open paywall">
          <Button variant="ghost" size="icon" asChild>
            <a href={`/p/${item.id}`} target="_blank" rel="noreferrer" aria-label="Open paywall">
              <ExternalLink />
            </a>
          </Button>
        </IconAction>
        <IconAction label="Edit">
          <Button variant="ghost" size="icon" asChild>
            <Link to="/content/$contentId/edit" params={{ contentId: item.id }} aria-label="Edit">
              <Pencil />
            </Link>
          </Button>
        </IconAction>
        <IconAction label="Edit funnel">
          <Button variant="ghost" size="icon" asChild>
            <Link to="/content/$contentId/edit-funnel" params={{ contentId: item.id }} aria-label="Edit funnel">
              <GitBranch />
            </Link>
          </Button>
        </IconAction>
        <IconAction label="Delete">
          <Button
            variant="ghost"
            size="icon"
            onClick={onDelete}
            aria-label="Delete"
            className="text-destructive hover:text-destructive"
          >
            <Trash2 />
          </Button>
        </IconAction>
      </div>
    </li>
  );
}
