/**
 * What the data sources share: credentials in the program process and a per-run memo, so each
 * distinct call makes one request however many resources read it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  canonicalJson,
  DATA_READS_DIR_ENV,
  dataReadsFileName,
  readDigest,
  type DataRead,
  type DataReadsReport,
} from "../../src/api";
import { createClient, type DataReadName, type StackwrightClient } from "../../src/client";

export { DATA_READERS } from "../../src/client";
import { requireSettings, resolveSettings, type ApiSettings } from "../shared/credentials";
import { currentRun, processRun, programEnv } from "../program-process/program-run";

/** Forgets every memoised answer of the process's run (tests). */
export function resetDataCache(): void {
  processRun.memo.clear();
  processRun.answered.clear();
}

/** Stable text of the arguments: keys sorted, undefined dropped. */
export function cacheKey(name: string, args: unknown): string {
  return `${name}:${canonicalJson(args)}`;
}

/** What this run has read so far: each distinct call once, with the digest of its answer. */
export function readsSoFar(): DataRead[] {
  return [...currentRun().answered.values()];
}

/**
 * Writes this run's reads for `stack` where the CLI asked for them ({@link DATA_READS_DIR_ENV} of
 * the run's environment): the fingerprint shortcut compares them with the platform later. Only
 * a successful run's report is ever recorded by the CLI.
 */
export function writeReadsReport(stack: string): void {
  const dir = programEnv()[DATA_READS_DIR_ENV];
  if (dir === undefined || dir === "") return;
  const report: DataReadsReport = { stack, reads: readsSoFar() };
  fs.writeFileSync(path.join(dir, dataReadsFileName(stack)), JSON.stringify(report));
}

/**
 * The same report when the program process exits (a program run by the language host). A run
 * that fails before it exits normally writes a partial report, which the CLI never records.
 */
export function reportReadsAtExit(stack: string): void {
  process.once("exit", () => writeReadsReport(stack));
}

/** Credentials of the run: `STACKWRIGHT_*` variables of its environment, then stack config. */
export function programSettings(): ApiSettings {
  const config = new pulumi.Config("stackwright");
  return requireSettings(
    resolveSettings({ get: (key) => config.get(key.replace(/^stackwright:/, "")) }, programEnv()),
  );
}

/**
 * A data source that could not be read stops the program with one clear line (a RunError: the
 * SDK prints its message without a stack or an object dump) naming what was read and why. The
 * structured API error stays reachable as `cause`; none of them carries a token.
 */
export function readFailure(name: string, args: unknown, error: unknown): pulumi.RunError {
  const what = Object.entries(typeof args === "object" && args !== null ? args : {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  const reason = error instanceof Error ? error.message : String(error);
  const failure = new pulumi.RunError(
    `Stackwright could not read ${name}${what === "" ? "" : ` (${what})`}: ${reason}`,
  );
  Object.defineProperty(failure, "cause", { value: error, enumerable: false });
  return failure;
}

/**
 * Runs `fn` once per distinct (name, args) in this process; later calls share the first
 * promise. A failed call is forgotten so that a later call may try again.
 */
export function memoised<T>(
  name: DataReadName,
  args: object,
  fn: (client: StackwrightClient) => Promise<T>,
): Promise<T> {
  const key = cacheKey(name, args);
  const { memo, answered } = currentRun();
  const hit = memo.get(key);
  if (hit !== undefined) return hit as Promise<T>;
  const run = (async () => {
    // The run's environment names its proxies (and STACKWRIGHT_API_CONCURRENCY), like its credentials.
    const client = createClient({ ...programSettings(), environment: programEnv() });
    try {
      return await fn(client);
    } catch (error) {
      throw readFailure(name, args, error);
    } finally {
      await client.close();
    }
  })();
  memo.set(key, run);
  run.then(
    (answer) => {
      const recorded: unknown = JSON.parse(canonicalJson(args));
      const plain = typeof recorded === "object" && recorded !== null ? recorded : {};
      answered.set(key, {
        name,
        args: Object.fromEntries(Object.entries(plain)),
        digest: readDigest(answer),
      });
    },
    () => memo.delete(key),
  );
  return run;
}
