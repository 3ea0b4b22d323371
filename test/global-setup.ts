/**
 * Three things for the whole `vitest run`: a scratch directory that the files of all its projects
 * share ({@link RUN_DIR_KEY}: what is made once per run, such as the packed package of
 * test/helpers/packed-package.ts), removed at the end; the suite-wide token check; and a check
 * that the run left the build in dist/ as it found it (scratch projects hard-link its files, so a
 * test that wrote into one of theirs would write into the build every other test runs).
 *
 * Suite-wide token check. Setup makes one directory for this run and hands its path to every
 * test file (`inject(RECORDS_KEY)`); `test/helpers/client.ts` writes there every error and log
 * line of every client it creates, serialized every way a user might print it. Teardown reads
 * all of it and fails the run if any text holds a token of the seeds (or a token a test gave a
 * client), plain or inside the Basic header built from it.
 *
 * One check at the end, rather than one per file, covers files that forget to add it, and
 * clients a test builds with its own logger.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { DEFAULT_SEED_PATH, loadSeed } from "../src/emulator";
import { TEST_SEED_PATH } from "./helpers/emulator";

/** Key under which setup provides the records directory. */
export const RECORDS_KEY = "stackwrightClientRecords";
/** Key under which setup provides the run's shared scratch directory. */
export const RUN_DIR_KEY = "stackwrightRunDir";

declare module "vitest" {
  export interface ProvidedContext {
    [RECORDS_KEY]: string;
    [RUN_DIR_KEY]: string;
  }
}

/** One line of a records file (JSON). */
export type ClientRecord =
  /** Something a test saw: an error or a log event in one serialization. */
  | { kind: "text"; file: string; test: string; text: string }
  /** Credentials a test gave a client; their token must not show up either. */
  | { kind: "secret"; email: string; token: string };

/** A text that holds a secret, with the secret already blanked out for the report. */
export interface Leak {
  file: string;
  test: string;
  secret: string;
  excerpt: string;
}

/** Every user of the seeds the emulator tests run with: the demo seed and the test seed. */
export function seedUsers(): { email: string; token: string }[] {
  return [DEFAULT_SEED_PATH, TEST_SEED_PATH].flatMap((path) =>
    loadSeed(path).users.map((u) => ({ email: u.email, token: u.token })),
  );
}

/**
 * Finds texts that hold a token: the token itself or `base64(email:token)` (the Basic header's
 * value) for any email seen. `secret` names the token by its owner, never by its value.
 */
export function findLeaks(
  records: readonly ClientRecord[],
  users: readonly { email: string; token: string }[],
): Leak[] {
  const given = records.flatMap((r) => (r.kind === "secret" ? [{ ...r, source: "test token" }] : []));
  const credentials = [...users.map((u) => ({ ...u, source: "seed token" })), ...given];
  const emails = [...new Set(credentials.map((c) => c.email))];
  const forms = new Map<string, string>();
  for (const { email, token, source } of credentials) {
    if (forms.has(token)) continue;
    forms.set(token, `${source} of ${email}`);
    for (const other of emails) {
      const whose = other === email ? "" : ` of ${other}`;
      forms.set(
        Buffer.from(`${other}:${token}`).toString("base64"),
        `Basic header${whose} with the ${source} of ${email}`,
      );
    }
  }
  const leaks: Leak[] = [];
  for (const r of records) {
    if (r.kind !== "text") continue;
    for (const [form, secret] of forms) {
      const at = r.text.indexOf(form);
      if (at < 0) continue;
      let excerpt = r.text.slice(Math.max(0, at - 80), at + form.length + 80);
      // Blank every secret in the excerpt, not only this one: the report must not leak either.
      for (const [other, name] of forms) excerpt = excerpt.split(other).join(`[${name}]`);
      leaks.push({ file: r.file, test: r.test, secret, excerpt });
    }
  }
  return leaks;
}

/** Reads every records file of the directory. */
function readRecords(dir: string): ClientRecord[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) =>
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as ClientRecord),
    );
}

const DIST = resolve(__dirname, "..", "dist");

/** Each file of dist/ (its path from there) and the digest of its content. */
export function treeDigests(root: string): Map<string, string> {
  const digests = new Map<string, string>();
  if (!existsSync(root)) return digests;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    digests.set(relative(root, file), createHash("sha256").update(readFileSync(file)).digest("hex"));
  }
  return digests;
}

/** The files of `after` that differ from `before`: changed, added or gone. */
export function changedFiles(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}

export default function setup(project: TestProject): () => void {
  const distBefore = treeDigests(DIST);
  const dir = mkdtempSync(join(tmpdir(), "stackwright-client-records-"));
  project.provide(RECORDS_KEY, dir);
  // Vitest calls this once per project, in its own process: the name (that process and its start)
  // gives every project of the run the same directory.
  const runDir = join(tmpdir(), `stackwright-test-run-${process.pid}-${Math.round(performance.timeOrigin)}`);
  mkdirSync(runDir, { recursive: true });
  project.provide(RUN_DIR_KEY, runDir);
  return () => {
    rmSync(runDir, { recursive: true, force: true });
    const distChanged = changedFiles(distBefore, treeDigests(DIST));
    // A build during the run (the package's prepack, after sources changed) rewrites its
    // .tsbuildinfo too; a write through a scratch project's link does not.
    if (distChanged.length > 0 && !distChanged.includes(".tsbuildinfo")) {
      process.exitCode = 1;
      throw new Error(
        `The run changed ${distChanged.length} file(s) of ${DIST}: ${distChanged.slice(0, 10).join(", ")}. ` +
          "A scratch project's dist/ is hard-linked to it (test/helpers/scratch-project.ts): a test " +
          "may add files there but must write a file it changes anew (remove it first). Rebuild it: `rm -rf dist && npm run build` (the incremental build alone keeps a changed output).",
      );
    }
    const records = readRecords(dir);
    const leaks = findLeaks(records, seedUsers());
    if (leaks.length === 0) {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    const lines = leaks
      .slice(0, 20)
      .map((l) => `- ${l.file} > ${l.test}: ${l.secret} in ${JSON.stringify(l.excerpt)}`);
    // Vitest 4 only logs an error thrown by a global teardown ("error during close") and keeps
    // the exit code it already chose, so the failure is set here; the throw prints the report.
    process.exitCode = 1;
    throw new Error(
      `A token leaked into ${leaks.length} recorded error or log text(s) of the client tests:\n${lines.join("\n")}\n` +
        `All records of this run are kept in ${dir}. Find where the token enters the error or log ` +
        `event (src/client/errors.ts, src/client/http.ts) and redact it there.`,
    );
  };
}
