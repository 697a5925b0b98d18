// The dashboard's analytics chart (shadcn chart on recharts). Loaded lazily: recharts never reaches
// the paywall's bundle or the dashboard's first paint.
import { Bar, CartesianGrid, ComposedChart, Line, XAxis, YAxis } from "recharts";
import type { AnalyticsDay } from "@shared/analytics";
import {
  ChartContainer,
  ChartLegend,
  ChartLegendContent,
  ChartTooltip,
  ChartTooltipContent,
  type ChartConfig,
} from "@/components/ui/chart";

const config = {
  views: { label: "Views", color: "#a78bfa" },
  checkouts: { label: "Checkouts started", color: "#38bdf8" },
  sales: { label: "Sales", color: "#10b981" },
} satisfies ChartConfig;

const short = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

export default function AnalyticsChart({ days }: { days: AnalyticsDay[] }) {
  return (
    <ChartContainer config={config} className="h-64 w-full" data-testid="analytics-chart">
      <ComposedChart data={days} margin={{ left: 0, right: 8, top: 8 }}>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="date" tickLine={false} axisLine={false} tickMargin={8} minTickGap={24} tickFormatter={short} />
        <YAxis allowDecimals={false} tickLine={false} axisLine={false} width={32} />
        <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => short(String(l))} />} />
        <ChartLegend content={<ChartLegendContent />} />
        <Bar dataKey="views" fill="var(--color-views)" radius={3} />
        <Line dataKey="checkouts" stroke="var(--color-checkouts)" strokeWidth={2} dot={{ r: 3 }} type="monotone" />
        <Line dataKey="sales" stroke="var(--color-sales)" strokeWidth={2} dot={{ r: 3 }} type="monotone" />
      </ComposedChart>
    </ChartContainer>
  );
}
