import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { commandLine, invocationOf, quietCommandLine } from "../../../src/project/invocation";
import { repoRoot } from "../../helpers/scratch-project";

describe("the command a message tells the user to run", () => {
  it("is the npm script in a checkout of this repository", () => {
    expect(commandLine("preview --target production")).toBe(
      "npm run stackwright -- preview --target production",
    );
    expect(quietCommandLine("env")).toBe("npm run --silent stackwright -- env");
    expect(invocationOf(path.join(repoRoot, "dist", "src", "project"))).toBe("npm run stackwright --");
  });

  it("is npx from a package installed under node_modules", () => {
    const installed = "/home/ops/sites/node_modules/stackwright/dist/src/project";
    expect(invocationOf(installed)).toBe("npx stackwright");
    expect(invocationOf("C:\\ops\\node_modules\\stackwright\\dist\\src\\project")).toBe("npx stackwright");
  });

  it("is not fooled by a directory whose name only contains node_modules", () => {
    expect(invocationOf("/work/my-node_modules-notes/stackwright/dist/src/project")).toBe(
      "npm run stackwright --",
    );
  });
});
