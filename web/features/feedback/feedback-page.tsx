import { useMutation } from "@tanstack/react-query";
import { CheckCircle2 } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES, feedbackSchema, type FeedbackInput } from "@shared/feedback";
import { HUMAN_CHECK_ACTIONS, HUMAN_CHECK_REFUSED } from "@shared/human-check";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { AppShell } from "@/features/shell/app-shell";
import { useHumanCheck } from "@/hooks/use-human-check";
import { toast } from "@/hooks/use-toast";
import { api } from "@/lib/api";
import { useAuth } from "@/lib/auth";

const TYPE_LABELS: Record<(typeof FEEDBACK_TYPES)[number], string> = {
  bug: "Bug report",
  feature: "Feature request",
  improvement: "Improvement",
  general: "General feedback",
};
const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

type Draft = { type: string; subject: string; message: string; email: string; priority: string };
const EMPTY: Draft = { type: "", subject: "", message: "", email: "", priority: "medium" };

export function FeedbackPage() {
  const { user } = useAuth();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [sent, setSent] = useState(false);
  useEffect(() => {
    if (user?.email) setDraft((d) => (d.email ? d : { ...d, email: user.email }));
  }, [user?.email]);
  const fe = useFieldErrors("feedback");
  const set = (k: keyof Draft) => (v: string) => {
    setDraft((d) => ({ ...d, [k]: v }));
    fe.clear(k, FORM);
  };

  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.feedback);
  const submit = useMutation({
    mutationFn: (input: FeedbackInput) => check.send((headers) => api("POST /api/feedback", { body: input, headers })),
    onSuccess: () => {
      setSent(true);
      setDraft({ ...EMPTY, email: user?.email ?? "" });
    },
    onError: (err) => {
      if (fe.fromServer(err, ["type", "subject", "message", "email", "priority"])) return;
      // A refused bot check says so under the form (the widget already has a fresh token for the next try).
      if (err.message === `403: ${HUMAN_CHECK_REFUSED}`) return fe.set(FORM, HUMAN_CHECK_REFUSED);
      toast({
        title: "Submission Failed",
        description: "There was an error submitting your feedback. Please try again.",
        variant: "destructive",
      });
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // The route's schema, each problem beside its field; the spec's toast still announces missing fields.
    const parsed = fe.check(feedbackSchema, draft, {
      place: (field, message) => [field === "type" && !draft.type ? ["type", "type is required"] : [field, message]],
    });
    if (!parsed) {
      if (!draft.type || !draft.subject.trim() || !draft.message.trim())
        toast({
          title: "Missing Information",
          description: "Please fill in all required fields.",
          variant: "destructive",
        });
      return;
    }
    submit.mutate(parsed);
  };

  return (
    <AppShell>
      <div className="mx-auto max-w-2xl px-4 py-12">
        <div className="mb-8 text-center">
          <h1 className="text-3xl font-bold tracking-tight">Send us feedback</h1>
          <p className="mt-2 text-muted-foreground">Found a bug or have an idea? We read every message.</p>
        </div>
        {sent ? (
          <Card>
            <CardContent className="flex flex-col items-center gap-3 py-8 text-center" role="status">
              <CheckCircle2 className="size-12 text-emerald-600" />
              <h2 className="text-xl font-semibold">Thank you for your feedback!</h2>
              <p className="text-muted-foreground">We've received your message and will look into it.</p>
              <Button variant="outline" onClick={() => setSent(false)}>
                Send more feedback
              </Button>
            </CardContent>
          </Card>
        ) : (
          <Card>
            <CardHeader>
              <CardTitle>Your feedback</CardTitle>
              <CardDescription>Fields marked * are required.</CardDescription>
            </CardHeader>
            <CardContent>
              <form onSubmit={onSubmit} className="space-y-5" noValidate>
                <div className="grid gap-4 sm:grid-cols-2">
                  <div className="space-y-2">
                    <Label htmlFor="fb-type">Type *</Label>
                    <Select value={draft.type} onValueChange={set("type")}>
                      <SelectTrigger id="fb-type" aria-label="Type" {...fe.field("type")}>
                        <SelectValue placeholder="Choose a type" />
                      </SelectTrigger>
                      <SelectContent>
                        {FEEDBACK_TYPES.map((t) => (
                          <SelectItem key={t} value={t}>
                            {TYPE_LABELS[t]}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                    <FieldError of={fe} name="type" />
                  </div>
                  <div className="space-y-2">
                    <Label htmlFor="fb-priority">Priority</Label>
                    <Select value={draft.priority} onValueChange={set("priority")}>
                      <SelectTrigger id="fb-priority" aria-label="Priority">
                        <SelectValue />
                      </SelectTrigger>
                      <SelectContent>
                        {FEEDBACK_PRIORITIES.map((p) => (
                          <SelectItem key={p} value={p}>
                            {capital(p)}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  </div>
                </div>
                <div className="space-y-2">
                  <Label htmlFor="fb-subject">Subject *</Label>
                  <Input
                    id="fb-subject"
                    value={draft.subject}
                    onChange={(e) => set("subject")(e.target.value)}
                    maxLength={200}
                    {...fe.field("subject")}
                  />
                  <FieldError of={fe} name="subject" />
                </div>
                <div className="space-y-2">
                  <Label htmlFor="fb-message">Message *</Label>
                  <Textarea
                    id="fb-message"
                    rows={6}
                    value={draft.message}
                    onChange={(e) => set("message")(e.target.value)}
                    maxLength={5000}
                    className="field-sizing-fixed"
                    {...fe.field("message")}
                  />
                  <FieldError of={fe} name="message" />
                </div>
                <div className="space-y-2">
                  <Label htmlFor="fb-email">Email</Label>
                  <Input
                    id="fb-email"
                    type="email"
                    value={draft.email}
                    onChange={(e) => set("email")(e.target.value)}
                    placeholder="So we can reply (optional)"
                    {...fe.field("email")}
                  />
                  <FieldError of={fe} name="email" />
                  <FieldError of={fe} name="priority" />
                  <FieldError of={fe} name={FORM} />
                </div>
                <div ref={check.mount} data-testid="human-check" />
                <Button type="submit" className="w-full" disabled={submit.isPending}>
                  {submit.isPending && <Spinner className="size-4 text-primary-foreground" />}
                  Submit Feedback
                </Button>
              </form>
            </CardContent>
          </Card>
        )}
      </div>
    </AppShell>
  );
}
