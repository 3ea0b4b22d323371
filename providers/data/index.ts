/** Data sources: plain `get*` functions (Outputs) and their `fetch*` promises, memoised per run. */
export { readsSoFar, reportReadsAtExit, resetDataCache, writeReadsReport } from "./cache";
export { fetchWhoAmI, getWhoAmI } from "./whoami";
export { fetchStacks, getStacks, fetchStack, getStack, type StackArgs } from "./stacks";
export { fetchTeam, getTeam } from "./team";
export { fetchEnvironment, getEnvironment, type EnvironmentArgs } from "./environment";
export { fetchModules, getModules, type ModulesArgs } from "./modules";
export { fetchDomains, getDomains } from "./domains";
export { fetchConfiguration, getConfiguration } from "./configuration";
export { fetchWhitelist, getWhitelist } from "./whitelist";
export { fetchManifestReleases, getManifestReleases } from "./manifest-releases";
export { fetchDeployments, getDeployments, type DeploymentsArgs } from "./deployments";
export { fetchSnapshots, getSnapshots } from "./snapshots";
export { fetchRecord, getRecord, type RecordArgs } from "./record";
