import { z } from "zod";
import { DateTimeText } from "./common";

/** Endpoint 1, GET /svc/meta: who the caller is and the server's clock. */
export const MetaDocument = z.object({
  meta: z.object({
    whoami: z.string(),
    now: DateTimeText,
  }),
});
export type MetaDocument = z.infer<typeof MetaDocument>;
export type MetaDocumentInput = z.input<typeof MetaDocument>;
