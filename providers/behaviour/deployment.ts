/**
 * Deployment: one deployment of a ref to an environment, reconciled through the three approval
 * modes. Title and summary changes never redeploy; a change of stack, environment, ref_type, ref,
 * trigger or adopt replaces (a new deployment); a failed deployment is recorded and retried by the
 * next run as a replacement.
 */
import type { z } from "zod";
import {
  FAILED_DEPLOYMENT_STATES,
  IN_PROGRESS_DEPLOYMENT_STATES,
  PENDING_DEPLOYMENT_STATES,
  Verification,
  verdictsOf,
  withVerdicts,
  type BuildVerdict,
  type Deployment,
} from "../../src/api";
import {
  ApiError,
  ErrorCode,
  needAttributes,
  type StackwrightClient,
  type WithAttributes,
} from "../../src/client";
import { terminalText } from "../../src/safe-text";
import { outputKeys } from "../shared/contract";
import { deploymentContract } from "../shared/deployment";
import {
  changedKeys,
  checkWithMarker,
  differs,
  markerOf,
  parseInputs,
  progress,
  timeoutMs,
  userInputs,
  withMarker,
  withProvider,
  UNKNOWN,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { InitError, refusal, wrap } from "./errors";
import { followDeployment } from "./log-follower";
import { withClient } from "./settings";
import {
  failureLine,
  refusalLine,
  resumeRollback,
  rollBack,
  rollbackOf,
  verifyBuild,
} from "./verify-deployment";

/** Inputs of a Deployment, as validated by `check` (the contract's). */
export const DeploymentInputs = deploymentContract.inputs;
export type DeploymentInputs = z.output<typeof DeploymentInputs>;
/** What the state records about the deployment, besides the inputs. */
export type DeploymentOutputs = z.output<typeof deploymentContract.outputs>;
/** Inputs that force a new deployment when they change. */
export const DEPLOYMENT_REPLACE_KEYS = deploymentContract.replaceKeys;

const FAILED: readonly string[] = FAILED_DEPLOYMENT_STATES;
const IN_PROGRESS: readonly string[] = IN_PROGRESS_DEPLOYMENT_STATES;
const PENDING: readonly string[] = PENDING_DEPLOYMENT_STATES;

/** Validates inputs (no API call) and fills in the marker. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return checkWithMarker(DeploymentInputs, news, DEPLOYMENT_REPLACE_KEYS);
}

/** True when the recorded deployment runs a different sha than the environment does now. */
export function hasDrift(olds: Props, news: Props): boolean {
  const observed = news["observed_sha"];
  const recorded = olds["sha"];
  return (
    olds["state"] === "Completed" &&
    typeof observed === "string" &&
    observed !== "" &&
    observed !== UNKNOWN &&
    typeof recorded === "string" &&
    recorded !== "" &&
    observed !== recorded
  );
}

/**
 * Plans without an API call. Replaces on the identity inputs; also replaces (a fresh deployment)
 * when the recorded one failed, and, with `self_heal`, when the environment drifted. An update
 * without replacement is planned when a pending deployment can move on (Approved after a
 * refresh, or still running after a timeout) or when a description input changed; the update
 * makes no API call for the latter.
 */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  // Dropping `adopt` after the claim keeps the claimed deployment; naming another id claims that.
  const adoptChanged =
    news["adopt"] !== undefined &&
    news["adopt"] !== null &&
    news["adopt"] !== "" &&
    differs(olds["adopt"], news["adopt"]);
  const replaces = changedKeys(
    olds,
    news,
    DEPLOYMENT_REPLACE_KEYS.filter((k) => k !== "adopt"),
  );
  if (adoptChanged) replaces.push("adopt");
  const state = typeof olds["state"] === "string" ? olds["state"] : undefined;
  // A Rejected request is a person's "no": asking again on every run would spam them, so only a
  // new `trigger` (or ref) asks again. Failed, Invalid and Deleted deployments are retried.
  if (state !== undefined && FAILED.includes(state) && state !== "Rejected" && !replaces.includes("state")) {
    replaces.push("state");
  }
  const heldLock = news["environment_lock"];
  const lockStays = typeof heldLock === "string" && typeof olds["environment_lock"] === "string";
  // Healing a hand deployment waits while a lock stays (a change freeze): the drift helper warns
  // instead, so unrelated changes still preview cleanly during the freeze.
  // A build rolled back after a failed verification is not healed back onto the environment.
  const rolledBack = recordedVerification(olds)?.rolled_back_to ?? null;
  if (news["self_heal"] === true && !lockStays && rolledBack === null && hasDrift(olds, news)) {
    replaces.push("observed_sha");
  }
  const described = [
    "title",
    "summary",
    "approval",
    "fetch_first",
    "wait",
    "timeout_seconds",
    "self_heal",
    "locked",
    // Recorded (no API call) so that the next run knows the environment was already locked.
    "environment_lock",
  ];
  const updates = changedKeys(olds, news, described);
  if (replaces.length > 0) handOver(news, verdictsRecorded(olds));
  // Approved (a person approved a `request`, seen by a refresh) or still running after a timeout.
  const canMove =
    state === "Approved" || (state !== undefined && IN_PROGRESS.includes(state) && news["wait"] !== false);
  // Only a start is refused under a lock: a deployment already running (after a timed-out wait,
  // possibly in the very change that added the lock) is just waited for.
  if (lockStays && (replaces.length > 0 || state === "Approved")) {
    // A lock that stays makes the platform refuse the deployment: say so in the preview, not
    // halfway through the update.
    const where = `${String(news["stack"])}/${String(news["environment"])}`;
    const why = replaces.length > 0 ? `changed: ${replaces.join(", ")}` : "it would be started";
    return Promise.reject(
      refusal(
        `${where} is locked ("${heldLock}") and stays locked in this change, so its deployment cannot change (${why}). ` +
          "Remove the lock in the same change (Stackwright unlocks, deploys, and you lock again later), or leave the deployment as it is.",
      ),
    );
  }
  return Promise.resolve({
    changes: replaces.length > 0 || updates.length > 0 || canMove,
    replaces,
    deleteBeforeReplace: false,
  });
}

