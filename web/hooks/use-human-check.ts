// A form's bot check in the SPA (web/lib/human-check.ts): `<div ref={check.mount} />` where the widget
// may ask for a click, and `check.send((headers) => api(…, { headers }))` for the request it protects
// (once more with a fresh token if the server refused the first).
import { useState } from "react";
import type { HumanCheckAction } from "@shared/human-check";
import { createHumanCheck, type HumanCheck } from "@/lib/human-check";

export function useHumanCheck(action: HumanCheckAction): HumanCheck {
  const [check] = useState(() => createHumanCheck(action));
  return check;
}
