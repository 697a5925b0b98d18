// Checks the stand-in's answers against required-properties.json: every property Stripe's published
// schema says an object always carries, at the top and in its nested objects. Used by the worker
// and contract tests.

/**
 * The required properties that `value` (and every Stripe object inside it, at any depth) lacks, as
 * `object.path.property`; `seen` collects the kinds of object checked.
 */
export function missingRequired(value, required, seen = new Set()) {
  const out = [];
  const visit = (v) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    const kind = typeof v.object === "string" ? v.object : undefined;
    if (kind && required.objects[kind]) {
      seen.add(kind);
      for (const p of required.objects[kind]) if (!(p in v)) out.push(`${kind}.${p}`);
      for (const [path, props] of Object.entries(required.nested?.[kind] ?? {})) {
        for (const node of at(v, path)) for (const p of props) if (!(p in node)) out.push(`${kind}.${path}.${p}`);
      }
    }
    Object.values(v).forEach(visit);
  };
  visit(value);
  return out;
}

/** The objects at a dotted path (`a.b[].c`); null and absent ones (optional, or empty) are skipped. */
function at(root, path) {
  let nodes = [root];
  for (const part of path.split(".")) {
    const many = part.endsWith("[]");
    const key = many ? part.slice(0, -2) : part;
    nodes = nodes.flatMap((n) => {
      const child = n && typeof n === "object" ? n[key] : undefined;
      if (child === null || child === undefined) return [];
      return many ? (Array.isArray(child) ? child : []) : [child];
    });
  }
  return nodes.filter((n) => n && typeof n === "object" && !Array.isArray(n));
}
