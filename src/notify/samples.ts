/**
 * One sample of each event, for `stackwright notify test`: the shapes a real run sends, with
 * example values and `test: true`, so an operator can see how a channel shows them.
 */
import { buildUrn, typeToken, type NotifyEvent, type NotifyEventName, type Verification } from "../api";
import { driftEvents, stackRunEvents, type EventContext } from "./events";

/** A verification that failed (and, for `rolled_back`, the build before it deployed again). */
function sampleVerification(result: "failed" | "rolled_back"): Verification {
  return {
    result,
    deployment_id: "0",
    sha: "0".repeat(40),
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:05:00.000Z",
    attempts: 30,
    failed_check: { index: 0, target: "/health", expected: "status 200" },
    answer: {
      url: "https://www.example.com/health",
      status: 503,
      latency_ms: 40,
      body_excerpt: "a sample answer: nothing was checked, this is `stackwright notify test`",
      error: null,
    },
    rolled_back_to:
      result === "rolled_back" ? { deployment_id: "1", sha: "1".repeat(40), result: "passed" } : null,
  };
}

/** A sample of each of `names`, about `apiStack`'s environment `environment`. */
export function sampleEvents(
  names: readonly NotifyEventName[],
  apiStack: string,
  environment: string,
  context: EventContext,
): NotifyEvent[] {
  const ctx = { ...context, test: true };
  const pulumiStack = `${ctx.target}.${apiStack}`;
  const link = "https://deploy.example.com/naut/project/example/environment/example/deploy/0";
  const made = (state: string, extra: Record<string, unknown> = {}) => ({
    sequence: 0,
    timestamp: 0,
    resOutputsEvent: {
      metadata: {
        op: "create" as const,
        urn: buildUrn({
          stack: pulumiStack,
          project: "stackwright",
          qualifiedType: typeToken("Deployment"),
          name: `${apiStack}/${environment}`,
        }),
        type: typeToken("Deployment"),
        provider: "",
        new: {
          type: typeToken("Deployment"),
          urn: "",
          id: "0",
          parent: "",
          provider: "",
          inputs: { stack: apiStack, environment, ref: "main" },
          outputs: { deployment_id: "0", state, sha: "0".repeat(40), link, ...extra },
        },
      },
    },
  });
  const restore = (status: string, name: string) => ({
    sequence: 0,
    timestamp: 0,
    resOutputsEvent: {
      metadata: {
        op: "create" as const,
        urn: buildUrn({
          stack: pulumiStack,
          project: "stackwright",
          qualifiedType: typeToken("SnapshotRestore"),
          name: `${apiStack}/${environment}/${name}`,
        }),
        type: typeToken("SnapshotRestore"),
        provider: "",
        new: {
          type: typeToken("SnapshotRestore"),
          urn: "",
          id: "0",
          parent: "",
          provider: "",
          inputs: { stack: apiStack, environment },
          outputs: { transfer_id: "0", status },
        },
      },
    },
  });
  const base = { apiStack, pulumiStack, exitCode: 0, events: [] };
  const samples: NotifyEvent[] = [
    ...stackRunEvents({ ...base, events: [made("Completed")] }, ctx),
    ...stackRunEvents({ ...base, events: [made("Failed")] }, ctx),
    ...stackRunEvents({ ...base, events: [made("Submitted")] }, ctx),
    ...stackRunEvents(
      { ...base, events: [made("Completed", { verification: sampleVerification("failed") })] },
      ctx,
    ),
    ...stackRunEvents(
      { ...base, events: [made("Completed", { verification: sampleVerification("rolled_back") })] },
      ctx,
    ),
    ...stackRunEvents(
      { ...base, events: [restore("Finished", "sample-restore"), restore("Failed", "sample-restore-2")] },
      ctx,
    ),
    ...stackRunEvents(
      {
        ...base,
        exitCode: 1,
        failure: "a sample failure: nothing failed, this is `stackwright notify test`",
        recoveredLocks: [
          { holder: `stack ${pulumiStack} is being updated by example-host pid 0`, reason: "a sample" },
        ],
        unknownRestores: [{ name: "sample-restore", why: "a sample" }],
        override: { reason: "a sample override reason", environments: [environment] },
      },
      ctx,
    ),
    ...driftEvents(
      {
        new: [
          {
            apiStack,
            environment,
            kind: "deployment",
            desired: "a".repeat(40),
            live: "b".repeat(40),
            message: "a sample drift",
          },
        ],
        resolved: [
          {
            apiStack,
            environment,
            kind: "deployment",
            desired: "a".repeat(40),
            live: "a".repeat(40),
            message: "a sample drift",
          },
        ],
      },
      ctx,
    ),
  ];
  // One sample of each name asked for, in the order of the list above.
  const first = new Map<string, NotifyEvent>();
  for (const e of samples) if (names.includes(e.event) && !first.has(e.event)) first.set(e.event, e);
  return [...first.values()];
}
