/**
 * Observes a fleet: for each selected API stack, its file (desired), its Pulumi state (what the
 * last `up` recorded, read from the backend without the engine) and the platform's answers, turned
 * into the {@link FleetStatus} model. Read-only: it never writes to the API or the backend.
 *
 * API reads: one list of the stacks the user can see, then per visible environment its document
 * (the live build sha) and its deployments, and the log of a deployment that failed; each distinct
 * read once ({@link Reads}), at most `apiConcurrency` at a time for the whole run. A stack or an
 * environment whose read fails is reported `unknown` with the reason; the others are still
 * observed.
 *
 * For `drift` ({@link observeFleetProving}), it also decides whether each fully observed stack's
 * last no-change `up` still proves it (./proof.ts): the record and checkpoint already read, the
 * lock, and the record's data-source reads made again through the same {@link Reads}, keyed by
 * call, so a recorded read of an environment's document takes the observation's answer and a
 * proven fleet costs no more requests than `status`.
 */
import { canonicalJson, typeToken, verificationOf, type StatedDeployment, type Verification } from "../api";
import {
  ApiError,
  needAttributes,
  NotFoundError,
  PermissionError,
  readRecorded,
  type StackwrightClient,
} from "../client";
import { windowVerdict, windowsOf, type StackConfig } from "../config";
import { countSync, type EnvironmentStatus, type FleetStatus, type StackStatus } from "./model";
import { Budget, Reads, mapAll } from "./reads";
import { proofVerdict, type ProofVerdict, type Reread } from "./proof";
import {
  readCheckpoint,
  readConfirmation,
  readLastUpdate,
  type InputDigests,
  type StateReader,
} from "../state-backend/read";
import { newestFirst, observedDeployment, syncOf, type Applied } from "./sync";

/** The type token of the Deployment resource in a checkpoint. */
const DEPLOYMENT_TYPE = typeToken("Deployment");
/** How many deployments per environment the model keeps (its timeline). */
const RECENT = 5;
/** How many lines of a failed deployment's log the model keeps. */
const LOG_TAIL = 20;

/** One API stack to observe. */
export interface StackToObserve {
  readonly apiStack: string;
  /** Its per-file Pulumi stack (`<target>.<API stack>`). */
  readonly pulumiStack: string;
  /** Its file, relative to the project (for people). */
  readonly file: string;
  readonly config: StackConfig;
}

/** The API reads this layer makes (a StackwrightClient has them). */
export type ObserveClient = Pick<StackwrightClient, "stacks" | "environments" | "deployments">;

export interface ObserveInput {
  readonly target: string;
  /** The Pulumi project name (the backend's layout is per project). */
  readonly project: string;
  readonly store: StateReader;
  readonly client: ObserveClient;
  readonly stacks: readonly StackToObserve[];
  /** Requests in flight at most, for the whole run. */
  readonly apiConcurrency: number;
  /** The instant change windows are judged at, and the document's time. */
  readonly now: Date;
}

/** What `drift` asks besides: whether each stack's last no-change run still proves it (./proof.ts). */
export interface ProofOptions {
  /** The digests of the inputs an `up` of the stack would have now. */
  inputs(stack: StackToObserve): InputDigests;
  /** The client of the recorded reads (the observation's own, so its budget and answers are shared). */
  readonly client: StackwrightClient;
}

/** The observation, and what the proofs said. */
export interface Observation {
  readonly status: FleetStatus;
  /**
   * Per API stack whose reads all answered, whether its last no-change run still proves it
   * (empty without {@link ProofOptions}; a stack whose observation failed has none).
   */
  readonly proofs: ReadonlyMap<string, ProofVerdict>;
  /** How many distinct API reads the run made (each one GET, or one per page of a list). */
  readonly reads: number;
}

/**
 * The key of a read in {@link Reads}: a data source's name and canonical arguments, so that the
 * observation and the re-read of a record share one answer for the same call.
 */
export function readKey(name: string, args: Readonly<Record<string, unknown>>): string {
  return `${name} ${canonicalJson(args)}`;
}

/** What a recorded read's name and arguments no longer make (another version's record). */
const NOT_A_READ: unique symbol = Symbol("not a read");

