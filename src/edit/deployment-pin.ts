/**
 * Pins an environment's `deployment` to one commit: `ref_type: sha`, the full sha and a title
 * that says what it is, every other key of the deployment kept (approval, self_heal, timeout,
 * ...), `adopt` removed (it would claim an old deployment instead of deploying the pinned sha).
 * The file must validate before and after; the edit itself is byte-exact (yaml-edit.ts).
 */
import { type DeploymentConfig, type StackConfig, formatErrorLine, validateStackFile } from "../config";
import { EditRefusal } from "./errors";
import { editMap } from "./yaml-edit";

/** What to pin: the full sha, and the deployment's new title. */
export interface DeploymentPin {
  readonly sha: string;
  readonly title: string;
}

/** The outcome of {@link pinDeployment}. */
export type PinOutcome =
  | {
      /** The deployment already deploys this sha: nothing to write. */
      readonly changed: false;
      readonly stack: StackConfig;
      readonly before: DeploymentConfig;
    }
  | {
      readonly changed: true;
      readonly stack: StackConfig;
      readonly before: DeploymentConfig;
      readonly after: DeploymentConfig;
      /** The new content of the file. */
      readonly text: string;
    };

/** The file's stack, when the file validates; refuses with its first error otherwise. */
export function validStack(
  file: string,
  text: string,
  code: "invalid-before" | "invalid-after",
): StackConfig {
  const result = validateStackFile(file, text);
  const first = result.errors[0];
  if (result.stack !== undefined && first === undefined) return result.stack;
  const what =
    code === "invalid-before"
      ? "the stack file does not validate (fix it first)"
      : "the change would leave a stack file that does not validate, so nothing was written";
  throw new EditRefusal(code, file, "", `${what}: ${first === undefined ? file : formatErrorLine(first)}`);
}

/** Pins `environment`'s deployment in the stack file `text` (read from `file`) to `pin`. */
export function pinDeployment(
  file: string,
  text: string,
  environment: string,
  pin: DeploymentPin,
): PinOutcome {
  const stack = validStack(file, text, "invalid-before");
  const where = `environments.${environment}.deployment`;
  const env = Object.hasOwn(stack.environments, environment) ? stack.environments[environment] : undefined;
  if (env === undefined) {
    const known = Object.keys(stack.environments).join(", ") || "none";
    throw new EditRefusal(
      "missing",
      file,
      where,
      `${file}: environment '${environment}' is not in this file (it has: ${known}); add it with a deployment first`,
    );
  }
  const before = env.deployment;
  if (before === undefined) {
    throw new EditRefusal(
      "missing",
      file,
      where,
      `${file}: environments.${environment} has no deployment, so Stackwright does not manage what it runs; add one first`,
    );
  }
  if (before.ref_type === "sha" && before.ref === pin.sha) return { changed: false, stack, before };
  const next = editMap(file, text, ["environments", environment, "deployment"], {
    set: [
      ["ref_type", "sha"],
      ["ref", pin.sha],
      ["title", pin.title],
    ],
    remove: ["adopt"],
  });
  const after = validStack(file, next, "invalid-after").environments[environment]?.deployment;
  if (after === undefined)
    throw new EditRefusal("verify-failed", file, where, `${file}: ${where} vanished in the edit`);
  return { changed: true, stack, before, after, text: next };
}
