// Routes of spec §2 whose screens arrive with later releases: the route, its guard and its top bar
// exist now, and the page says plainly what is coming.
import { Link } from "@tanstack/react-router";
import { Hammer } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { AppShell } from "@/features/shell/app-shell";

export function UpcomingPage({ title, description }: { title: string; description: string }) {
  return (
    <AppShell>
      <div className="mx-auto flex max-w-xl px-4 py-20">
        <Card className="w-full">
          <CardContent className="flex flex-col items-center gap-4 text-center">
            <div className="flex size-14 items-center justify-center rounded-full bg-accent text-primary">
              <Hammer className="size-7" />
            </div>
            <h1 className="text-2xl font-bold">{title}</h1>
            <p className="text-muted-foreground">{description}</p>
            <Button variant="outline" asChild>
              <Link to="/">Back to home</Link>
            </Button>
          </CardContent>
        </Card>
      </div>
    </AppShell>
  );
}
