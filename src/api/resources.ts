/**
 * How Pulumi names Stackwright's resources, in one place for every layer that reads a state, an
 * engine event or a plan: the type token of each resource type, the URN (parsed and built) and the
 * short form of a sha. Imports nothing, so that even the plugin host, which loads none of our
 * other modules, can use it.
 */

/** The type names of Stackwright's resources, as their contracts (providers/shared) declare them. */
export const RESOURCE_TYPE_NAMES = [
  "Deployment",
  "EnvironmentLock",
  "Snapshot",
  "SnapshotRestore",
  "GitFetch",
  "RecordAction",
] as const;
export type ResourceTypeName = (typeof RESOURCE_TYPE_NAMES)[number];

/** What every Stackwright type token starts with: a dynamic resource of the Node.js SDK. */
export const TYPE_TOKEN_PREFIX = "pulumi-nodejs:dynamic/stackwright:";

/** The type token of a resource type: `pulumi-nodejs:dynamic/stackwright:Deployment`. */
export function typeToken(name: ResourceTypeName): string {
  return `${TYPE_TOKEN_PREFIX}${name}`;
}

/** The type name of a Stackwright type token, or undefined for any other token. */
export function stackwrightTypeOf(token: string): ResourceTypeName | undefined {
  if (!token.startsWith(TYPE_TOKEN_PREFIX)) return undefined;
  const name = token.slice(TYPE_TOKEN_PREFIX.length);
  return (RESOURCE_TYPE_NAMES as readonly string[]).includes(name) ? (name as ResourceTypeName) : undefined;
}

/**
 * The last part of any type token (`Deployment` of `pulumi-nodejs:dynamic/stackwright:Deployment`,
 * `Environment` of `stackwright:index:Environment`), for words shown to people.
 */
export function typeNameOf(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

/** A URN's parts: `urn:pulumi:<stack>::<project>::<parent types $ type>::<name>`. */
export interface Urn {
  readonly stack: string;
  readonly project: string;
  /** The type tokens of the resource's parents, outermost first, then its own (`a$b$c`). */
  readonly qualifiedType: string;
  /** The resource's own type token (the last of {@link qualifiedType}). */
  readonly type: string;
  /** The resource's name, e.g. `acme-web/uat/from-a` (may itself hold `::`). */
  readonly name: string;
}

const URN_PREFIX = "urn:pulumi:";

/** The parts of a URN; fields that a malformed one lacks are empty. */
export function parseUrn(urn: string): Urn {
  const body = urn.startsWith(URN_PREFIX) ? urn.slice(URN_PREFIX.length) : urn;
  const [stack = "", project = "", qualifiedType = "", ...name] = body.split("::");
  return {
    stack,
    project,
    qualifiedType,
    type: qualifiedType.slice(qualifiedType.lastIndexOf("$") + 1),
    name: name.join("::"),
  };
}

/** The URN of the parts (the inverse of {@link parseUrn}). */
export function buildUrn(parts: Omit<Urn, "type">): string {
  return `${URN_PREFIX}${parts.stack}::${parts.project}::${parts.qualifiedType}::${parts.name}`;
}

/** The stack a URN names, or undefined when the text is no URN. */
export function urnStack(urn: string): string | undefined {
  if (!urn.startsWith(URN_PREFIX) || !urn.includes("::")) return undefined;
  const { stack } = parseUrn(urn);
  return stack === "" ? undefined : stack;
}

/** What the URN of every resource of `stack` starts with. */
export function urnStackPrefix(stack: string): string {
  return `${URN_PREFIX}${stack}::`;
}

/** The resource's name from its URN (`acme-web/uat/from-a`). */
export function urnName(urn: string): string {
  return parseUrn(urn).name;
}

/** The resource's own type token from its URN. */
export function urnType(urn: string): string {
  return parseUrn(urn).type;
}

/** The short form of a sha, as the platform shows it (7 characters). */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}
