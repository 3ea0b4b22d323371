/**
 * The edits `promote` and `rollback` make, as a property: stack files drawn with comments, blank
 * lines, anchors and aliases, block and flow maps, block scalars, quoted keys and odd quoting in
 * random places (and sometimes CRLF line ends); one environment's deployment pinned to a sha with
 * a title such as either command writes. Each case checks, against the generator's own record of
 * what it wrote (not the editor's):
 *
 * - the result validates;
 * - it parses to exactly the intended values: the old file's, with that environment's deployment
 *   now `ref_type: sha`, the sha and the title, `adopt` gone, every other key as it was;
 * - no line outside that deployment's lines changed (lines before and after are byte-identical);
 * - an edit that would change a node another place reuses through an alias is refused, with
 *   nothing returned, exactly when the generator put such an alias there.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { validateStackFile } from "../../src/config";
import { EditRefusal, pinDeployment } from "../../src/edit";
import { count, fuzz } from "./harness";

const FILE = "test/fuzz/stack-file-edits.test.ts";
const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
/** A sha of digits and one `e`: plain, YAML would read it as a number. */
const NUMERIC_LOOKING_SHA = "1234567e89012345678901234567890123456789";

type Value = string | number | boolean;
type Deployment = Record<string, Value>;
interface Environment {
  deployment?: Deployment;
  lock?: Record<string, string>;
}

const refArb = fc.oneof(
  fc.record({ ref_type: fc.constantFrom("promote_from_uat", "redeploy") }),
  // A sha ref is a commit sha (validate refuses anything else); other refs are names.
  fc.record({ ref_type: fc.constant("sha"), ref: fc.constantFrom(SHA, NUMERIC_LOOKING_SHA) }),
  fc.record({
    ref_type: fc.constantFrom("branch", "tag", "package"),
    ref: fc.constantFrom(
      "main",
      "release/2026-11",
      "v1.4.0",
      "1.10",
      "0123",
      "feature: x",
      SHA,
      NUMERIC_LOOKING_SHA,
    ),
  }),
);
const textArb = fc.constantFrom(
  "Deploy main",
  "it's #1",
  "a: b",
  "[x] {y}",
  "- dash",
  "🚀 launch",
  'quote " inside',
  "trailing #",
  "true",
  "null",
  "42",
  "~",
  "@at",
  "`tick`",
  "% pct",
  "Promote 8f3c2a1 from uat",
);
const deploymentArb: fc.Arbitrary<Deployment> = fc
  .record(
    {
      ref: refArb,
      title: textArb,
      summary: textArb,
      approval: fc.constantFrom("bypass_and_start", "bypass", "request"),
      self_heal: fc.boolean(),
      fetch_first: fc.boolean(),
      trigger: fc.oneof(
        fc.constantFrom("2026-11-22", "x"),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom(1.5),
      ),
      timeout: fc.constantFrom("30m", "1h30m"),
      adopt: fc.integer({ min: 1, max: 999 }),
    },
    { requiredKeys: ["ref"] },
  )
  .map(({ ref, ...rest }) => ({ ...ref, ...rest }) as Deployment);
const environmentArb: fc.Arbitrary<Environment> = fc.record(
  {
    deployment: deploymentArb,
    lock: fc.oneof(fc.constant({}), fc.record({ message: textArb })),
  },
  { requiredKeys: [] },
);

