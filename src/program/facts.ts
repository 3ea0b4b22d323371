/**
 * Reads the facts the desired state asks for (its `outputs` and what its `checks` compare),
 * through the memoised data sources: each distinct read is one request per run, shared with the
 * drift check, and nothing is read that no output or check needs.
 *
 * Always read, whatever the YAML says: nothing more than before. The environment document is
 * read for every environment that declares a deployment (the drift check needs its live sha),
 * so facts built from it (deployment sha, url, framework) cost no request there.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  ENVIRONMENT_FACTS,
  FACT_READS,
  type EnvironmentConfig,
  type EnvironmentFact,
  type EnvironmentFacts,
  type FactRead,
  type StackConfig,
  type StackFact,
  type StackFacts,
  configurationFact,
  domainsFact,
  factsForChecks,
  liveDeploymentFact,
  modulesFact,
  newestManifestRelease,
  stackFactsForChecks,
  whitelistFact,
} from "../config";
import {
  fetchConfiguration,
  fetchDeployments,
  fetchDomains,
  fetchEnvironment,
  fetchManifestReleases,
  fetchModules,
  fetchWhitelist,
} from "../../providers";

/** The facts an environment needs: its outputs and its checks', in a stable order. */
export function environmentFactsNeeded(config: EnvironmentConfig): EnvironmentFact[] {
  const wanted = new Set<EnvironmentFact>([...config.outputs, ...factsForChecks(config.checks)]);
  return ENVIRONMENT_FACTS.filter((fact) => wanted.has(fact));
}

/** The facts a stack needs for its own outputs and checks. */
export function stackFactsNeeded(stack: StackConfig): StackFact[] {
  return [...new Set<StackFact>([...stack.outputs, ...stackFactsForChecks(stack.checks)])];
}

/** The API reads behind a set of facts, each once. */
export function readsFor(facts: readonly (EnvironmentFact | StackFact)[]): FactRead[] {
  return [...new Set(facts.flatMap((fact) => FACT_READS[fact]))];
}

/**
 * The facts of one environment, reading only what `facts` need. Configuration values never
 * leave this function: the fact keeps the variable names.
 */
export async function readEnvironmentFacts(
  stack: string,
  environment: string,
  facts: readonly EnvironmentFact[],
): Promise<EnvironmentFacts> {
  const where = { stack, environment };
  const reads = new Set(readsFor(facts));
  const [env, deployments, domains, modules, configuration, whitelist] = await Promise.all([
    reads.has("environment") ? fetchEnvironment(where) : undefined,
    // Completed ones only: the live build is one of them, and the list stays short.
    reads.has("deployments") ? fetchDeployments({ ...where, filters: { state: "Completed" } }) : undefined,
    reads.has("domains") ? fetchDomains(where) : undefined,
    reads.has("modules") ? fetchModules(where) : undefined,
    reads.has("configuration") ? fetchConfiguration(where) : undefined,
    reads.has("whitelist") ? fetchWhitelist(where) : undefined,
  ]);
  const wants = new Set(facts);
  return {
    ...(wants.has("deployment") && env !== undefined
      ? { deployment: liveDeploymentFact(env, deployments ?? []) }
      : {}),
    ...(wants.has("url") && typeof env?.attributes.url === "string" ? { url: env.attributes.url } : {}),
    ...(wants.has("domains") && domains !== undefined ? { domains: domainsFact(domains) } : {}),
    ...(wants.has("framework") && typeof env?.attributes.framework_version === "string"
      ? { framework: env.attributes.framework_version }
      : {}),
    ...(wants.has("modules") && modules !== undefined ? { modules: modulesFact(modules) } : {}),
    ...(wants.has("configuration") && configuration !== undefined
      ? { configuration: configurationFact(configuration) }
      : {}),
    ...(wants.has("whitelist") && whitelist !== undefined ? { whitelist: whitelistFact(whitelist) } : {}),
  };
}

/** The facts of one stack (the newest manifest release), reading only when asked. */
export async function readStackFacts(facts: readonly StackFact[]): Promise<StackFacts> {
  if (!facts.includes("manifest_release")) return {};
  return { manifest_release: newestManifestRelease(await fetchManifestReleases()) };
}

/** The deployment Stackwright manages on an environment: its sha once made, and the ref asked. */
export interface ManagedDeployment {
  /** Null while a package deployment is not built yet. */
  readonly sha: pulumi.Output<string | null>;
  readonly ref: string;
}

/** What `outputs:` shows for one stack: its own facts and each environment's. */
export interface StackFactOutputs {
  manifest_release?: pulumi.Output<StackFacts["manifest_release"]>;
  environments: Record<string, pulumi.Output<EnvironmentFacts>>;
}

/**
 * The facts a stack's `outputs` ask for, as Outputs (read in preview too). The live deployment's
 * ref is the one the platform lists for the deployment that made the build, else the managed
 * deployment's when its sha is the one running.
 * Undefined when the stack asks for no fact.
 */
export function stackFactOutputs(
  stack: StackConfig,
  managed: (environment: string) => ManagedDeployment | undefined,
): StackFactOutputs | undefined {
  const environments: Record<string, pulumi.Output<EnvironmentFacts>> = {};
  for (const [environment, config] of Object.entries(stack.environments)) {
    if (config.outputs.length === 0) continue;
    const facts = pulumi.output(readEnvironmentFacts(stack.stack, environment, config.outputs));
    const deployment = managed(environment);
    environments[environment] =
      deployment === undefined || !config.outputs.includes("deployment")
        ? facts
        : pulumi.all([facts, deployment.sha]).apply(([f, sha]) => withManagedRef(f, sha, deployment.ref));
  }
  const own =
    stack.outputs.length === 0
      ? {}
      : { manifest_release: pulumi.output(readStackFacts(stack.outputs).then((f) => f.manifest_release)) };
  if (Object.keys(environments).length === 0 && stack.outputs.length === 0) return undefined;
  return { ...own, environments };
}

function withManagedRef(facts: EnvironmentFacts, sha: string | null, ref: string): EnvironmentFacts {
  const live = facts.deployment;
  if (live === undefined || live.ref !== null || sha === null || live.sha !== sha) return facts;
  return { ...facts, deployment: { ...live, ref } };
}