/**
 * The verdicts a replaced Deployment leaves to its replacement. The engine gives `create` only
 * the new inputs, never the state of the resource it replaces; the `diff` that plans the
 * replacement sees that state and is answered by this same provider process just before the
 * create, so it hands the record over here, by the resource's identity (`marker_seed`: project,
 * stack and name). The create takes it once; a replacement planned but not made (a preview)
 * leaves one entry per resource, overwritten by the next plan.
 */
const handedOver = new Map<string, BuildVerdict[]>();

function handOverKey(props: Props): string {
  return JSON.stringify([props["marker_seed"], props["stack"], props["environment"]]);
}

function handOver(news: Props, verdicts: BuildVerdict[]): void {
  if (verdicts.length > 0) handedOver.set(handOverKey(news), verdicts);
}

function takeHandedOver(props: Props): BuildVerdict[] {
  const key = handOverKey(props);
  const verdicts = handedOver.get(key) ?? [];
  handedOver.delete(key);
  return verdicts;
}

/**
 * The verdicts a Deployment's outputs record; for a state written before they were kept, the
 * one its verification gives.
 */
function verdictsRecorded(props: Props): BuildVerdict[] {
  if (Array.isArray(props["verdicts"])) return verdictsOf(props["verdicts"]);
  const verification = recordedVerification(props);
  return verification === null ? [] : withVerdicts([], verification);
}

/** A deployment whose state is known: every decision below depends on it. */
type Known = WithAttributes<Deployment, "state">;

/** `d` with its state, or the client's UnexpectedResponseError naming the endpoint and the field. */
function known(d: Deployment, where: string): Known {
  return needAttributes(d, ["state"], `cannot tell what deployment ${d.id} on ${where} is doing`);
}

/**
 * What the API said about the deployment, as the state records it. A package deployment has no
 * sha until it is built: the state records null, which is never taken for drift.
 */
