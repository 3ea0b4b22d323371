/**
 * The `engine` project's own global setup (vitest.config.mts), beside test/global-setup.ts: the
 * run's KMS key, which its scratch projects' secrets are sealed with (test/helpers/kms.ts), handed
 * to its files with `inject` (test/helpers/run-kms.ts) and stopped at the end of the run.
 */
import type { TestProject } from "vitest/node";
import { KMS_KEY, startTestKms } from "./helpers/kms";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { kms, close } = await startTestKms();
  project.provide(KMS_KEY, kms);
  return close;
}
