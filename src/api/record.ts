import { z } from "zod";
import { readView } from "./read-view";
import { Id } from "./common";

/**
 * The generic record server (`/api/v1`). The spec shows no bodies; this is the shape the emulator
 * defines and the client reads: a flat object with `ID`, `ClassName` and the record's fields.
 */
export const DocumentedRecordDocument = z
  .object({
    ID: Id,
    ClassName: z.string(),
  })
  .catchall(z.unknown());
export type RecordDocumentInput = z.input<typeof DocumentedRecordDocument>;
/** A record as a client reads it. */
export const RecordDocument = readView(DocumentedRecordDocument);
export type RecordDocument = z.infer<typeof RecordDocument>;

/** Answer of POST `/api/v1/<class>/<id>/<method>`: the method run and the record afterwards. */
export const DocumentedRecordMethodResult = z.object({
  method: z.string(),
  result: z.string().nullable(),
  record: DocumentedRecordDocument,
});
export type RecordMethodResultInput = z.input<typeof DocumentedRecordMethodResult>;
/** A method call's answer as a client reads it. */
export const RecordMethodResult = readView(DocumentedRecordMethodResult);
export type RecordMethodResult = z.infer<typeof RecordMethodResult>;

/** A class or method name on the record server: an identifier, nothing that alters a path. */
export const RecordName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_\\]*$/, "expected an identifier");
