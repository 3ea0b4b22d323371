/**
 * Scratch projects sealed with the run's KMS key (test/helpers/kms.ts), for the test files of a
 * project that runs the engine: the key comes with `inject` from test/kms-setup.ts. A module of
 * its own because it loads vitest, which test/helpers/scratch-project.ts must not (helper
 * processes outside vitest use that one).
 */
import { inject } from "vitest";
import { KMS_KEY, TestKms } from "./kms";
import { createScratchProject, type ScratchOptions, type ScratchProject } from "./scratch-project";

/** The run's key; a clear error in a project whose global setup started none. */
export function runKms(): TestKms {
  const provided = TestKms.safeParse(inject(KMS_KEY));
  if (!provided.success) {
    throw new Error(
      "this vitest project has no KMS key (test/kms-setup.ts starts one for the `engine` project): " +
        'give the scratch project secrets: "passphrase"',
    );
  }
  return provided.data;
}

export interface ProjectOptions extends Omit<ScratchOptions, "kms"> {
  /**
   * `kms` (the default): the stacks' secrets sealed with the run's key, as a production target's
   * are. `passphrase`: the demo's `dev` as the repository has it (the built-in passphrase), and a
   * random passphrase for a fixture program's stacks: for what is about passphrases, and for files
   * whose project runs no engine.
   */
  readonly secrets?: "kms" | "passphrase";
}

/** A scratch project (test/helpers/scratch-project.ts) whose secrets are sealed as `options` says. */
export function scratchProject(options: ProjectOptions = {}): ScratchProject {
  const { secrets = "kms", ...rest } = options;
  return createScratchProject(secrets === "kms" ? { ...rest, kms: runKms() } : rest);
}
