/** `getModules`: installed modules of an environment, optionally filtered by name (endpoint 5). */
import * as pulumi from "@pulumi/pulumi";
import type { InstalledModule } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** Arguments of {@link getModules}. */
export interface ModulesArgs extends EnvironmentArgs {
  /** Module names as in the dependency lock file; all modules when absent. */
  filters?: readonly string[] | undefined;
}

/** Installed modules (memoised per run and arguments). */
export function fetchModules(args: ModulesArgs): Promise<InstalledModule[]> {
  return memoised("modules", args, (c) =>
    DATA_READERS.modules.read(c, {
      ...args,
      filters: args.filters === undefined ? undefined : [...args.filters],
    }),
  );
}

/** {@link fetchModules} as an Output. */
export function getModules(args: ModulesArgs): pulumi.Output<InstalledModule[]> {
  return pulumi.output(fetchModules(args));
}
