// Stripe's request encoding: application/x-www-form-urlencoded with bracketed nesting
// (metadata[key]=v, expand[]=a, items[0][price]=p). Parsed into plain objects and arrays.
export function parseForm(body) {
  const out = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const path = [];
    const head = rawKey.match(/^[^[]+/);
    if (!head) continue;
    path.push(head[0]);
    for (const m of rawKey.matchAll(/\[([^\]]*)\]/g)) path.push(m[1]);
    let node = out;
    for (let i = 0; i < path.length; i++) {
      const key = path[i];
      const last = i === path.length - 1;
      if (key === "") {
        // "expand[]" appends.
        if (!Array.isArray(node)) break;
        if (last) node.push(value);
        else {
          const child = {};
          node.push(child);
          node = child;
        }
        continue;
      }
      if (last) {
        node[key] = value;
      } else {
        const nextIsArray = path[i + 1] === "" || /^\d+$/.test(path[i + 1]);
        node[key] ??= nextIsArray ? [] : {};
        node = node[key];
      }
    }
  }
  return out;
}