const caseArb = fc.record({
  environments: fc.uniqueArray(
    fc.tuple(fc.constantFrom("uat", "prod", "test", "stage", "dev-1", "on"), environmentArb),
    {
      minLength: 1,
      maxLength: 4,
      selector: ([name]) => name,
    },
  ),
  /** Which environment to pin (an index into those with a deployment). */
  target: fc.nat(),
  /** Random decisions of the renderer, used in turn. */
  choices: fc.array(fc.nat(99), { minLength: 256, maxLength: 256 }),
  crlf: fc.boolean(),
  sha: fc.constantFrom(SHA, NUMERIC_LOOKING_SHA, "0000000000000000000000000000000000000001"),
  title: fc.constantFrom(
    "Promote 8f3c2a1 from uat",
    "Roll back to 3c4d5e6 (was 8f3c2a1)",
    "Promote 8f3c2a1 from uat [override: drift; window: INC-7 'hotfix' #now]",
    'Roll back to 3c4d5e6 (was 8f3c2a1) [override: window: "quoted": yes]',
  ),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** An anchor the renderer wrote, and whether an alias uses it. */
interface Anchor {
  readonly name: string;
  readonly path: readonly string[];
  readonly value: unknown;
  readonly kind: "scalar" | "deployment";
  aliased: boolean;
}

/** What the renderer wrote: the lines, where each deployment is, the anchors. */
interface Rendered {
  readonly lines: string[];
  /** Environment → [first line, last line] of its deployment (0-based, inclusive). */
  readonly spans: Map<string, [number, number]>;
  readonly anchors: Anchor[];
  /** The model as written (an aliased deployment is the one it aliases). */
  readonly model: Map<string, Environment>;
  /** Environment → how its deployment was written (for the counts). */
  readonly styles: Map<string, string>;
}

/** Renders a case as a stack file, drawing every style decision from `choices`. */
function render(c: Case): Rendered {
  let cursor = 0;
  const pick = (percent: number) => (c.choices[cursor++ % c.choices.length] ?? 0) < percent;
  const lines: string[] = [];
  const spans = new Map<string, [number, number]>();
  const anchors: Anchor[] = [];
  const model = new Map<string, Environment>();
  const styles = new Map<string, string>();
  let anchorCount = 0;
  const newAnchor = (path: readonly string[], value: unknown, kind: Anchor["kind"]) => {
    const anchor: Anchor = { name: `a${++anchorCount}`, path, value, kind, aliased: false };
    anchors.push(anchor);
    return anchor;
  };
  const key = (k: string) => (pick(15) ? `"${k}"` : pick(10) ? `'${k}'` : k);
  const quoteSingle = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const plainOk = (s: string, flow: boolean) =>
    /^[A-Za-z][A-Za-z0-9 ._/-]*$/.test(s) &&
    !/ $/.test(s) &&
    !["true", "false", "null", "on", "off", "yes", "no"].includes(s.toLowerCase()) &&
    !(flow && /[,[\]{}]/.test(s));
  /** A scalar in some style, maybe anchored, maybe an alias of an earlier equal one. */
  const scalar = (value: Value, path: readonly string[], flow: boolean): string => {
    const earlier = anchors.find((a) => a.kind === "scalar" && Object.is(a.value, value));
    if (earlier !== undefined && pick(40)) {
      earlier.aliased = true;
      return `*${earlier.name}`;
    }
    const anchor = pick(15) ? `&${newAnchor(path, value, "scalar").name} ` : "";
    if (typeof value !== "string") return `${anchor}${String(value)}`;
    const r = c.choices[cursor++ % c.choices.length] ?? 0;
    if (r < 35 && plainOk(value, flow)) return `${anchor}${value}`;
    if (r < 65 && !value.includes("\n")) return `${anchor}${quoteSingle(value)}`;
    return `${anchor}${JSON.stringify(value)}`;
  };
  const comment = () => (pick(25) ? ` # ${pick(50) ? "note: keep" : "#x 'q' \"d\""}` : "");
  const flowMap = (entries: [string, Value][], path: readonly string[]) =>
    `{ ${entries.map(([k, v]) => `${key(k)}: ${scalar(v, [...path, k], true)}`).join(", ")} }`;

  lines.push("# yaml-language-server: $schema=./schema.json");
  if (pick(30)) lines.push("# a comment: with 'quotes' and #hashes");
  lines.push(`${key("stack")}: ${scalar("acme-web", ["stack"], false)}${comment()}`);
  if (pick(50)) lines.push("");
  lines.push(`${key("environments")}:${comment()}`);
  for (const [name, original] of c.environments) {
    const env: Environment = { ...original };
    if (pick(30)) lines.push(pick(50) ? "" : "  # the next environment");
    const path = ["environments", name];
    if (pick(20)) {
      // The whole environment as one flow map on one line.
      const parts: string[] = [];
      if (env.deployment !== undefined) {
        parts.push(`deployment: ${flowMap(Object.entries(env.deployment), [...path, "deployment"])}`);
      }
      if (env.lock !== undefined) parts.push(`lock: ${flowMap(Object.entries(env.lock), [...path, "lock"])}`);
      if (env.deployment !== undefined) spans.set(name, [lines.length, lines.length]);
      styles.set(name, "flow map in a flow environment");
      lines.push(`  ${key(name)}: { ${parts.join(", ")} }${comment()}`);
      model.set(name, env);
      continue;
    }
    lines.push(`  ${key(name)}:${comment()}`);
    if (env.deployment === undefined && env.lock === undefined) {
      lines[lines.length - 1] = `  ${key(name)}: {}`;
    }
    const entries: [string, () => void][] = [];
    if (env.deployment !== undefined) {
      entries.push([
        "deployment",
        () => {
          const deployment = env.deployment ?? {};
          const start = lines.length;
          const base = anchors.find((a) => a.kind === "deployment");
          if (base !== undefined && pick(30)) {
            base.aliased = true;
            env.deployment = base.value as Deployment;
            styles.set(name, "alias of another deployment");
            lines.push(`    ${key("deployment")}: *${base.name}${comment()}`);
          } else if (pick(30)) {
            const anchor = pick(30)
              ? `&${newAnchor([...path, "deployment"], deployment, "deployment").name} `
              : "";
            styles.set(name, "flow map");
            lines.push(
              `    ${key("deployment")}: ${anchor}${flowMap(Object.entries(deployment), [...path, "deployment"])}`,
            );
          } else {
            const anchor = pick(30)
              ? ` &${newAnchor([...path, "deployment"], deployment, "deployment").name}`
              : "";
            lines.push(`    ${key("deployment")}:${anchor}${comment()}`);
            styles.set(name, "block map");
            for (const [k, v] of Object.entries(deployment)) {
              if (pick(15)) lines.push(pick(50) ? "      # why this key" : "");
              if (typeof v === "string" && k === "title" && /^\S(.*\S)?$/.test(v) && pick(20)) {
                lines.push(`      ${key(k)}: ${pick(50) ? "|-" : ">-"}`, `        ${v}`);
                styles.set(name, "block map with a block scalar");
                continue;
              }
              lines.push(`      ${key(k)}: ${scalar(v, [...path, "deployment", k], false)}${comment()}`);
            }
          }
          spans.set(name, [start, lines.length - 1]);
        },
      ]);
    }
    if (env.lock !== undefined) {
      const lock = env.lock;
      entries.push([
        "lock",
        () => {
          if (Object.keys(lock).length === 0 || pick(50)) {
            lines.push(`    ${key("lock")}: ${flowMap(Object.entries(lock), [...path, "lock"])}${comment()}`);
          } else {
            lines.push(`    ${key("lock")}:`);
            for (const [k, v] of Object.entries(lock)) {
              lines.push(`      ${key(k)}: ${scalar(v, [...path, "lock", k], false)}${comment()}`);
            }
          }
        },
      ]);
    }
    if (pick(50)) entries.reverse();
    for (const [, write] of entries) write();
    model.set(name, env);
  }
  if (pick(30)) lines.push("# the end");
  lines.push("");
  return { lines, spans, anchors, model, styles };
}

/** The file's values as the model says (what a YAML parser must read). */
function valuesOf(model: ReadonlyMap<string, Environment>): unknown {
  return { stack: "acme-web", environments: Object.fromEntries(model) };
}

/** True when the pin must change a node that an alias elsewhere reuses. */
function touchesShared(r: Rendered, environment: string, pinned: Deployment): boolean {
  const deployment = r.model.get(environment)?.deployment ?? {};
  const changes = (k: string): boolean =>
    k === "adopt" ? deployment["adopt"] !== undefined : !Object.is(deployment[k], pinned[k]);
  return r.anchors.some((a) => {
    if (!a.aliased || a.path[0] !== "environments" || a.path[1] !== environment) return false;
    if (a.path.length === 3) return true; // the deployment map itself
    return a.path[2] === "deployment" && changes(a.path[3] ?? "");
  });
}

describe("pinning a deployment in a stack file", () => {
  it("changes only that deployment's lines, validates, and reads back as exactly the intended values", async () => {
    await fuzz(
      "stack-file-edits",
      caseArb.filter((c) => c.environments.some(([, e]) => e.deployment !== undefined)),
      async (c, counts) => {
        const r = render(c);
        const eol = c.crlf ? "\r\n" : "\n";
        const text = r.lines.join(eol);
        expect(validateStackFile("case.yaml", text).errors, text).toEqual([]);
        expect(parse(text), text).toEqual(valuesOf(r.model));

        const withDeployment = [...r.model].filter(([, e]) => e.deployment !== undefined).map(([n]) => n);
        const environment = withDeployment[c.target % withDeployment.length] ?? "";
        const before = r.model.get(environment)?.deployment ?? {};
        const pinned: Deployment = { ...before, ref_type: "sha", ref: c.sha, title: c.title };
        delete pinned["adopt"];
        const span = r.spans.get(environment) ?? [0, 0];
        const shared = touchesShared(r, environment, pinned);
        if (before["ref_type"] === "sha" && before["ref"] === c.sha) {
          const outcome = pinDeployment("case.yaml", text, environment, { sha: c.sha, title: c.title });
          expect(outcome.changed).toBe(false);
          count(counts, "already pinned");
          return;
        }

        let result: string;
        try {
          const outcome = pinDeployment("case.yaml", text, environment, { sha: c.sha, title: c.title });
          if (!outcome.changed) throw new Error("expected a change");
          result = outcome.text;
        } catch (error) {
          if (error instanceof EditRefusal && error.code === "shared-anchor" && shared) {
            count(counts, "refused: shared through an anchor");
            return;
          }
          throw new Error(`${String(error)}\n--- file ---\n${text}`, { cause: error });
        }
        expect(shared, `expected a refusal: a node of ${environment} is reused by an alias\n${text}`).toBe(
          false,
        );

        // Exactly the intended values.
        const intended = new Map(r.model);
        intended.set(environment, { ...r.model.get(environment), deployment: pinned });
        expect(parse(result), `${text}\n--- became ---\n${result}`).toEqual(valuesOf(intended));
        expect(validateStackFile("case.yaml", result).errors, result).toEqual([]);

        // Only the lines of that deployment changed.
        const old = text.split(eol);
        const now = result.split(eol);
        const [first, last] = span;
        const tail = old.length - 1 - last;
        expect(now.slice(0, first), result).toEqual(old.slice(0, first));
        expect(now.slice(now.length - tail), result).toEqual(old.slice(old.length - tail));
        if (c.crlf) expect(result.replaceAll("\r\n", "")).not.toContain("\n");
        count(counts, "pinned");
        count(counts, `pinned: ${r.styles.get(environment) ?? "?"}`);
        if (c.crlf) count(counts, "pinned: CRLF");
        if (r.anchors.some((a) => a.aliased)) count(counts, "pinned with aliases in the file");
      },
      { bounded: 400, file: FILE },
    );
  });
});
