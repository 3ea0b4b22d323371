/**
 * The data-source reads of one program run, as the program reports them to the CLI (the
 * fingerprint shortcut, docs/state.md "Confirmed without the engine"): each distinct call once,
 * by name, canonical arguments and a digest of the answer. No answer is kept, only its digest,
 * so the report and the record made from it carry no configuration value or secret.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** Environment variable naming a directory: the program writes `<stack>.json` there at exit. */
export const DATA_READS_DIR_ENV = "STACKWRIGHT_READS_DIR";

/** JSON with object keys sorted and `undefined` dropped: the same value gives the same text. */
export function canonicalJson(value: unknown): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, x]) => [k, canon(x)]),
      );
    }
    return v;
  };
  return JSON.stringify(canon(value)) ?? "null";
}

/** sha256 (hex) of the canonical JSON of an answer. */
export function readDigest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** One distinct data-source call and the digest of its answer. */
export const DataRead = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  digest: Hex64,
});
export type DataRead = z.infer<typeof DataRead>;

/** What a program run read, for one Pulumi stack. */
export const DataReadsReport = z.strictObject({
  stack: z.string().min(1),
  reads: z.array(DataRead),
});
export type DataReadsReport = z.infer<typeof DataReadsReport>;

/** The report's file name in the directory of {@link DATA_READS_DIR_ENV}. */
export function dataReadsFileName(stack: string): string {
  return `${encodeURIComponent(stack)}.json`;
}
