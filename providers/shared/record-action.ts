/** The contract of `RecordAction`: a method run on a record of the generic record server. */
import { z } from "zod";
import { RecordName } from "../../src/api";
import { defineContract } from "./contract";

export const recordActionContract = defineContract({
  type: "RecordAction",
  kind: "recordAction",
  inputs: z.strictObject({
    /** The model class, e.g. `Page`. */
    class_name: RecordName,
    /** The record's id. */
    record_id: z
      .union([z.string().regex(/^[A-Za-z0-9_-]+$/, "expected a record id"), z.number().int()])
      .transform(String),
    /** The method, e.g. `publish`. */
    method: RecordName,
    trigger: z.string().optional(),
  }),
  /** What the method returned. */
  outputs: z.object({ result: z.string() }),
  replaceKeys: ["class_name", "record_id", "method", "trigger"],
});