function recordedOf(
  d: Known,
  marker: string,
  verification: Verification | null,
  verdicts: BuildVerdict[],
): DeploymentOutputs {
  return {
    verification,
    verdicts,
    deployment_id: d.id,
    state: d.attributes.state,
    sha: d.attributes.sha ?? null,
    short_sha: d.attributes.short_sha ?? null,
    link: d.links?.self ?? null,
    is_current_build: d.attributes.is_current_build ?? null,
    marker,
  };
}

/** The platform's notes on a new deployment (`messages` of the create response), one line each. */
function showMessages(d: Deployment, where: string): void {
  for (const message of d.attributes.messages ?? []) {
    const text = message.text ?? "";
    if (text !== "") progress(`deployment ${d.id} on ${where}: the platform says: ${text}`);
  }
}

/** A deployment's link for a message, or its id when the platform sent none. */
function linkOf(d: Deployment): string {
  return d.links?.self ?? `deployment ${d.id}`;
}

/**
 * Outputs: the inputs exactly as given (so diff compares like with like) plus what the API said,
 * the verification of `d` and the verdicts on the environment's builds.
 */
function outputsOf(
  d: Known,
  raw: Props,
  marker: string,
  verdicts: BuildVerdict[],
  verification: Verification | null = null,
): Props {
  return { ...userInputs(raw), ...recordedOf(d, marker, verification, verdicts) };
}

/** The verification the state recorded, or null (none, or from before `verify:` existed). */
function recordedVerification(props: Props): Verification | null {
  const parsed = Verification.safeParse(props["verification"]);
  return parsed.success ? parsed.data : null;
}

/**
 * Where the deployment `verified` checks came from. One this call created has no rollback yet;
 * one made or adopted earlier may have been rolled back by a run that stopped before the state
 * recorded it (`rollback`: the one found, null when none was, undefined when not looked for).
 */
interface Origin {
  readonly fresh: boolean;
  readonly rollback?: Deployment | null;
}

/**
 * Runs `verify:` on a deployment that ended Completed and records the verdict, and the verdicts
 * on the environment's builds (`verdicts`, what the state had). A failed verification fails the
 * resource with one line (naming the check and the answer) and, with `on_failure: rollback`,
 * after redeploying the build that ran before; the state keeps the deployment and the verdict
 * either way, so the next run neither deploys nor rolls back again. A rollback of the deployment
 * that a stopped run made is taken over instead (its site serves the rollback's build, so the
 * deployment is not checked again).
 */
async function verified(
  client: StackwrightClient,
  final: Known,
  inputs: DeploymentInputs,
  props: Props,
  marker: string,
  verdicts: BuildVerdict[],
  origin: Origin,
): Promise<{ id: string; outs: Props }> {
  const spec = inputs.verify;
  const sha = final.attributes.sha;
  if (spec === undefined || final.attributes.state !== "Completed" || typeof sha !== "string" || sha === "") {
    return { id: final.id, outs: outputsOf(final, props, marker, verdicts) };
  }
  const place = { stack: inputs.stack, environment: inputs.environment, url: inputs.environment_url };
  const where = `${inputs.stack}/${inputs.environment}`;
  const record = (v: Verification) =>
    withProvider(outputsOf(final, props, marker, withVerdicts(verdicts, v), v), props);
  if (spec.on_failure === "rollback" && !origin.fresh) {
    let rollback = origin.rollback;
    try {
      if (rollback === undefined) {
        const all = await client.deployments.list(inputs.stack, inputs.environment);
        rollback = rollbackOf(all, final.id) ?? null;
      }
    } catch (error) {
      throw new InitError(
        wrapMessage(`The deployments of ${where} could not be listed`, error),
        final.id,
        withProvider(outputsOf(final, props, marker, verdicts), props),
      );
    }
    if (rollback !== null) {
      const outcome = await resumeRollback(
        client,
        place,
        spec,
        { ...final, attributes: { ...final.attributes, sha } },
        rollback,
        timeoutMs(inputs.timeout_seconds),
      );
      throw new InitError(terminalText(`${where}: ${outcome.said}`), final.id, record(outcome.verification));
    }
  }
  let verification: Verification;
  try {
    verification = await verifyBuild(client, place, spec, { id: final.id, sha });
  } catch (error) {
    throw new InitError(
      wrapMessage(`Verification of deployment ${final.id} on ${where}`, error),
      final.id,
      withProvider(outputsOf(final, props, marker, verdicts), props),
    );
  }
  if (verification.result === "passed") {
    progress(`deployment ${final.id} on ${where} verified (${verification.attempts} attempt(s))`);
    return { id: final.id, outs: record(verification) };
  }
  let line = failureLine(place, spec, verification);
  if (spec.on_failure === "rollback") {
    const before = inputs.observed_sha === UNKNOWN ? undefined : inputs.observed_sha;
    const outcome = await rollBack(
      client,
      place,
      spec,
      verification,
      before,
      withVerdicts(verdicts, verification),
      timeoutMs(inputs.timeout_seconds),
    );
    verification = outcome.verification;
    line = `${line}; ${outcome.said}`;
  }
  throw new InitError(line, final.id, record(verification));
}

