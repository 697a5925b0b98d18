// One error shape for every failing call: a status and `{ message }`, which the SPA turns into
// "{status}: {message}" (spec §8).
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";

export class ApiError extends HTTPException {
  constructor(status: ContentfulStatusCode, message: string) {
    super(status, { message });
  }
}

export const unauthorized = () => new ApiError(401, "Unauthorized");
export const forbidden = () => new ApiError(403, "Forbidden");
export const notFound = (what = "Not found") => new ApiError(404, what);

/** "field: problem; other: problem" — names what is wrong without echoing the input. */
export function describeZodError(error: ZodError): string {
  return describeIssues(error.issues);
}

/** `field.sub: problem; other: problem`, from zod's issues or any Standard Schema's. */
export function describeIssues(
  issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[],
): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
