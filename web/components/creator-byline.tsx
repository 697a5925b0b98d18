// "by {name}" with the avatar and a contact link: who the buyer pays (checkout, success and access
// pages; the paywall renders the same on the server, worker/pages/paywall.tsx). The avatar's box is
// fixed, with or without an image, so nothing moves when it loads.
import { creatorByline, type PublicCreator } from "@shared/profile";
import { cn } from "@/lib/utils";

export function CreatorByline({ creator, className }: { creator: PublicCreator | undefined; className?: string }) {
  const name = creator?.name ?? null;
  return (
    <div
      className={cn("flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground", className)}
      data-testid="creator-byline"
    >
      <span
        className="flex size-6 shrink-0 items-center justify-center overflow-hidden rounded-full bg-muted text-xs font-semibold text-foreground"
        aria-hidden="true"
      >
        {creator?.avatarUrl ? (
          <img
            src={creator.avatarUrl}
            alt=""
            width={24}
            height={24}
            className="size-full object-cover"
            data-testid="creator-avatar"
          />
        ) : (
          (name?.slice(0, 1).toUpperCase() ?? "A")
        )}
      </span>
      <span className="min-w-0 break-words" data-testid="creator-name">
        {creatorByline(creator)}
      </span>
      {creator?.supportEmail && (
        <a
          href={`mailto:${creator.supportEmail}`}
          className="underline-offset-4 hover:text-foreground hover:underline"
          data-testid="creator-contact"
        >
          Contact the creator
        </a>
      )}
    </div>
  );
}