/** What a failed read says, for the `reason` of an unknown state. */
export function readProblem(error: unknown, what: string): string {
  if (error instanceof PermissionError || error instanceof NotFoundError) {
    return `${what}: the API does not let this user see it (${error.status})`;
  }
  if (ApiError.isInstance(error)) return `${what} could not be read: ${error.message}`;
  return `${what} could not be read: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Every Deployment resource of a checkpoint for `apiStack`, in the checkpoint's order: its
 * environment and what it recorded. While a replacement is under way (or failed) an environment
 * has two: the one being replaced first.
 */
export function recordedDeployments(
  resources: readonly { type: string; outputs?: Record<string, unknown> | undefined }[],
  apiStack: string,
): {
  readonly environment: string;
  readonly applied: Applied;
  readonly verification: Verification | undefined;
}[] {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const out: { environment: string; applied: Applied; verification: Verification | undefined }[] = [];
  for (const r of resources) {
    if (r.type !== DEPLOYMENT_TYPE || r.outputs === undefined) continue;
    const o = r.outputs;
    if (o["stack"] !== apiStack || typeof o["environment"] !== "string") continue;
    out.push({
      environment: o["environment"],
      applied: {
        ref_type: text(o["ref_type"]),
        ref: text(o["ref"]),
        sha: text(o["sha"]),
        deployment_id: text(o["deployment_id"]),
      },
      // What the checks of `verify:` found after this deployment (none without `verify:`).
      verification: verificationOf(o),
    });
  }
  return out;
}

/** The Deployment resources of a checkpoint, by environment: the last one recorded for each. */
function appliedByEnvironment(
  resources: readonly { type: string; outputs?: Record<string, unknown> | undefined }[],
  apiStack: string,
): Map<string, { readonly applied: Applied; readonly verification: Verification | undefined }> {
  return new Map(recordedDeployments(resources, apiStack).map((r) => [r.environment, r]));
}

export async function observeFleet(input: ObserveInput): Promise<FleetStatus> {
  return (await observeFleetProving(input)).status;
}

/** Observes the fleet and, with `proof`, decides each observed stack's proof through the same reads. */
export async function observeFleetProving(
  input: ObserveInput & { readonly proof?: ProofOptions },
): Promise<Observation> {
  const reads = new Reads(new Budget(input.apiConcurrency));
  const { client, proof } = input;
  const proofs = new Map<string, ProofVerdict>();
  const visible = reads
    .once(readKey("stacks", {}), () => client.stacks.list())
    .then((stacks) => ({ ok: true as const, names: new Set(stacks.map((s) => s.id)) }))
    .catch((error: unknown) => ({ ok: false as const, reason: readProblem(error, "the list of stacks") }));

  const observeStack = async (s: StackToObserve): Promise<StackStatus> => {
    const [checkpoint, lastUp, confirmation] = await Promise.all([
      readCheckpoint(input.store, input.project, s.pulumiStack),
      readLastUpdate(input.store, input.project, s.pulumiStack),
      readConfirmation(input.store, input.project, s.pulumiStack),
    ]);
    const applied = appliedByEnvironment(checkpoint?.resources ?? [], s.apiStack);
    const seen = await visible;
    const stackError = !seen.ok
      ? seen.reason
      : seen.names.has(s.apiStack)
        ? null
        : `stack ${s.apiStack}: the API does not let this user see it (not among the user's stacks)`;
    const environments = await mapAll(Object.entries(s.config.environments), ([name, env]) =>
      observeEnvironment(reads, input, s, name, env, applied.get(name), stackError),
    );
    // After the environments' reads: a recorded read of the same call takes their answer.
    if (proof !== undefined && stackError === null && environments.every((e) => e.sync !== "unknown")) {
      const reread: Reread = async (read) => {
        const answer = await reads.once(
          readKey(read.name, read.args),
          () => readRecorded(proof.client, read.name, read.args) ?? Promise.resolve(NOT_A_READ),
        );
        return answer === NOT_A_READ ? undefined : { answer };
      };
      proofs.set(
        s.apiStack,
        await proofVerdict({
          store: input.store,
          project: input.project,
          stack: s.pulumiStack,
          inputs: proof.inputs(s),
          // Every recorded read is made again as this run's user: whoever proved it, it holds.
          anyCredentials: true,
          known: { record: confirmation, checkpoint },
          rereads: () => Promise.resolve(reread),
        }).catch(
          (error: unknown): ProofVerdict => ({
            confirmed: false,
            reason: `cannot read: ${error instanceof Error ? error.message : String(error)}`,
            record: true,
          }),
        ),
      );
    }
    return {
      stack: s.apiStack,
      pulumi_stack: s.pulumiStack,
      file: s.file,
      last_up: lastUp ?? null,
      confirmed_at:
        confirmation !== undefined && confirmation.checkpoint === checkpoint?.digest
          ? confirmation.provedAt
          : null,
      error: stackError,
      environments,
    };
  };

  const stacks = await mapAll(input.stacks, observeStack);
  return {
    status: {
      kind: "stackwright.status",
      version: 1,
      target: input.target,
      generated_at: input.now.toISOString(),
      counts: countSync(stacks),
      stacks,
    },
    proofs,
    reads: reads.count,
  };
}

