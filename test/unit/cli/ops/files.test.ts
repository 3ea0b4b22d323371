import { describe, expect, it } from "vitest";
import {
  differsOnlyByVersion,
  mergePackageJson,
  newPackageJson,
  pulumiYamlText,
  readWorkflowMarker,
  renderWorkflow,
  targetFileText,
} from "../../../../src/cli/ops/files";
import { PROGRAM_MAIN } from "../../../../src/cli/ops/package";
import { parse } from "yaml";

const TEMPLATE = [
  "name: up",
  "jobs:",
  "  up:",
  "    steps:",
  "      - uses: stackwright/stackwright@v__STACKWRIGHT_VERSION__",
  "        with: { command: up --target __TARGET__ }",
  "",
].join("\n");
const SOURCE = { template: "up.yml", version: "1.2.3", target: "production" };

describe("a rendered workflow", () => {
  it("has its placeholders replaced by the version and the target", () => {
    const text = renderWorkflow(SOURCE, TEMPLATE);
    expect(text).toContain("stackwright/stackwright@v1.2.3");
    expect(text).toContain("up --target production");
    expect(text).not.toContain("__");
  });

  it("says in its first lines which template, version and target it was written from", () => {
    const marker = readWorkflowMarker(renderWorkflow(SOURCE, TEMPLATE));
    expect(marker).toMatchObject({ ...SOURCE, untouched: true });
  });

  it("is no longer untouched once a line below the marker changes", () => {
    const text = renderWorkflow(SOURCE, TEMPLATE).replace("name: up", "name: deploy");
    expect(readWorkflowMarker(text)?.untouched).toBe(false);
  });

  it("has no marker when its first lines were removed", () => {
    expect(readWorkflowMarker(TEMPLATE)).toBeUndefined();
  });

  it("differs only by the version when someone changed the version it names", () => {
    const body = readWorkflowMarker(renderWorkflow(SOURCE, TEMPLATE))?.body ?? "";
    expect(differsOnlyByVersion(body.replace("@v1.2.3", "@v1.1.0"), TEMPLATE, "production")).toBe(true);
    expect(differsOnlyByVersion(body.replace("name: up", "name: deploy"), TEMPLATE, "production")).toBe(
      false,
    );
    expect(differsOnlyByVersion(body, TEMPLATE, "staging")).toBe(false);
  });
});

describe("the package.json of an ops repository", () => {
  it("is new: depends on exactly the running version and has the stackwright script", () => {
    const json = JSON.parse(newPackageJson("Our Ops", "0.2.0")) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: "our-ops",
      private: true,
      scripts: { stackwright: "stackwright" },
      dependencies: { stackwright: "0.2.0" },
      allowScripts: { protobufjs: false },
    });
  });

  it("keeps an existing file's content, order and indentation and gains only the script and the install scripts' review", () => {
    const existing =
      '{\n    "name": "ops",\n    "devDependencies": {\n        "stackwright": "^0.2.0"\n    }\n}\n';
    const merged = mergePackageJson(existing, "0.2.1");
    expect(merged.added).toEqual(["scripts.stackwright", "allowScripts.protobufjs"]);
    expect(merged.text).toBe(
      '{\n    "name": "ops",\n    "devDependencies": {\n        "stackwright": "^0.2.0"\n    },\n' +
        '    "scripts": {\n        "stackwright": "stackwright"\n    },\n' +
        '    "allowScripts": {\n        "protobufjs": false\n    }\n}\n',
    );
  });

  it("gains the dependency at the running version when it has none, keeping its other dependencies", () => {
    const merged = mergePackageJson(
      '{"dependencies":{"left-pad":"1.0.0"},"scripts":{"stackwright":"x"},"allowScripts":{"protobufjs":false}}',
      "0.2.0",
    );
    expect(merged.added).toEqual(["dependencies.stackwright (0.2.0)"]);
    expect(JSON.parse(merged.text)).toEqual({
      dependencies: { "left-pad": "1.0.0", stackwright: "0.2.0" },
      scripts: { stackwright: "x" },
      allowScripts: { protobufjs: false },
    });
    expect(merged.text.endsWith("\n")).toBe(false);
  });

  it("keeps the team's own review of an install script, allowed or pinned, and the entries of other packages", () => {
    for (const allowScripts of [{ protobufjs: true }, { "protobufjs@7.6.6": true }, { protobufjs: false }]) {
      const existing = JSON.stringify({
        dependencies: { stackwright: "0.2.0" },
        scripts: { stackwright: "stackwright" },
        allowScripts,
      });
      expect(mergePackageJson(existing, "0.2.0")).toEqual({ text: existing, added: [] });
    }
    const other = mergePackageJson(
      '{"dependencies":{"stackwright":"0.2.0"},"scripts":{"stackwright":"stackwright"},"allowScripts":{"sharp":true,"protobufjs-cli":true}}',
      "0.2.0",
    );
    expect(other.added).toEqual(["allowScripts.protobufjs"]);
    expect(JSON.parse(other.text)).toMatchObject({
      allowScripts: { sharp: true, "protobufjs-cli": true, protobufjs: false },
    });
  });

  it("is left byte for byte when it lacks nothing", () => {
    const existing =
      '{ "dependencies": { "stackwright": "0.2.0" }, "scripts": { "stackwright": "stackwright" }, "allowScripts": { "protobufjs": false } }';
    expect(mergePackageJson(existing, "0.2.0")).toEqual({ text: existing, added: [] });
  });

  it("is refused when it is not a JSON object, or its scripts or allowScripts are not objects", () => {
    expect(() => mergePackageJson("[]", "0.2.0")).toThrow(/not a JSON object/);
    expect(() => mergePackageJson("{", "0.2.0")).toThrow(SyntaxError);
    expect(() => mergePackageJson('{"scripts":[]}', "0.2.0")).toThrow(/scripts is not an object/);
    expect(() => mergePackageJson('{"allowScripts":true}', "0.2.0")).toThrow(/allowScripts is not an object/);
  });
});

describe("the project and target files", () => {
  it("Pulumi.yaml runs the installed package's program", () => {
    expect(parse(pulumiYamlText())).toMatchObject({
      name: "stackwright",
      runtime: "nodejs",
      main: PROGRAM_MAIN,
    });
  });

  it("the target file holds the API URL and e-mail, quoted as YAML needs", () => {
    const text = targetFileText({
      target: "production",
      apiUrl: "https://api.example.com/v1",
      email: "ops@example.com",
    });
    expect(parse(text)).toEqual({
      config: { "stackwright:apiUrl": "https://api.example.com/v1", "stackwright:email": "ops@example.com" },
    });
  });
});
