// The dashboard's 'Content & Uploads' tab: search, filters, the six sorts, and the creator's items.
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { FilterX, SearchX, SlidersHorizontal, Upload } from "lucide-react";
import { useMemo, useState } from "react";
import { CATEGORIES, CATEGORY_LABELS, SORT_OPTIONS } from "@shared/content";
import type { CreatorContent } from "@shared/content";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { useAnalytics } from "@/features/analytics/queries";
import { ContentRow } from "./content-row";
import { DeleteContentDialog } from "./delete-content-dialog";
import { LoadFailed } from "@/components/load-failed";
import { apiQuery } from "@/lib/api";

type Sort = (typeof SORT_OPTIONS)[number];
const SORT_LABELS: Record<Sort, string> = {
  newest: "Newest first",
  oldest: "Oldest first",
  "price-high": "Price: high to low",
  "price-low": "Price: low to high",
  unlocks: "Most unlocks",
  earnings: "Most earnings",
};
const COMPARE: Record<Sort, (a: CreatorContent, b: CreatorContent) => number> = {
  newest: (a, b) => b.createdAt.localeCompare(a.createdAt),
  oldest: (a, b) => a.createdAt.localeCompare(b.createdAt),
  "price-high": (a, b) => b.price - a.price,
  "price-low": (a, b) => a.price - b.price,
  unlocks: (a, b) => b.unlockCount - a.unlockCount,
  earnings: (a, b) => b.totalEarnings - a.totalEarnings,
};

export function ContentList() {
  const { data, isLoading, error, refetch } = useQuery(apiQuery("GET /api/content"));
  // Each row's funnel over the last 30 days (the same call as the analytics panel's default range).
  const analytics = useAnalytics(30);
  const funnels = new Map((analytics.data?.items ?? []).map((i) => [i.contentId, i]));
  useUnauthorizedRedirect(error);
  const [search, setSearch] = useState("");
  const [showFilters, setShowFilters] = useState(false);
  const [sort, setSort] = useState<Sort>("newest");
  const [category, setCategory] = useState("all");
  const [toDelete, setToDelete] = useState<CreatorContent | null>(null);

  const items = data ?? [];
  const visible = useMemo(() => {
    const q = search.trim().toLowerCase();
    return items
      .filter((i) => category === "all" || i.category === category)
      .filter((i) => !q || i.title.toLowerCase().includes(q) || i.description.toLowerCase().includes(q))
      .sort(COMPARE[sort]);
  }, [items, search, category, sort]);
  const filtered = search.trim() !== "" || category !== "all" || sort !== "newest";
  const clearAll = () => {
    setSearch("");
    setCategory("all");
    setSort("newest");
  };

  if (isLoading) return <SectionSpinner />;
  if (error) {
    return (
      <Card>
        <CardContent>
          <LoadFailed what="your content" detail={error.message} onRetry={refetch} className="py-12" />
        </CardContent>
      </Card>
    );
  }
  if (items.length === 0) {
    return (
      <EmptyState
        icon={Upload}
        title="No content yet"
        text="Upload a file, paywall a link or a text, and share its link to start selling."
        action={
          <Button asChild>
            <Link to="/upload">Upload your first file</Link>
          </Button>
        }
      />
    );
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <Input
          placeholder="Search your content…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          aria-label="Search content"
          className="bg-background sm:max-w-sm"
        />
        <div className="flex gap-2">
          <Button
            variant={showFilters ? "secondary" : "outline"}
            onClick={() => setShowFilters((s) => !s)}
            aria-expanded={showFilters}
          >
            <SlidersHorizontal /> Filters
          </Button>
          {filtered && (
            <Button variant="ghost" onClick={clearAll}>
              <FilterX /> Clear all filters
            </Button>
          )}
        </div>
      </div>
      {showFilters && (
        <div className="grid gap-3 rounded-xl border bg-background p-4 sm:grid-cols-2">
          <Select value={sort} onValueChange={(v) => setSort(v as Sort)}>
            <SelectTrigger aria-label="Sort">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {SORT_OPTIONS.map((s) => (
                <SelectItem key={s} value={s}>
                  {SORT_LABELS[s]}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
          <Select value={category} onValueChange={setCategory}>
            <SelectTrigger aria-label="Category filter">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value="all">All categories</SelectItem>
              {CATEGORIES.map((c) => (
                <SelectItem key={c} value={c}>
                  {CATEGORY_LABELS[c]}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
      )}
      <p className="text-sm text-muted-foreground" data-testid="content-count">
        Showing {visible.length} of {items.length} {items.length === 1 ? "item" : "items"}
      </p>
      {visible.length === 0 ? (
        <Card>
          <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
            <SearchX className="size-10 text-muted-foreground" />
            <h3 className="font-semibold">No content matches your filters</h3>
            <Button variant="outline" onClick={clearAll}>
              Clear all filters
            </Button>
          </CardContent>
        </Card>
      ) : (
        <Card className="py-0">
          <ul className="divide-y">
            {visible.map((item) => (
              <ContentRow key={item.id} item={item} onDelete={() => setToDelete(item)} funnel={funnels.get(item.id)} />
            ))}
          </ul>
        </Card>
      )}
      <DeleteContentDialog item={toDelete} onClose={() => setToDelete(null)} />
    </div>
  );
}
