import { z } from "zod";
import { readView } from "./read-view";
import { DateTimeText } from "./common";

/** Endpoint 1, GET /svc/meta: who the caller is and the server's clock. */
export const DocumentedMetaDocument = z.object({
  meta: z.object({
    whoami: z.string(),
    now: DateTimeText,
  }),
});
export type MetaDocumentInput = z.input<typeof DocumentedMetaDocument>;
/** Endpoint 1 as a client reads it. */
export const MetaDocument = readView(DocumentedMetaDocument);
export type MetaDocument = z.infer<typeof MetaDocument>;
