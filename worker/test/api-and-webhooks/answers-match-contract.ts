// A compile-time check, no test to run: every handler's JSON answer, as Hono infers it from the
// route chain (AppType), fits the answer shared/api.ts names for its route. A handler that answers a
// field the contract renamed or dropped fails `tsc -b` here, naming the route. The run-time side, that
// each real answer matches its schema with no extra field, is ./openapi-check.ts.
import type { ExtractSchema } from "hono/types";
import type { ClientErrorStatusCode, ServerErrorStatusCode } from "hono/utils/http-status";
import type { ApiAnswer, ApiRoute } from "../../../shared/api";
import type { AppType } from "../../app";

type Routes = ExtractSchema<AppType>;
/** The route's success answers in JSON (Hono keys its paths without the "/api" the app mounts it on). */
type Answered<R extends ApiRoute> = R extends `${infer M} /api${infer P}`
  ? P extends keyof Routes
    ? `$${Lowercase<M>}` extends keyof Routes[P]
      ? Exclude<
          Extract<Routes[P][`$${Lowercase<M>}`], { outputFormat: "json" }>,
          { status: ClientErrorStatusCode | ServerErrorStatusCode }
        > extends infer E
        ? [E] extends [never]
          ? "no JSON answer"
          : E extends { output: infer O }
            ? O
            : never
        : never
      : "no such method"
    : "no such path"
  : never;

type Drifted = { [R in ApiRoute]: [Answered<R>] extends [ApiAnswer<R>] ? never : R }[ApiRoute];
type Untyped = { [R in ApiRoute]: unknown extends Answered<R> ? R : 0 extends 1 & Answered<R> ? R : never }[ApiRoute];
type Assert<T extends true> = T;
export type HandlersAnswerTheirContract = Assert<[Drifted | Untyped] extends [never] ? true : Drifted | Untyped>;
