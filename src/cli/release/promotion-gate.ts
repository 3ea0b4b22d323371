/**
 * What `promote` asks of the source environment's build besides what the platform says of it
 * (pin-change.ts, live-build.ts): that it passed the checks of `verify:`, when the source declares
 * them, and that it has run there for the target's `promotion.min_soak`. Pure: the caller reads
 * the state (the verifications the Deployment resources recorded) and the platform (the
 * deployment's times) and gives the clock.
 */
import { failureText, shortSha, verdictFor, type StatedDeployment, type Verification } from "../../api";
import { durationText, verifySpecOf, type StackConfig } from "../../config";

/** The gates, with the flag that lifts each and how its override reads in the title. */
export const GATE_FLAGS = { unverified: "allow-unverified", early: "allow-early" } as const;
export const GATE_LABELS = { unverified: "unverified", early: "early" } as const;
/** What to do instead of the override, by gate. */
export const GATE_ADVICE = {
  unverified: "promote a build that passed its checks",
  early: "promote it once it has soaked",
} as const;
export type GateKind = keyof typeof GATE_FLAGS;

export interface GateProblem {
  readonly kind: GateKind;
  /** One clause, naming the environments and the build; the flag is added by the caller. */
  readonly text: string;
}

export interface GateInput {
  readonly apiStack: string;
  readonly from: string;
  readonly to: string;
  /** The source declares `verify:`: its builds are promoted only once they passed. */
  readonly declaresVerify: boolean;
  /** The target's `promotion.min_soak`, in seconds. */
  readonly minSoakSeconds: number | undefined;
  /** The build the source runs and the deployment that put it there. */
  readonly sha: string;
  readonly deployment: StatedDeployment | undefined;
  /** What the target's state records of the source's verifications. */
  readonly verifications: readonly Verification[];
  /** The per-file stack read, and why it could not be, for the refusal. */
  readonly stateStack: string;
  readonly unreadable: string | undefined;
  readonly now: Date;
}

/**
 * Whether an environment of a stack file is verified after each deployment: its own `verify:`,
 * or the file's top-level `verify:` when it has a deployment (the rule the program applies).
 */
export function declaresVerify(stack: StackConfig | undefined, environment: string): boolean {
  if (stack === undefined || !Object.hasOwn(stack.environments, environment)) return false;
  const env = stack.environments[environment];
  return env !== undefined && verifySpecOf(stack, env) !== undefined;
}

/** The target's `promotion.min_soak`, in seconds, when its file sets one. */
export function minSoakOf(stack: StackConfig | undefined, environment: string): number | undefined {
  if (stack === undefined || !Object.hasOwn(stack.environments, environment)) return undefined;
  return stack.environments[environment]?.promotion?.min_soak;
}

/**
 * When the deployment put its build in place: its last change of state (a Completed deployment's
 * is when it completed), in unix seconds; undefined when the platform gives no time.
 */
export function deployedAt(d: StatedDeployment | undefined): number | undefined {
  const a = d?.attributes;
  const times = [a?.date_updated_unix, a?.date_started_unix, a?.date_created_unix].filter(
    (t): t is number => typeof t === "number" && t > 0,
  );
  return times.length === 0 ? undefined : Math.max(...times);
}

/** What stands against promoting the source's build under the two gates (none: it may go). */
export function promotionGate(input: GateInput): GateProblem[] {
  const problems: GateProblem[] = [];
  const where = `${input.apiStack}/${input.from}`;
  const build = `${where}'s build ${shortSha(input.sha)}`;
  if (input.declaresVerify) {
    const verdicts = input.verifications.flatMap((v) => {
      const verdict = verdictFor(v, input.sha);
      return verdict === undefined ? [] : [{ v, verdict }];
    });
    const passed = verdicts.some((x) => x.verdict === "passed");
    const failed = verdicts.find((x) => x.verdict === "failed" || x.verdict === "rolled_back");
    if (!passed && failed !== undefined) {
      problems.push({ kind: "unverified", text: `${build} failed verification: ${failureText(failed.v)}` });
    } else if (!passed) {
      const why =
        input.unreadable !== undefined
          ? input.unreadable
          : `no check of it is recorded in ${input.stateStack}'s state`;
      problems.push({
        kind: "unverified",
        text: `${input.from} declares verify: but ${build} was not verified (${why})`,
      });
    }
  }
  if (input.minSoakSeconds !== undefined) {
    const since = deployedAt(input.deployment);
    const soak = durationText(input.minSoakSeconds);
    if (since === undefined) {
      problems.push({
        kind: "early",
        text:
          `cannot tell how long ${build} has run there (the platform gives no time for ` +
          `${input.deployment === undefined ? "the deployment that put it there" : `deployment ${input.deployment.id}`}), ` +
          `and ${input.apiStack}/${input.to} asks for promotion.min_soak ${soak}`,
      });
    } else {
      const ran = Math.floor(input.now.getTime() / 1000) - since;
      if (ran < input.minSoakSeconds) {
        const ready = new Date((since + input.minSoakSeconds) * 1000)
          .toISOString()
          .slice(0, 16)
          .replace("T", " ");
        problems.push({
          kind: "early",
          text:
            `${build} has run there for ${durationText(Math.max(ran, 0))}, less than ${input.apiStack}/${input.to}'s ` +
            `promotion.min_soak ${soak} (ready at ${ready} UTC)`,
        });
      }
    }
  }
  return problems;
}
