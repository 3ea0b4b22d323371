import type { DeploymentState } from "../api";

/** Operations that move a deployment from one state to another. */
export type Transition =
  | "submit"
  | "approve"
  | "reject"
  | "invalidate"
  | "start"
  | "run"
  | "complete"
  | "fail"
  | "abort"
  | "delete";

/** Legal transitions of a deployment (docs/emulator.md, "Deployments"): from-states and the state each transition leads to. */
export const TRANSITIONS = {
  submit: { from: ["New"], to: "Submitted" },
  approve: { from: ["New", "Submitted"], to: "Approved" },
  reject: { from: ["Submitted"], to: "Rejected" },
  invalidate: { from: ["New", "Submitted", "Approved", "Rejected"], to: "Invalid" },
  start: { from: ["Approved"], to: "Queued" },
  run: { from: ["Queued"], to: "Deploying" },
  complete: { from: ["Deploying"], to: "Completed" },
  abort: { from: ["Queued", "Deploying"], to: "Aborting" },
  fail: { from: ["New", "Submitted", "Approved", "Queued", "Deploying", "Aborting"], to: "Failed" },
  delete: { from: ["New", "Submitted", "Invalid", "Approved", "Rejected"], to: "Deleted" },
} as const satisfies Record<Transition, { from: readonly DeploymentState[]; to: DeploymentState }>;

export type TransitionResult = { ok: true; to: DeploymentState } | { ok: false; message: string };

/** Decides a transition; the refusal names the transition and the current state. */
export function transition(from: DeploymentState, via: Transition): TransitionResult {
  const rule = TRANSITIONS[via];
  const allowed: readonly DeploymentState[] = rule.from;
  if (allowed.includes(from)) return { ok: true, to: rule.to };
  return {
    ok: false,
    message: `Cannot ${via} a deployment in state '${from}' (allowed from: ${rule.from.join(", ")})`,
  };
}
