/**
 * Stackwright's resources and data sources. Resource types are dynamic providers whose
 * serialized form only requires `@stackwright/runtime`; data sources run in the program process.
 */
export * from "./deployment";
export * from "./environment-lock";
export * from "./snapshot";
export * from "./snapshot-restore";
export * from "./git-fetch";
export * from "./record-action";
export * from "./drift";
export * from "./data";
export { markerSeed } from "./identity";
