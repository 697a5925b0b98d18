// zod validation for every input, answering 400 with a message that names what is wrong.
import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { ApiError, describeZodError } from "./errors";

export const validate = <T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) =>
  zValidator(target, schema, (result) => {
    if (!result.success) throw new ApiError(400, describeZodError(result.error as never));
  });