/** A deployment an interrupted run made that this resource may claim. */
export function adoptable(d: Deployment): boolean {
  const state = d.attributes.state;
  // Without a state nothing can be claimed safely (the create then fails, naming the field).
  if (state === undefined || state === null || FAILED.includes(state)) return false;
  // A finished deployment that is no longer the current build was superseded (e.g. by a hand
  // deployment we are healing): claiming it would deploy nothing.
  return PENDING.includes(state) || IN_PROGRESS.includes(state) || d.attributes.is_current_build === true;
}

/**
 * Moves a deployment on as far as its approval mode allows: starts an Approved one (bypass, or
 * request once approved) and waits for a finished state unless `wait` is false. A failure or a
 * timeout becomes an InitError carrying the id, so the state records the deployment.
 */
async function settle(
  client: StackwrightClient,
  d: Deployment,
  inputs: DeploymentInputs,
  marker: string,
  props: Props,
  verdicts: BuildVerdict[],
): Promise<Known> {
  const where = `${inputs.stack}/${inputs.environment}`;
  let current = known(d, where);
  // The platform's log of the deployment, printed while it is waited for (see log-follower.ts).
  const log = followDeployment(client, inputs.stack, inputs.environment, d.id);
  const fail = (message: string, last: Known): InitError =>
    new InitError(message, last.id, withProvider(outputsOf(last, props, marker, verdicts), props));
  try {
    if (current.attributes.state === "Approved") {
      progress(`deployment ${current.id} on ${where} is approved; starting it`);
      current = known(await client.deployments.start(inputs.stack, inputs.environment, current.id), where);
    }
    if (current.attributes.state === "Submitted" || current.attributes.state === "New") {
      progress(
        `deployment ${current.id} on ${where} waits for approval (${linkOf(current)}); ` +
          "once it is approved, the next up with --refresh starts it",
      );
      return current;
    }
    if (inputs.wait === false || !IN_PROGRESS.includes(current.attributes.state)) return current;
    const started = Date.now();
    const bound = timeoutMs(inputs.timeout_seconds);
    const id = current.id;
    const done = await client.waitForDeployment(inputs.stack, inputs.environment, id, {
      ...(bound === undefined ? {} : { timeoutMs: bound }),
      onProgress: (p) => {
        progress(`deployment ${id} on ${where}: ${p.state} (${Math.round((Date.now() - started) / 1000)}s)`);
        if (IN_PROGRESS.includes(p.state)) log.poll();
      },
    });
    await log.finish();
    return known(done, where);
  } catch (error) {
    if (
      ApiError.isInstance(error) &&
      (error.code === ErrorCode.WaitFailed || error.code === ErrorCode.WaitTimeout)
    ) {
      const last = await client.deployments
        .get(inputs.stack, inputs.environment, current.id)
        .then((read) => known(read, where))
        .catch(() => current);
      await log.finish();
      const title = last.attributes.title;
      const message =
        error.code === ErrorCode.WaitFailed
          ? `Deployment ${last.id} "${title}" on ${where} ended ${last.attributes.state}: ${linkOf(last)}. ` +
            "The state records it; the next up deploys again."
          : `Deployment ${last.id} "${title}" on ${where} did not finish within ${inputs.timeout_seconds ?? "the default"} s ` +
            `(state ${last.attributes.state}): ${linkOf(last)}. The next up waits for it again.`;
      // The title and link are the platform's: shown, never interpreted, by the terminal.
      throw fail(log.withTail(terminalText(message)), last);
    }
    throw fail(wrapMessage(`Deployment ${current.id} on ${where}`, error), current);
  }
}

