import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";

/** A list's empty state: an icon, a title, a line of help and an optional action. */
export function EmptyState({
  icon: Icon,
  title,
  text,
  action,
}: {
  icon: LucideIcon;
  title: string;
  text: string;
  action?: ReactNode;
}) {
  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <Icon className="size-10 text-muted-foreground" />
        <h3 className="text-lg font-semibold">{title}</h3>
        <p className="max-w-sm text-muted-foreground">{text}</p>
        {action}
      </CardContent>
    </Card>
  );
}
