/**
 * The expression subset the workflow-steps test evaluates: what it understands gives Actions'
 * answers, and anything else fails, so no step of a workflow is run with a part left out.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate, type ExpressionContext, interpolate, shouldRun } from "../../helpers/workflow-expressions";
import { parseCommandFile } from "../../helpers/workflow-run";

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-expr-"));
fs.writeFileSync(path.join(workspace, "summary.md"), "# summary\n");

const context: ExpressionContext = {
  contexts: {
    github: { event: { before: "0".repeat(40), pull_request: { number: 7 } }, ref_name: "main" },
    inputs: { site: "acme-web" },
    secrets: { TOKEN: "s3cret" },
    vars: {},
    matrix: { shard: 2 },
    strategy: { "job-total": 4 },
    steps: { "app-token": { outputs: { token: "" } } },
  },
  strict: new Set(["github", "inputs", "matrix", "strategy", "steps"]),
  workspace,
};

describe("workflow expressions", () => {
  afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it("reads the contexts, with a missing secret or variable as empty", () => {
    expect(interpolate("--shard ${{ matrix.shard }}/${{ strategy.job-total }}", context)).toBe("--shard 2/4");
    expect(interpolate("${{ github.event.pull_request.number }}", context)).toBe("7");
    expect(interpolate("[${{ vars.NOT_SET }}]", context)).toBe("[]");
    expect(evaluate("steps.app-token.outputs.token || secrets.TOKEN", context)).toBe("s3cret");
  });

  it("compares as Actions does: strings without case, an unset value equal to ''", () => {
    expect(evaluate("vars.STACKWRIGHT_APP_ID != ''", context)).toBe(false);
    expect(evaluate("inputs.site == 'ACME-WEB'", context)).toBe(true);
    expect(evaluate("!(github.ref_name == 'main') && always()", context)).toBe(false);
  });

  it("hashes files that exist and answers '' for files that do not", () => {
    expect(evaluate("hashFiles('summary.md') != ''", context)).toBe(true);
    expect(evaluate("hashFiles('missing.md')", context)).toBe("");
  });

  it("runs a step after a failure only when its condition calls always()", () => {
    expect(shouldRun(undefined, false, context)).toBe(false);
    expect(shouldRun("hashFiles('summary.md') != ''", false, context)).toBe(false);
    expect(shouldRun("always() && hashFiles('summary.md') != ''", false, context)).toBe(true);
    expect(shouldRun("${{ inputs.site != '' }}", true, context)).toBe(true);
  });

  it("fails on anything outside the subset instead of reading it as empty", () => {
    expect(() => evaluate("runner.os", context)).toThrow(/the context 'runner'/);
    expect(() => evaluate("steps.no-such-step.outputs.x", context)).toThrow(
      /steps\.no-such-step is not defined/,
    );
    expect(() => evaluate("inputs.sight", context)).toThrow(/inputs\.sight is not defined/);
    expect(() => evaluate("github.evnt.before", context)).toThrow(/github\.evnt is not defined/);
    expect(() => evaluate("success()", context)).toThrow(/success\(\) is outside/);
    expect(() => evaluate("matrix.shard > 1", context)).toThrow(/outside the supported subset/);
    expect(() => evaluate("hashFiles('**/*.md')", context)).toThrow(/file names here/);
  });

  it("reads GITHUB_OUTPUT's name=value lines and NAME<<DELIMITER blocks", () => {
    expect(parseCommandFile("a=1\npaths<<EOF\n/x/one\n/x/two\nEOF\nb=x=y\n")).toEqual({
      a: "1",
      paths: "/x/one\n/x/two",
      b: "x=y",
    });
  });
});
