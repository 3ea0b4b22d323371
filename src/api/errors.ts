import { z } from "zod";

/**
 * One JSON:API error. `status` is a string since 2.0 and was a number in 1.0; parsed into a string.
 */
export const ApiErrorObject = z.object({
  status: z.union([z.string(), z.number().int()]).transform((v) => String(v)),
  title: z.string(),
  detail: z.string().optional(),
  code: z.string().optional(),
});
export type ApiErrorObject = z.infer<typeof ApiErrorObject>;

/** The error document `{errors: [{status, title}, ...]}`. */
export const ApiErrorDocument = z.object({
  errors: z.array(ApiErrorObject).min(1),
});
export type ApiErrorDocument = z.infer<typeof ApiErrorDocument>;
export type ApiErrorDocumentInput = z.input<typeof ApiErrorDocument>;