/** The deployment `id` of the inputs' environment, read again (a failed read names it). */
async function readDeployment(
  client: StackwrightClient,
  inputs: DeploymentInputs,
  id: string,
): Promise<Deployment> {
  try {
    return await client.deployments.get(inputs.stack, inputs.environment, id);
  } catch (error) {
    throw wrap(`Deployment ${id} on ${inputs.stack}/${inputs.environment} could not be read`, error);
  }
}

function wrapMessage(what: string, error: unknown): string {
  return wrap(what, error).message;
}

/** Creates (or adopts) the deployment and moves it on; see {@link settle}. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(DeploymentInputs, props, "Deployment");
  const marker = markerOf(inputs, DEPLOYMENT_REPLACE_KEYS);
  const where = `${inputs.stack}/${inputs.environment}`;
  const verdicts = takeHandedOver(props);
  return withClient(async (client) => {
    let d: Deployment;
    let origin: Origin = { fresh: true, rollback: null };
    try {
      if (inputs.adopt !== undefined) {
        d = await client.deployments.get(inputs.stack, inputs.environment, inputs.adopt);
        progress(`adopting deployment ${d.id} on ${where} (${known(d, where).attributes.state})`);
        origin = { fresh: false };
      } else {
        const earlier = await client.deployments.findByMarker(inputs.stack, inputs.environment, marker);
        // An interrupted run may have rolled it back already: then it is no longer the current
        // build, and it is taken over with its rollback rather than deployed again.
        const rollback =
          earlier !== undefined && inputs.verify?.on_failure === "rollback"
            ? (rollbackOf(await client.deployments.list(inputs.stack, inputs.environment), earlier.id) ??
              null)
            : undefined;
        if (earlier !== undefined && (adoptable(earlier) || (rollback ?? null) !== null)) {
          progress(`found deployment ${earlier.id} on ${where} made by an interrupted run; adopting it`);
          d = earlier;
          origin = { fresh: false, ...(rollback === undefined ? {} : { rollback }) };
        } else {
          if (inputs.fetch_first === true) {
            const fetch = await client.fetches.create(inputs.stack);
            progress(`git fetch ${fetch.id} of ${inputs.stack} queued`);
            await client.waitForFetch(inputs.stack, fetch.id, {});
          }
          const approval = inputs.approval ?? "bypass_and_start";
          const summary = withMarker(inputs.summary, marker);
          d = await client.deployments.create(
            inputs.stack,
            inputs.environment,
            {
              ref_type: inputs.ref_type,
              ...(inputs.ref === undefined || inputs.ref === "" ? {} : { ref: inputs.ref }),
              ...(inputs.title === undefined ? {} : { title: inputs.title }),
              summary,
              ...(approval === "bypass_and_start" ? { bypass_and_start: true } : {}),
              ...(approval === "bypass" ? { bypass: true } : {}),
              ...(inputs.locked === undefined ? {} : { locked: inputs.locked }),
            },
            // Found by the provider fault fuzz: after a retried create, an older finished
            // deployment of the same desired state (A, B, then A again) is not this create's.
            { marker, accept: adoptable },
          );
          progress(
            `deployment ${d.id} on ${where} created (${known(d, where).attributes.state}): ${linkOf(d)}`,
          );
          showMessages(d, where);
        }
      }
    } catch (error) {
      throw wrap(`Deployment on ${where} could not be created`, error);
    }
    const final = await settle(client, d, inputs, marker, props, verdicts);
    return verified(client, final, inputs, props, marker, verdicts, origin);
  });
}

/** Reads the live deployment; a deployment that no longer exists leaves the state. */
export function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const stack = String(props["stack"]);
  const environment = String(props["environment"]);
  return withClient(async (client) => {
    try {
      const d = known(await client.deployments.get(stack, environment, id), `${stack}/${environment}`);
      const marker = typeof props["marker"] === "string" ? props["marker"] : "";
      return {
        id,
        props: outputsOf(d, props, marker, verdictsRecorded(props), recordedVerification(props)),
      };
    } catch (error) {
      if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return { id: "", props: {} };
      throw wrap(`Deployment ${id} on ${stack}/${environment} could not be read`, error);
    }
  });
}

