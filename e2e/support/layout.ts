// What the phone sweep (e2e/security/phone.test.ts) measures in a page: sideways overflow, money that
// is cut, text that runs into its neighbour, a name cut at the right edge, a label covered by another
// element. Each function runs inside the page (page.evaluate), so it uses nothing from outside it.

export type Problem = { overflow: number; wide: string[]; cutMoney: string[]; overlaps: string[] };

/** Runs in the page: sideways overflow (with the widest offenders) and money that is cut. */
export function layoutProblems(): Problem {
  // From the top, where the sticky header sits in the flow (a tab's click may have scrolled).
  window.scrollTo(0, 0);
  const W = window.innerWidth;
  const MONEY = /\$\s?[\d,]+(\.\d{2})?/;
  const describe = (el: Element) => {
    const cls =
      typeof el.className === "string" && el.className
        ? `.${el.className.trim().split(/\s+/).slice(0, 6).join(".")}`
        : "";
    const t = (el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 50);
    return `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${cls}> right=${Math.round(el.getBoundingClientRect().right)} "${t}"`;
  };
  const visible = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== "hidden" && s.display !== "none";
  };
  const clips = (el: Element) => {
    const s = getComputedStyle(el);
    return s.overflowX !== "visible";
  };
  /**
   * Inside a box that clips or scrolls (its content cannot widen the page). An absolutely positioned
   * box (an sr-only label, say) escapes every such box below its containing block: only that block
   * and its ancestors can hold it.
   */
  const contained = (el: Element) => {
    let holder: Element | null = null;
    for (let node: Element | null = el; node && node !== document.body; node = node.parentElement) {
      if (node !== el && (!holder || node === holder) && clips(node) && node.getBoundingClientRect().right <= W + 0.5)
        return true;
      if (node === holder) holder = null;
      const position = getComputedStyle(node).position;
      if (position === "fixed") return false;
      if (position === "absolute" && !holder) holder = (node as HTMLElement).offsetParent ?? document.body;
    }
    return false;
  };
  const all = [...document.body.querySelectorAll("*")].filter(visible);
  const wideEls = all
    .filter((el) => el.getBoundingClientRect().right > W + 0.5 && !contained(el))
    .sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right)
    // The innermost offenders say the most: drop an element whose offending child is listed.
    .filter(
      (el, _, list) =>
        !list.some(
          (o) =>
            o !== el && el.contains(o) && o.getBoundingClientRect().right >= el.getBoundingClientRect().right - 0.5,
        ),
    )
    .slice(0, 6)
    .map(describe);

  const cutMoney: string[] = [];
  for (const el of all) {
    const own = [...el.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent ?? "")
      .join("");
    if (!MONEY.test(own) && !/\$[\d,.\s]*…/.test(own)) continue;
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (/\$[\d,.\s]*…/.test(own)) cutMoney.push(`${describe(el)}: money ends in an ellipsis`);
    else if (el.scrollWidth > el.clientWidth + 1 && (s.overflowX !== "visible" || s.textOverflow === "ellipsis"))
      cutMoney.push(`${describe(el)}: truncated (${el.scrollWidth} > ${el.clientWidth})`);
    else if ((r.right > W + 0.5 || r.left < -0.5) && !contained(el))
      cutMoney.push(`${describe(el)}: outside the screen`);
    else {
      // A table that scrolls inside its own box is fine (what is reached by scrolling is that box);
      // a box that hides what does not fit is not.
      let reach = { left: r.left, right: r.right };
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const as = getComputedStyle(a);
        const ar = a.getBoundingClientRect();
        if (as.overflowX === "auto" || as.overflowX === "scroll")
          reach = { left: Math.max(reach.left, ar.left), right: Math.min(reach.right, ar.right) };
        if (as.overflowX !== "hidden" && as.overflowX !== "clip") continue;
        if (reach.right > ar.right + 0.5 || reach.left < ar.left - 0.5) {
          cutMoney.push(`${describe(el)}: clipped by ${describe(a)}`);
          break;
        }
      }
    }
  }

  // Text that runs under its neighbour (the landing header's logo under 'Feedback'): the painted text
  // of links, buttons and headings, as a Range measures it, must not cross another's.
  const labelled = all.filter(
    (el) => el.matches("a, button, h1, h2, h3") && !el.closest(".sr-only") && (el.textContent ?? "").trim(),
  );
  // The painted text: each text node's extent, less what a box that clips it (an ellipsis) hides.
  const paintedText = (el: Element) => {
    const t = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!(n.textContent ?? "").trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      let { left, right } = r;
      for (let a = n.parentElement; a; a = a.parentElement) {
        if (clips(a)) {
          const ar = a.getBoundingClientRect();
          left = Math.max(left, ar.left);
          right = Math.min(right, ar.right);
        }
        if (a === el) break;
      }
      if (right <= left) continue;
      Object.assign(t, {
        left: Math.min(t.left, left),
        right: Math.max(t.right, right),
        top: Math.min(t.top, r.top),
        bottom: Math.max(t.bottom, r.bottom),
      });
    }
    return t;
  };
  const extents = labelled.map((el) => {
    const box = el.getBoundingClientRect();
    const text = paintedText(el);
    return {
      el,
      left: Math.min(box.left, text.left),
      right: Math.max(box.right, text.right),
      top: Math.max(box.top, text.top),
      bottom: Math.min(box.bottom, text.bottom),
    };
  });
  const overlaps: string[] = [];
  for (let i = 0; i < extents.length; i++) {
    for (let j = i + 1; j < extents.length; j++) {
      const a = extents[i];
      const b = extents[j];
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (x > 1 && y > 1) overlaps.push(`${describe(a.el)} runs into ${describe(b.el)}`);
    }
  }
  return { overflow: document.documentElement.scrollWidth - W, wide: wideEls, cutMoney, overlaps };
}

