// GET /api/creator/sales/export: the signed-in creator's sales as CSV, gross, tax and net apart
// (worker/services/sales-csv.ts; docs/tax.md "What the creator sees").
import { Hono } from "hono";
import { requireUser, type AppEnv } from "../middleware/context";
import { doc } from "../openapi/describe";
import { salesCsv } from "../services/sales-csv";

export const salesExportRoutes = new Hono<AppEnv>().get(
  "/creator/sales/export",
  doc({
    tag: "Sales and earnings",
    summary: "Sales as CSV",
    description:
      "Newest first, one line per sale: gross (what the buyer paid), tax, net, the tax's type, rate and place, ApeWall's fee on the net, the creator's share, refunds.",
    access: "session",
    ok: { file: "text/csv: the sales" },
  }),
  requireUser,
  async (c) => {
    const csv = await salesCsv(c.var.db, c.var.userId);
    return new Response(csv, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="apewall-sales-${new Date().toISOString().slice(0, 10)}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
);