/**
 * Updates in place. A pending or running deployment is moved on (started once approved, waited
 * for); otherwise only the recorded inputs change and no request is made (title and summary
 * cannot be edited through the API and never redeploy).
 */
export function update(id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  const inputs = parseInputs(DeploymentInputs, news, "Deployment");
  const marker = typeof olds["marker"] === "string" ? olds["marker"] : (inputs.marker ?? "");
  const state = typeof olds["state"] === "string" ? olds["state"] : "";
  const recorded = pickOutputs(olds);
  if (!(PENDING.includes(state) || IN_PROGRESS.includes(state))) {
    const outs = { ...userInputs(news), ...recorded, marker };
    const verification = recordedVerification(olds);
    if (inputs.verify === undefined || verification === null || verification.sha !== olds["sha"]) {
      return Promise.resolve({ outs });
    }
    const place = { stack: inputs.stack, environment: inputs.environment, url: inputs.environment_url };
    // Rolled back (or tried to): the file still pins the build that failed. It is not deployed
    // again, and the run says so, until the file changes (a replacement).
    if (verification.result === "rolled_back" || verification.rolled_back_to !== null) {
      return Promise.reject(new InitError(refusalLine(place, verification), id, withProvider(outs, news)));
    }
    if (verification.result === "failed") {
      // The last run's verification failed (on_failure: fail): the build may answer now.
      return withClient(async (client) => {
        const d = await readDeployment(client, inputs, id);
        const { outs: verifiedOuts } = await verified(
          client,
          known(d, `${place.stack}/${place.environment}`),
          inputs,
          news,
          marker,
          verdictsRecorded(olds),
          { fresh: false },
        );
        return { outs: verifiedOuts };
      });
    }
    return Promise.resolve({ outs });
  }
  return withClient(async (client) => {
    const d = await readDeployment(client, inputs, id);
    const verdicts = verdictsRecorded(olds);
    const final = await settle(client, d, inputs, marker, news, verdicts);
    return { outs: (await verified(client, final, inputs, news, marker, verdicts, { fresh: false })).outs };
  });
}

function pickOutputs(olds: Props): Props {
  const keys = outputKeys(deploymentContract);
  return Object.fromEntries(keys.filter((k) => olds[k] !== undefined).map((k) => [k, olds[k]]));
}

/**
 * Deletes by state: a New deployment is deleted, a Submitted or Approved one invalidated; one
 * that started or finished is history and stays on the platform (the state forgets it).
 */
export function remove(id: string, props: Props): Promise<void> {
  const stack = String(props["stack"]);
  const environment = String(props["environment"]);
  return withClient(async (client) => {
    try {
      const d = known(await client.deployments.get(stack, environment, id), `${stack}/${environment}`);
      const state = d.attributes.state;
      if (state === "New") {
        await client.deployments.delete(stack, environment, id);
      } else if (state === "Submitted" || state === "Approved") {
        await client.deployments.invalidate(stack, environment, id);
        progress(`deployment ${id} on ${stack}/${environment} invalidated (was ${state})`);
      }
    } catch (error) {
      if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return;
      throw wrap(`Deployment ${id} on ${stack}/${environment} could not be retired`, error);
    }
  });
}
