/**
 * The operations that must never run twice and leave no marker on the platform to find them by (a
 * snapshot restore overwrites an environment's data; a record method may publish): when Stackwright
 * cannot know whether one ran (its answer was lost, or the run that sent it was killed), the state
 * records it as done with an unknown outcome, and no later run repeats it by itself. The provider
 * (an answer lost) and the CLI (a create the engine left in flight) record it the same way, so the
 * rule lives here.
 */

/** The id recorded for an operation whose outcome is unknown. */
export const UNKNOWN_OUTCOME_ID = "unknown";

/** Outputs recorded (next to the inputs) for each never-repeated resource type, by type name. */
export const UNKNOWN_OUTCOME_OUTPUTS = {
  SnapshotRestore: { transfer_id: UNKNOWN_OUTCOME_ID, status: "unknown" },
  RecordAction: { result: "unknown" },
} as const satisfies Record<string, Record<string, string>>;

export type NeverRepeatedType = keyof typeof UNKNOWN_OUTCOME_OUTPUTS;

/** True for the type names (`SnapshotRestore`) whose create must never run twice. */
export function isNeverRepeated(typeName: string): typeName is NeverRepeatedType {
  return Object.hasOwn(UNKNOWN_OUTCOME_OUTPUTS, typeName);
}
