/**
 * The state backend as `observe` sees it: the layout, the checkpoint reader and the readers of
 * Stackwright's records, over a {@link StateReader}, which can list and read and nothing else.
 * The CLI opens the store (index.ts, the writing face) and hands it over.
 */
export * from "./keys";
export * from "./checkpoint";
export * from "./records";
export type { StateReader, StoredObject } from "./store";
