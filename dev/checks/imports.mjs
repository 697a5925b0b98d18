// The import rules npm test checks: no import cycle in worker/, shared/, web/ or dev/ (type-only
// imports count too), shared/ imports neither side, and web/ imports worker/ only for types.
// `node dev/checks/imports.mjs` prints each broken rule and exits 1. Takes ~0.2 s on this tree.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const dirs = ["worker", "shared", "web", "dev"];
const exts = [".ts", ".tsx", ".mjs", ".js"];
const skip = /node_modules|\.gen\.ts$|\.d\.ts$/;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (skip.test(p)) continue;
    if (statSync(p).isDirectory()) walk(p, out);
    else if (exts.some((e) => p.endsWith(e))) out.push(p);
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const c of [base, ...exts.map((e) => base + e), ...exts.map((e) => join(base, `index${e}`))])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

const importRe =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const graph = new Map();
const problems = [];
for (const file of dirs.flatMap((d) => walk(join(root, d)))) {
  const src = readFileSync(file, "utf8");
  const edges = [];
  for (const m of src.matchAll(importRe)) {
    const spec = m[3] ?? m[4];
    const target = resolveImport(file, spec);
    if (!target) continue;
    edges.push(target);
    const [from, to] = [relative(root, file), relative(root, target)];
    if (from.startsWith("shared/") && /^(worker|web)\//.test(to)) problems.push(`shared imports ${to}: ${from}`);
    if (from.startsWith("web/") && to.startsWith("worker/") && !m[2])
      problems.push(`web imports worker code ${to}: ${from}`);
  }
  graph.set(file, edges);
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
const stack = [];
const info = new Map();
function strong(v) {
  info.set(v, { index, low: index, on: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!info.has(w)) {
      strong(w);
      info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
    } else if (info.get(w).on) info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
  }
  if (info.get(v).low === info.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      info.get(w).on = false;
      component.push(relative(root, w));
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) problems.push(`cycle: ${component.join(" ↔ ")}`);
  }
}
for (const v of graph.keys()) if (!info.has(v)) strong(v);

for (const p of problems) console.error(p);
console.log(`imports: ${graph.size} files, ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
