// A file name short enough for a phone: shortened in the middle, so its start, its end and its
// extension stay ("Portra-400-…-vol1.zip"). Wherever it is shown, the full name is its title.

/** The extension kept whole: a dot and 1 to 8 letters or digits at the end (".zip", ".tar.gz" keeps ".gz"). */
const EXTENSION = /\.[A-Za-z0-9]{1,8}$/;
/** Where a cut looks natural: just after (head) or just before (tail) one of these. */
const SEPARATOR = /[-_ .]/;

/** `name` if it has at most `max` characters; otherwise its start, "…", and its end with the extension. */
export function middleEllipsis(name: string, max = 28): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const extension = Array.from(name.match(EXTENSION)?.[0] ?? "");
  const stem = chars.slice(0, chars.length - extension.length);
  // What the stem may keep besides the "…"; at least a few characters on each side.
  const budget = Math.max(4, max - extension.length - 1);
  const tailLength = Math.max(2, Math.floor(budget / 3));
  let head = stem.slice(0, budget - tailLength);
  let tail = stem.slice(stem.length - tailLength);
  // Cut at a separator when one is in the outer half of what is kept.
  const headCut = lastIndexWhere(head, (c) => SEPARATOR.test(c));
  if (headCut >= Math.floor(head.length / 2)) head = head.slice(0, headCut + 1);
  const tailCut = tail.findIndex((c) => SEPARATOR.test(c));
  if (tailCut >= 0 && tailCut < Math.ceil(tail.length / 2)) tail = tail.slice(tailCut);
  return `${head.join("")}…${tail.join("")}${extension.join("")}`;
}

function lastIndexWhere<T>(items: T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}
