import { Link } from "@tanstack/react-router";
import { Upload } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";

export function ContentTab() {
  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <Upload className="size-10 text-muted-foreground" />
        <h3 className="text-lg font-semibold">Your content lives here</h3>
        <p className="max-w-sm text-muted-foreground">Upload a file, paywall a link or a text, and it appears in this list with its sales.</p>
        <Button asChild>
          <Link to="/upload">Upload content</Link>
        </Button>
      </CardContent>
    </Card>
  );
}
