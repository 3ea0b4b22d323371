import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadStackSync } from "../../../src/config";

describe("loading one API stack for its per-file stack", () => {
  let dir: string;
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "load-stack-"));
    write("web.yaml", "stack: acme-web # the site\nenvironments:\n  uat:\n    lock:\n      message: m\n");
    write("intranet.yaml", "stack: 'acme-intranet'\nenvironments:\n  test:\n    lock: { message: x }\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("parses only the file that declares the stack", () => {
    write("intranet.yaml", "stack: acme-intranet\nenvironments:\n  test:\n    nonsense: 1\n");
    const loaded = loadStackSync(dir, "acme-web");
    expect(loaded.ok && loaded.state.stacks.map((s) => s.stack)).toEqual(["acme-web"]);
    expect(loaded.ok && loaded.state.sourceFiles["acme-web"]).toBe(path.join(dir, "web.yaml"));
  });

  it("loads every file, with every error, when a file's stack cannot be read from its text", () => {
    write("odd.yaml", "{ stack: acme-odd, environments: { uat: { nonsense: 1 } } }\n");
    const loaded = loadStackSync(dir, "acme-web");
    expect(loaded.ok).toBe(false);
    expect(loaded.errors.map((e) => path.basename(e.file))).toContain("odd.yaml");
  });

  it("loads every file when two declare the stack, so the duplicate is reported", () => {
    write("web-copy.yaml", "stack: acme-web\nenvironments: {}\n");
    const loaded = loadStackSync(dir, "acme-web");
    expect(loaded.ok).toBe(false);
    expect(loaded.errors.some((e) => e.message.includes("acme-web"))).toBe(true);
  });

  it("loads every file when no file declares the stack, so the program can name the known ones", () => {
    const loaded = loadStackSync(dir, "acme-ghost");
    expect(loaded.ok && loaded.state.stacks.map((s) => s.stack)).toEqual(["acme-intranet", "acme-web"]);
  });
});
