// Whether an element has come near the viewport yet (and stays "seen" once it has): the library
// opens a purchase only when its card is about to be seen, not all of them at once (docs/library.md).
import { useEffect, useRef, useState } from "react";

/** How far below the fold a card starts loading, so it is usually ready when scrolled to. */
const AHEAD = "100px 0px";

export function useSeen<T extends Element>(): [boolean, React.RefObject<T | null>] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === "undefined");
  useEffect(() => {
    const el = ref.current;
    if (seen || !el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          observer.disconnect();
        }
      },
      { rootMargin: AHEAD },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [seen]);
  return [seen, ref];
}
