import { z } from "zod";

/**
 * The one rule for numeric platform ids (deployments, snapshots, transfers, fetches) given by a
 * user or a caller: a positive whole number, as a number or as digits without a leading zero, at
 * most 15 digits (every such id is a safe integer). Always a string after parsing. The config
 * (`adopt`, a restore's snapshot id), the client (ids in paths), the providers and the emulator
 * (path parameters) share it. Ids the server sends are parsed by the looser `Id` of `common.ts`.
 */
export const NUMERIC_ID_MESSAGE = "must be a positive whole number (a platform id)";

/** Digits of a numeric id: no sign, no leading zero, 1 to 15 digits. */
export const NUMERIC_ID_PATTERN = "^[1-9]\\d{0,14}$";
const numericIdText = new RegExp(NUMERIC_ID_PATTERN);

/** The largest numeric id (15 digits). */
export const NUMERIC_ID_MAX = 999_999_999_999_999;

/** A numeric id as text or number; the canonical digit string after parsing. */
export const NumericId = z
  .union(
    [
      // Each branch carries the message too: zod reports the branch whose type matched.
      z.number().int(NUMERIC_ID_MESSAGE).positive(NUMERIC_ID_MESSAGE).max(NUMERIC_ID_MAX, NUMERIC_ID_MESSAGE),
      z.string().regex(numericIdText, NUMERIC_ID_MESSAGE),
    ],
    { error: NUMERIC_ID_MESSAGE },
  )
  .transform((value) => String(value));
export type NumericId = z.output<typeof NumericId>;

/** True when `text` is the digit string of a numeric id. */
export function isNumericIdText(text: string): boolean {
  return numericIdText.test(text);
}
