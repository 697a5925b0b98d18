// The feedback inbox: newest first, filtered by type and priority.
import { Inbox } from "lucide-react";
import { useState } from "react";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "@shared/feedback";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useFeedbackInbox } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const selectClass = "h-9 rounded-md border border-input bg-background px-3 text-sm shadow-xs capitalize";

export function FeedbackInbox() {
  const [filter, setFilter] = useState({ type: "all", priority: "all" });
  const { data, isLoading, error } = useFeedbackInbox(filter);
  return (
    <Card>
      <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <CardTitle>Feedback</CardTitle>
          <CardDescription>What visitors and creators sent, newest first</CardDescription>
        </div>
        <div className="flex gap-2">
          <select
            aria-label="Feedback type"
            className={selectClass}
            value={filter.type}
            onChange={(e) => setFilter((f) => ({ ...f, type: e.target.value }))}
          >
            <option value="all">All types</option>
            {FEEDBACK_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <select
            aria-label="Feedback priority"
            className={selectClass}
            value={filter.priority}
            onChange={(e) => setFilter((f) => ({ ...f, priority: e.target.value }))}
          >
            <option value="all">All priorities</option>
            {FEEDBACK_PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="feedback" detail={error.message} />
        ) : !data?.length ? (
          <EmptyState icon={Inbox} title="No feedback" text="Nothing matches these filters." />
        ) : (
          <ul className="divide-y">
            {data.map((f) => (
              <li key={f.id} className="space-y-1 py-3">
                <div className="flex flex-wrap items-center gap-2">
                  <Badge variant="outline" className="capitalize">
                    {f.type}
                  </Badge>
                  <Badge
                    variant={f.priority === "urgent" || f.priority === "high" ? "destructive" : "secondary"}
                    className="capitalize"
                  >
                    {f.priority}
                  </Badge>
                  <span className="font-medium">{f.subject}</span>
                  <span className="ml-auto text-xs text-muted-foreground">
                    {new Date(f.createdAt).toLocaleString()}
                  </span>
                </div>
                <p className="whitespace-pre-wrap text-sm">{f.message}</p>
                {f.email && <p className="text-xs text-muted-foreground">{f.email}</p>}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
