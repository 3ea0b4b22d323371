import { describe, expect, it } from "vitest";
import { renderWorkflow } from "../../../../src/cli/ops/files";
import {
  dependencyFinding,
  installScriptsFinding,
  pulumiCliFinding,
  workflowFinding,
} from "../../../../src/cli/ops/findings";

const TEMPLATE = {
  name: "up.yml",
  text: "name: up\nuses: stackwright/stackwright@v__STACKWRIGHT_VERSION__\ntarget: __TARGET__\n",
};
const FILE = ".github/workflows/up.yml";
const written = (version: string) =>
  renderWorkflow({ template: "up.yml", version, target: "prod" }, TEMPLATE.text);

describe("doctor's finding about a workflow", () => {
  it("is none when the file is the installed version's template as init writes it", () => {
    expect(workflowFinding(FILE, written("0.3.0"), TEMPLATE, "0.3.0")).toBeUndefined();
  });

  it("is behind, with the new text, for an earlier version's untouched workflow", () => {
    const finding = workflowFinding(FILE, written("0.2.0"), TEMPLATE, "0.3.0");
    expect(finding).toMatchObject({ behind: true, fix: { after: written("0.3.0") } });
    expect(finding?.says).toContain("0.2.0");
  });

  it("is behind, with the new text, when only the version it names was changed by hand", () => {
    const edited = written("0.3.0").replace("@v0.3.0", "@v0.2.9");
    expect(workflowFinding(FILE, edited, TEMPLATE, "0.3.0")).toMatchObject({
      behind: true,
      fix: { after: written("0.3.0") },
    });
  });

  it("keeps a file the team changed, showing the diff; behind only when its template changed since", () => {
    const changed = written("0.3.0").replace("name: up", "name: deploy");
    const current = workflowFinding(FILE, changed, TEMPLATE, "0.3.0");
    expect(current).toMatchObject({ behind: false, diff: { before: changed, after: written("0.3.0") } });
    expect(current?.fix).toBeUndefined();
    const older = workflowFinding(
      FILE,
      written("0.2.0").replace("name: up", "name: deploy"),
      TEMPLATE,
      "0.3.0",
    );
    expect(older).toMatchObject({ behind: true });
    expect(older?.fix).toBeUndefined();
  });

  it("is a note when the file was not written by init", () => {
    expect(workflowFinding(FILE, "name: ours\n", TEMPLATE, "0.3.0")).toMatchObject({ behind: false });
  });
});

describe("doctor's finding about the stackwright dependency", () => {
  it("is none when the installed version satisfies what package.json asks for", () => {
    expect(dependencyFinding("0.3.0", "0.3.0")).toBeUndefined();
    expect(dependencyFinding("^0.3.0", "0.3.4")).toBeUndefined();
    expect(dependencyFinding("file:../stackwright-0.3.0.tgz", "0.3.0")).toBeUndefined();
  });

  it("is behind when package.json asks for another version, or for none", () => {
    expect(dependencyFinding("0.4.0", "0.3.0")).toMatchObject({ behind: true });
    expect(dependencyFinding(undefined, "0.3.0")).toMatchObject({ behind: true });
  });
});

describe("doctor's finding about the install scripts' review", () => {
  it("is none when allowScripts covers every reviewed install script", () => {
    expect(installScriptsFinding([])).toBeUndefined();
  });

  it("is behind, naming each package allowScripts says nothing of", () => {
    expect(installScriptsFinding(["protobufjs"])).toEqual({
      file: "package.json",
      behind: true,
      says: "allowScripts says nothing of the install script of protobufjs, so npm warns on every install (--write records it as reviewed and not run)",
    });
    expect(installScriptsFinding(["a", "b"])?.says).toMatch(
      /^allowScripts says nothing of the install scripts of a, b,.*records them/,
    );
  });
});

describe("doctor's finding about the Pulumi CLI", () => {
  const cli = (version: string) => ({ binary: "/usr/bin/pulumi", version });

  it("is none for the pinned release or a later one of the same major", () => {
    expect(pulumiCliFinding(cli("3.259.0"), "3.259.0")).toBeUndefined();
    expect(pulumiCliFinding(cli("3.300.1"), "3.259.0")).toBeUndefined();
  });

  it("is behind for an earlier release, another major or a version it cannot read", () => {
    for (const version of ["3.258.9", "4.0.0", "2.99.0", "dev"]) {
      expect(pulumiCliFinding(cli(version), "3.259.0")).toMatchObject({ behind: true });
    }
  });

  it("is a note when there is none yet", () => {
    expect(pulumiCliFinding(undefined, "3.259.0")).toMatchObject({ behind: false });
  });
});
