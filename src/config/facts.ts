/**
 * Facts: what the platform says about an environment or a stack, in the shape a person reads in
 * the stack outputs and a check compares against. Built here, from the API's documents, by pure
 * functions; the program reads the documents (memoised data sources) and passes them in.
 *
 * Configuration values are secrets: a fact carries the variable names and `pending_changes`,
 * never a value.
 */
import { z } from "zod";
import type {
  Configuration,
  Deployment,
  Domain,
  Environment,
  InstalledModule,
  ManifestRelease,
  Whitelist,
} from "../api";

/** Facts an environment can show in its outputs (`environments.<name>.outputs`). */
export const ENVIRONMENT_FACTS = [
  "deployment",
  "url",
  "domains",
  "framework",
  "modules",
  "configuration",
  "whitelist",
] as const;
export type EnvironmentFact = (typeof ENVIRONMENT_FACTS)[number];

/** Facts a stack can show in its outputs (top-level `outputs`). */
export const STACK_FACTS = ["manifest_release"] as const;
export type StackFact = (typeof STACK_FACTS)[number];

/** The API reads behind the facts: one request each per run, whoever asks. */
export type FactRead =
  | "environment"
  | "deployments"
  | "domains"
  | "modules"
  | "configuration"
  | "whitelist"
  | "manifest_releases";

/** Which reads each fact needs. */
export const FACT_READS: Readonly<Record<EnvironmentFact | StackFact, readonly FactRead[]>> = {
  deployment: ["environment", "deployments"],
  url: ["environment"],
  framework: ["environment"],
  domains: ["domains"],
  modules: ["modules"],
  configuration: ["configuration"],
  whitelist: ["whitelist"],
  manifest_release: ["manifest_releases"],
};

/** The build the environment runs. */
export const LiveDeploymentFact = z.object({
  sha: z.string(),
  /**
   * The ref it was deployed from, where it is known: the package of a package deployment, or the
   * ref of the deployment Stackwright made when that is what runs (the API returns no ref).
   */
  ref: z.string().nullable(),
  /** Title of the deployment that made the build, when the platform lists it. */
  title: z.string().nullable(),
  deployer: z.string().nullable(),
  /** When that deployment started (ISO 8601, UTC), when the platform lists it. */
  deployed_at: z.string().nullable(),
});
export type LiveDeploymentFact = z.infer<typeof LiveDeploymentFact>;

export const DomainFact = z.object({
  name: z.string(),
  primary: z.boolean(),
  ssl: z.boolean(),
  www: z.boolean(),
});
export type DomainFact = z.infer<typeof DomainFact>;

export const ConfigurationFact = z.object({
  /** Variable names, sorted. Values are secrets and never part of a fact. */
  names: z.array(z.string()),
  pending_changes: z.boolean(),
});
export type ConfigurationFact = z.infer<typeof ConfigurationFact>;

export const WhitelistFact = z.object({
  enabled: z.boolean(),
  entries: z.number().int(),
  pending_changes: z.boolean(),
});
export type WhitelistFact = z.infer<typeof WhitelistFact>;

export const ManifestReleaseFact = z.object({ label: z.string(), released: z.string() });
export type ManifestReleaseFact = z.infer<typeof ManifestReleaseFact>;

/** Every fact of one environment; each is present only when something asked for it. */
export const EnvironmentFacts = z.object({
  deployment: LiveDeploymentFact.optional(),
  url: z.string().optional(),
  /** Primary first, then by name. */
  domains: z.array(DomainFact).optional(),
  framework: z.string().optional(),
  /** Module name → installed version. */
  modules: z.record(z.string(), z.string()).optional(),
  configuration: ConfigurationFact.optional(),
  whitelist: WhitelistFact.optional(),
});
export type EnvironmentFacts = z.infer<typeof EnvironmentFacts>;

export const StackFacts = z.object({
  /** The newest infrastructure manifest release; null when the platform lists none. */
  manifest_release: ManifestReleaseFact.nullable().optional(),
});
export type StackFacts = z.infer<typeof StackFacts>;

function isoOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * The live build: the environment's `build_sha`, with the deployment that made it when the list
 * has it (the current build, else the newest completed deployment of that sha).
 * `managed` is the ref of the deployment Stackwright manages on the environment, if its sha is live.
 */
export function liveDeploymentFact(
  environment: Environment,
  deployments: readonly Deployment[],
  managed?: { sha: string; ref: string },
): LiveDeploymentFact {
  const sha = environment.attributes.build_sha;
  const completed = deployments
    .filter((d) => d.attributes.state === "Completed" && d.attributes.sha === sha)
    .sort((a, b) => b.attributes.date_started_unix - a.attributes.date_started_unix);
  const made = completed.find((d) => d.attributes.is_current_build) ?? completed[0];
  const ref =
    environment.attributes.build_package ??
    (managed !== undefined && managed.sha === sha ? managed.ref : null);
  return {
    sha,
    ref,
    title: made?.attributes.title ?? null,
    deployer: made?.attributes.deployer.email ?? null,
    deployed_at:
      made === undefined || made.attributes.date_started_unix <= 0
        ? null
        : isoOf(made.attributes.date_started_unix),
  };
}

/** Domains, primary first, then by name. */
export function domainsFact(domains: readonly Domain[]): DomainFact[] {
  return domains
    .map(({ attributes: { name, primary, ssl, www } }) => ({ name, primary, ssl, www }))
    .sort(
      (a, b) => Number(b.primary) - Number(a.primary) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
}

/** Module name → version. */
export function modulesFact(modules: readonly InstalledModule[]): Record<string, string> {
  return Object.fromEntries(
    modules
      .map((m) => [m.attributes.name, m.attributes.version] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Variable names and whether changes wait for a deployment; the values are dropped here. */
export function configurationFact(documents: readonly Configuration[]): ConfigurationFact {
  const names = new Set<string>();
  for (const document of documents)
    for (const name of Object.keys(document.attributes.configuration)) names.add(name);
  return {
    names: [...names].sort(),
    pending_changes: documents.some((document) => document.attributes.pending_changes),
  };
}

export function whitelistFact(whitelist: Whitelist): WhitelistFact {
  return {
    enabled: whitelist.attributes.enabled,
    entries: Object.keys(whitelist.attributes.items).length,
    pending_changes: whitelist.attributes.pending_changes,
  };
}

/** The newest release by release date (the later label on a tie); null when there is none. */
export function newestManifestRelease(releases: readonly ManifestRelease[]): ManifestReleaseFact | null {
  const newest = [...releases].sort(
    (a, b) =>
      b.attributes.released_unix - a.attributes.released_unix ||
      (b.attributes.sha < a.attributes.sha ? -1 : b.attributes.sha > a.attributes.sha ? 1 : 0),
  )[0];
  return newest === undefined
    ? null
    : { label: newest.attributes.sha, released: isoOf(newest.attributes.released_unix) };
}
