/** `getRecord`: one record of the generic record server (`GET /api/v1/{class}/{id}`). */
import * as pulumi from "@pulumi/pulumi";
import type { RecordDocument } from "../../src/api";
import { memoised } from "./cache";

/** Arguments of {@link getRecord}. */
export interface RecordArgs {
  class_name: string;
  record_id: string | number;
}

/** The record (memoised per run and arguments). */
export function fetchRecord(args: RecordArgs): Promise<RecordDocument> {
  return memoised("record", { class_name: args.class_name, record_id: String(args.record_id) }, (c) =>
    c.records.get(args.class_name, args.record_id),
  );
}

/** {@link fetchRecord} as an Output. */
export function getRecord(args: RecordArgs): pulumi.Output<pulumi.Unwrap<RecordDocument>> {
  return pulumi.output(fetchRecord(args));
}
