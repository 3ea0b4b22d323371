/**
 * The public entry point of `src/cli`: `main` (what `bin/stackwright.js` runs) and the engine
 * environment of this project (the toolchain on PATH, the local state backend) for tools that
 * drive the Pulumi CLI themselves, such as the benches; and the digests of an `up`'s inputs, which
 * the confirmed shortcut compares (the observe bench gives cloned stacks their own).
 */
export { main } from "./main";
export { engineEnv, pulumiCommand } from "../project/engine-env";
export { openEngineStack, openStack } from "./engine/workspace";
export type { EngineStack } from "./engine/run";
export { upInputDigests } from "../project/fingerprint";