/**
 * Where a long name (a file's, say) shows, it is whole or shortened in the middle: each element
 * whose own text starts it also ends it, and nothing of it is past the right edge or hidden by its box.
 */
export function cutNames([start, end]: [string, string]): string[] {
  window.scrollTo(0, 0);
  const found: string[] = [];
  for (const el of document.body.querySelectorAll("*")) {
    const own = [...el.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent ?? "")
      .join("");
    if (!own.includes(start)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const s = getComputedStyle(el);
    const what = `<${el.tagName.toLowerCase()}> "${own.trim().slice(0, 60)}"`;
    if (!own.includes(end)) found.push(`${what} does not end with "${end}"`);
    if (r.right > innerWidth + 0.5) found.push(`${what} runs past the right edge (right=${Math.round(r.right)})`);
    if (el.scrollWidth > el.clientWidth + 1 && (s.overflowX !== "visible" || s.textOverflow === "ellipsis"))
      found.push(`${what} is cut by its box (${el.scrollWidth} > ${el.clientWidth})`);
  }
  return found;
}

/** The element with `testId` is whole and on top: nothing covers its text's left end, middle or right end. */
export function coveredText(testId: string): string[] {
  const el = document.querySelector(`[data-testid="${testId}"]`);
  if (!el) return [`no [data-testid="${testId}"]`];
  el.scrollIntoView({ block: "center", inline: "nearest" });
  const range = document.createRange();
  range.selectNodeContents(el);
  const t = range.getBoundingClientRect();
  const found: string[] = [];
  if (el.scrollWidth > el.clientWidth + 1) found.push(`${testId} is cut (${el.scrollWidth} > ${el.clientWidth})`);
  for (const x of [t.left + 2, (t.left + t.right) / 2, t.right - 2]) {
    const hit = document.elementFromPoint(x, (t.top + t.bottom) / 2);
    if (!hit || !(el === hit || el.contains(hit)))
      found.push(
        `${testId} is covered at x=${Math.round(x)} by <${hit?.tagName.toLowerCase()}> "${(hit?.textContent ?? "").trim().slice(0, 40)}"`,
      );
  }
  return found;
}
