// The signed-out landing (spec §2, §4): pick a file, a link or a text; its metadata is kept in the
// session and the visitor goes to sign in.
import { BarChart3, DollarSign, Link2, Type, Zap } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { PublicTopBar } from "@/features/shell/public-top-bar";
import { SiteFooter } from "@/features/shell/site-footer";
import { goToLogin } from "@/lib/auth";
import { savePendingUpload, type PendingUpload } from "@/lib/pending-upload";
import { FileDropZone } from "./file-drop-zone";

const startWith = (intent: PendingUpload) => {
  savePendingUpload(intent);
  goToLogin();
};

const FEATURES = [
  {
    icon: Zap,
    title: "Instant Paywalls",
    text: "Drop a file, paste a link or write a note and get a shareable paywall link in seconds.",
  },
  {
    icon: DollarSign,
    title: "Set Your Price",
    text: "Charge a fixed price from $1 to $1000+, or let fans pay what they want above your minimum.",
  },
  {
    icon: BarChart3,
    title: "Track Everything",
    text: "See views, conversions and earnings in real time, and get paid out every month.",
  },
];

export function LandingPage() {
  const [file, setFile] = useState<File | null>(null);
  const [link, setLink] = useState("");
  const [text, setText] = useState("");

  const onFile = (picked: File) => {
    setFile(picked);
    // Spec §4: picking a file stores its metadata and goes to sign-in at once.
    startWith({ kind: "file", uploadFile: { name: picked.name, size: picked.size, type: picked.type } });
  };
  const onLink = (e: FormEvent) => {
    e.preventDefault();
    if (link.trim()) startWith({ kind: "link", uploadLink: link.trim() });
  };
  const onText = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim()) startWith({ kind: "text", uploadText: text });
  };

  return (
    <div className="flex min-h-screen flex-col">
      <PublicTopBar />
      <main className="flex-1">
        <section className="relative overflow-hidden">
          <div className="pointer-events-none absolute inset-x-0 -top-40 h-96 bg-brand-gradient opacity-10 blur-3xl" />
          <div className="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-14 lg:grid-cols-2 lg:py-20">
            <div className="space-y-6 text-center lg:text-left">
              <span className="inline-flex items-center gap-2 rounded-full border bg-background px-3 py-1 text-xs font-medium text-muted-foreground">
                <span className="size-2 rounded-full bg-emerald-500" /> Buyers pay by card, no account needed
              </span>
              <h1 className="text-4xl font-extrabold tracking-tight sm:text-5xl lg:text-6xl">
                Drop it. Price it. <span className="text-brand-gradient">Get paid.</span>
              </h1>
              <p className="mx-auto max-w-xl text-lg text-muted-foreground lg:mx-0">
                Turn any file, link or text into a paywalled link you can share anywhere. You set the price, from $1 to
                $1000+, and keep 80% of every sale (100% on Pro).
              </p>
              <div className="flex flex-wrap justify-center gap-x-6 gap-y-2 text-sm text-muted-foreground lg:justify-start">
                <span>✓ Files up to 5 GB</span>
                <span>✓ Pay-what-you-want</span>
                <span>✓ Upsell funnels</span>
              </div>
            </div>
            <Card className="shadow-xl">
              <CardContent>
                <FileDropZone
                  selected={file}
                  onSelect={onFile}
                  onClear={() => setFile(null)}
                  onSubmit={() => file && onFile(file)}
                />
              </CardContent>
            </Card>
          </div>
        </section>

        <section className="mx-auto grid max-w-6xl gap-6 px-4 pb-12 md:grid-cols-2">
          <Card>
            <CardHeader>
              <CardTitle className="flex items-center gap-2">
                <Link2 className="size-5 text-primary" /> Paywall a Link
              </CardTitle>
              <CardDescription>Sell access to a private video, doc, community or any URL.</CardDescription>
            </CardHeader>
            <CardContent>
              <form onSubmit={onLink} className="flex flex-col gap-3 sm:flex-row">
                <Input
                  type="url"
                  placeholder="https://example.com/your-private-content"
                  value={link}
                  onChange={(e) => setLink(e.target.value)}
                  aria-label="Link to paywall"
                />
                <Button type="submit">Create Paywall</Button>
              </form>
            </CardContent>
          </Card>
          <Card>
            <CardHeader>
              <CardTitle className="flex items-center gap-2">
                <Type className="size-5 text-primary" /> Paywall Text Content
              </CardTitle>
              <CardDescription>Sell a secret, a guide, a code or any text.</CardDescription>
            </CardHeader>
            <CardContent>
              <form onSubmit={onText} className="flex flex-col gap-3">
                <Textarea
                  rows={3}
                  placeholder="Write the text buyers unlock…"
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                  aria-label="Text to paywall"
                  className="field-sizing-fixed"
                />
                <Button type="submit" className="self-end">
                  Create Paywall
                </Button>
              </form>
            </CardContent>
          </Card>
        </section>

        <section className="border-t bg-muted/40">
          <div className="mx-auto grid max-w-6xl gap-6 px-4 py-14 md:grid-cols-3">
            {FEATURES.map(({ icon: Icon, title, text }) => (
              <Card key={title} className="border-none shadow-none bg-transparent">
                <CardContent className="space-y-3">
                  <div className="flex size-11 items-center justify-center rounded-xl bg-brand-gradient text-white">
                    <Icon className="size-5" />
                  </div>
                  <h3 className="text-lg font-semibold">{title}</h3>
                  <p className="text-muted-foreground">{text}</p>
                </CardContent>
              </Card>
            ))}
          </div>
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}
