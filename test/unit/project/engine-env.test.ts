import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";
import { afterEach, describe, expect, it } from "vitest";
import { commandOf, pulumiCommand, pulumiVersionOf } from "../../../src/project/engine-env";

/** A tool root (here also the project) whose `.tools/bin/pulumi` is a script that counts the times it is asked. */
function projectWithCli(version: string): { dir: string; asked: () => number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-cli-"));
  const bin = path.join(dir, ".tools", "bin");
  fs.mkdirSync(bin, { recursive: true });
  const count = path.join(dir, "asked");
  fs.writeFileSync(path.join(bin, "pulumi"), `#!/bin/sh\necho x >> '${count}'\necho v${version}\n`, {
    mode: 0o755,
  });
  return {
    dir,
    asked: () => (fs.existsSync(count) ? fs.readFileSync(count, "utf8").split("\n").length - 1 : 0),
  };
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the project's Pulumi CLI as the engine runs it", () => {
  it("is made from a version the same binary said before exactly as the SDK makes it by asking", async () => {
    const { dir } = projectWithCli("3.259.0");
    made.push(dir);
    const asked = await PulumiCommand.get({ root: path.join(dir, ".tools"), skipVersionCheck: true });
    const known = commandOf(PulumiCommand, path.join(dir, ".tools"), "3.259.0");
    expect(Object.getPrototypeOf(known)).toBe(PulumiCommand.prototype);
    expect(known.command).toBe(asked.command);
    expect(known.version?.format()).toBe(asked.version?.format());
    expect(Object.keys(known).sort()).toEqual(Object.keys(asked).sort());
  });

  it("asks the binary its version once, then again only when the binary changes", async () => {
    const project = projectWithCli("3.259.0");
    made.push(project.dir);
    expect((await pulumiCommand(project.dir, project.dir)).version?.format()).toBe("3.259.0");
    expect((await pulumiCommand(project.dir, project.dir)).version?.format()).toBe("3.259.0");
    expect(await pulumiVersionOf(project.dir, project.dir)).toBe("3.259.0");
    expect(project.asked()).toBe(1);

    // A rebuilt CLI: another size and time, so the remembered answer is not its answer.
    const binary = path.join(project.dir, ".tools", "bin", "pulumi");
    fs.writeFileSync(binary, `${fs.readFileSync(binary, "utf8").replace("3.259.0", "3.260.0")}# rebuilt\n`);
    fs.utimesSync(binary, new Date(), new Date(Date.now() + 5_000));
    expect((await pulumiCommand(project.dir, project.dir)).version?.format()).toBe("3.260.0");
    expect(project.asked()).toBe(2);
  });

  it("asks nothing for another project the same tool root serves, the answer being kept beside the CLI", async () => {
    const tool = projectWithCli("3.259.0");
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-project-"));
    made.push(tool.dir, other);
    expect((await pulumiCommand(tool.dir, tool.dir)).version?.format()).toBe("3.259.0");
    expect(await pulumiVersionOf(other, tool.dir)).toBe("3.259.0");
    expect((await pulumiCommand(other, tool.dir)).version?.format()).toBe("3.259.0");
    expect(tool.asked()).toBe(1);
    expect(fs.existsSync(path.join(tool.dir, ".tools", "pulumi-cli.json"))).toBe(true);
  });

  it("keeps the answer with the project when it cannot be kept beside the CLI", async () => {
    const tool = projectWithCli("3.259.0");
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-project-"));
    made.push(tool.dir, other);
    // A directory where the file would go: no write lands there, whoever runs the test.
    fs.mkdirSync(path.join(tool.dir, ".tools", "pulumi-cli.json"));
    expect((await pulumiCommand(other, tool.dir)).version?.format()).toBe("3.259.0");
    expect(await pulumiVersionOf(other, tool.dir)).toBe("3.259.0");
    expect(fs.existsSync(path.join(other, ".stackwright", "pulumi-cli.json"))).toBe(true);
    expect(tool.asked()).toBe(1);
  });
});
