/**
 * The wire contract of the Deployment Management API: zod schemas of every document, shared by the
 * client and the emulator, and the rules more than one layer needs (names, numeric ids, ref vs
 * ref_type, durations), shared by config, client, providers and emulator. Parsing schemas
 * normalise ids to strings once.
 */
export * from "./common";
export * from "./read-view";
export * from "./names";
export * from "./commit-sha";
export * from "./url-rule";
export * from "./ids";
export * from "./duration";
export * from "./errors";
export * from "./meta";
export * from "./stack";
export * from "./environment";
export * from "./module";
export * from "./fetch";
export * from "./deployment";
export * from "./snapshot";
export * from "./transfer";
export * from "./lock";
export * from "./team-member";
export * from "./domain";
export * from "./configuration";
export * from "./manifest-release";
export * from "./whitelist";
export * from "./record";
export * from "./data-reads";
export * from "./never-repeated";
export * from "./live-build";
export * from "./resources";
export * from "./notify";
export * from "./verification";
export * from "./verification-words";
export * from "./verify";
