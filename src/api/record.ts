import { z } from "zod";
import { Id } from "./common";

/**
 * The generic record server (`/api/v1`). The spec shows no bodies; this is the shape the emulator
 * defines and the client reads: a flat object with `ID`, `ClassName` and the record's fields.
 */
export const RecordDocument = z
  .object({
    ID: Id,
    ClassName: z.string(),
  })
  .catchall(z.unknown());
export type RecordDocument = z.infer<typeof RecordDocument>;
export type RecordDocumentInput = z.input<typeof RecordDocument>;

/** Answer of POST `/api/v1/<class>/<id>/<method>`: the method run and the record afterwards. */
export const RecordMethodResult = z.object({
  method: z.string(),
  result: z.string().nullable(),
  record: RecordDocument,
});
export type RecordMethodResult = z.infer<typeof RecordMethodResult>;
export type RecordMethodResultInput = z.input<typeof RecordMethodResult>;

/** A class or method name on the record server: an identifier, nothing that alters a path. */
export const RecordName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_\\]*$/, "expected an identifier");
