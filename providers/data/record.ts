/** `getRecord`: one record of the generic record server (`GET /api/v1/{class}/{id}`). */
import * as pulumi from "@pulumi/pulumi";
import type { RecordDocument } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";

/** Arguments of {@link getRecord}. */
export interface RecordArgs {
  class_name: string;
  record_id: string | number;
}

/** The record (memoised per run and arguments). */
export function fetchRecord(args: RecordArgs): Promise<RecordDocument> {
  const key = { class_name: args.class_name, record_id: String(args.record_id) };
  return memoised("record", key, (c) => DATA_READERS.record.read(c, key));
}

/** {@link fetchRecord} as an Output. */
export function getRecord(args: RecordArgs): pulumi.Output<pulumi.Unwrap<RecordDocument>> {
  return pulumi.output(fetchRecord(args));
}