async function observeEnvironment(
  reads: Reads,
  input: ObserveInput,
  s: StackToObserve,
  name: string,
  env: StackConfig["environments"][string],
  recorded: { readonly applied: Applied; readonly verification: Verification | undefined } | undefined,
  stackError: string | null,
): Promise<EnvironmentStatus> {
  const applied = recorded?.applied;
  const verification = recorded?.verification;
  const { client } = input;
  const windows = windowsOf(s.config, env);
  const verdict = windows.length === 0 ? undefined : windowVerdict(windows, input.now);
  const desired =
    env.deployment === undefined
      ? null
      : { ref_type: env.deployment.ref_type, ref: env.deployment.ref ?? "" };
  const base: EnvironmentStatus = {
    stack: s.apiStack,
    environment: name,
    desired,
    applied: applied ?? null,
    verification: verification ?? null,
    live: null,
    sync: "unknown",
    reason: stackError,
    drift: null,
    lock: env.lock === undefined ? null : { message: env.lock.message },
    window:
      verdict === undefined
        ? null
        : verdict.open
          ? { open: true, reason: null, next_open: null, searched_until: null }
          : {
              open: false,
              reason: verdict.reason,
              next_open: verdict.next?.at.toISOString() ?? null,
              searched_until: verdict.stoppedAt?.toISOString() ?? null,
            },
    newest: null,
    recent: [],
    failure_log: null,
  };
  if (stackError !== null) return base;
  const where = `${s.apiStack}/${name}`;
  let liveSha: string;
  let deployments: StatedDeployment[];
  // The sync verdict decides on the build sha and every deployment's state: a document without
  // them makes this environment unknown, with the reason (never the whole fleet).
  const why = `cannot tell whether ${where} is in sync`;
  try {
    [liveSha, deployments] = await Promise.all([
      reads
        .once(readKey("environment", { stack: s.apiStack, environment: name }), () =>
          client.environments.get(s.apiStack, name),
        )
        .then((e) => needAttributes(e, ["build_sha"], why).attributes.build_sha),
      reads
        .once(readKey("deployments", { stack: s.apiStack, environment: name }), () =>
          client.deployments.list(s.apiStack, name),
        )
        .then((list) => list.map((d) => needAttributes(d, ["state"], why))),
    ]);
  } catch (error) {
    return { ...base, reason: readProblem(error, `environment ${where}`) };
  }
  const sync = syncOf({ desired: desired ?? undefined, applied, verification, liveSha, deployments });
  const recent = newestFirst(deployments).slice(0, RECENT).map(observedDeployment);
  let failureLog: string[] | null = null;
  if (sync.sync === "failed" && sync.newest !== undefined) {
    const id = sync.newest.id;
    failureLog = await reads
      .once(readKey("log", { stack: s.apiStack, environment: name, id }), () =>
        client.deployments.log(s.apiStack, name, id),
      )
      .then((log) => log.lines.slice(-LOG_TAIL))
      .catch(() => null);
  }
  return {
    ...base,
    live: {
      sha: liveSha,
      short_sha: liveSha.slice(0, 7),
      deployment: sync.liveDeployment === undefined ? null : observedDeployment(sync.liveDeployment),
    },
    sync: sync.sync,
    reason: sync.reason,
    drift: sync.drift,
    newest: sync.newest === undefined ? null : observedDeployment(sync.newest),
    recent,
    failure_log: failureLog,
  };
}
