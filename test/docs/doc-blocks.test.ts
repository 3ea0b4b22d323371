import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { documents, packageShim, runnableScript, shellBlocks } from "../helpers/doc-blocks";
import { repoRoot } from "../helpers/scratch-project";

function doc(text: string): { root: string; file: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "doc-blocks-"));
  fs.writeFileSync(path.join(root, "README.md"), text);
  return { root, file: "README.md" };
}

describe("the shell blocks of the docs", () => {
  it("are found by a Markdown parser, with the directives right above them", () => {
    const { root, file } = doc(
      [
        "Intro",
        "",
        "<!-- doc-test: api -->",
        '<!-- doc-test: expect "hello" -->',
        "```sh",
        "echo hello",
        "```",
        "",
        "- a list item with a block:",
        "",
        "  ```bash",
        "  echo nested",
        "  ```",
        "",
        "````md",
        "```sh",
        "not a block of its own",
        "```",
        "````",
        "",
      ].join("\n"),
    );
    const blocks = shellBlocks(root, file);
    expect(blocks.map((b) => [b.line, b.text, b.api, b.expects])).toEqual([
      [5, "echo hello\n", true, ["hello"]],
      [11, "echo nested\n", false, []],
    ]);
  });

  it("drop the skipped lines with their continuations, and only those", () => {
    const { root, file } = doc(
      [
        '<!-- doc-test: skip "npm ci": .ci/run runs it -->',
        "```sh",
        "npm ci --a \\",
        "  --b",
        "npm start",
        "```",
      ].join("\n"),
    );
    const [b] = shellBlocks(root, file);
    expect(b === undefined ? "" : runnableScript(b)).toBe("npm start\n");
  });

  it("refuse an unknown directive, a skip that matches nothing and a directive with no block under it", () => {
    expect(() => shellBlocks(doc("<!-- doc-test: maybe -->\n```sh\nls\n```\n").root, "README.md")).toThrow(
      "README.md:2: unknown doc-test directive 'maybe'",
    );
    expect(() =>
      shellBlocks(doc('<!-- doc-test: skip "rm": no -->\n```sh\nls\n```\n').root, "README.md"),
    ).toThrow('skip "rm" matches no line');
    expect(() =>
      shellBlocks(doc("<!-- doc-test: api -->\n\ntext\n\n```sh\nls\n```\n").root, "README.md"),
    ).toThrow("README.md:3: a doc-test directive is not right above a block");
  });

  it("mark a block that installs the package, and no other", () => {
    const { root, file } = doc(
      [
        "<!-- doc-test: package -->",
        "<!-- doc-test: api -->",
        "```sh",
        "npm install --save-dev stackwright",
        "```",
        "",
        "```sh",
        "npm start",
        "```",
      ].join("\n"),
    );
    expect(shellBlocks(root, file).map((b) => [b.package, b.api])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(() =>
      shellBlocks(
        doc('<!-- doc-test: package -->\n<!-- doc-test: server "up" -->\n```sh\nx\n```\n').root,
        "README.md",
      ),
    ).toThrow("README.md:3: a server block cannot be a package block");
  });

  it("install the packed tarball where a block installs stackwright, and leave every other npm and npx call alone", () => {
    // npm and npx stand-ins that print what they were asked, first on PATH as the real ones are.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "doc-blocks-bin-"));
    for (const tool of ["npm", "npx"]) {
      fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\necho "${tool} $*"\n`, { mode: 0o755 });
    }
    const tarball = "/tmp/a dir/it's/stackwright-0.2.0.tgz";
    const script = [
      "npm init -y",
      "npm install --save-dev stackwright",
      "npm i -D stackwright@latest left-pad",
      "npm install stackwright-other",
      "npm run build",
      "npx stackwright init --target production",
    ].join("\n");
    const out = execFileSync("bash", ["-e", "-c", packageShim(tarball) + script], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}` },
    });
    expect(out.trimEnd().split("\n")).toEqual([
      "npm init -y",
      `npm install --save-dev ${tarball} --prefer-offline --no-audit --no-fund`,
      `npm i -D ${tarball} left-pad --prefer-offline --no-audit --no-fund`,
      "npm install stackwright-other --prefer-offline --no-audit --no-fund",
      "npm run build",
      "npx --no stackwright init --target production",
    ]);
  });

  it("start a later install of stackwright from the first one's installed tree, and no other install", () => {
    // An npm stand-in that says what node_modules held when it ran, then installs a marker.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "doc-blocks-bin-"));
    fs.writeFileSync(
      path.join(bin, "npm"),
      '#!/bin/sh\necho "$(basename "$PWD"): $(ls node_modules 2>/dev/null)"\nmkdir -p node_modules && touch "node_modules/from-$(basename "$PWD")"\n',
      { mode: 0o755 },
    );
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "doc-blocks-seed-"));
    const seed = path.join(home, "seed");
    fs.mkdirSync(seed);
    const run = (dir: string, line: string) => {
      fs.mkdirSync(path.join(home, dir));
      return execFileSync("bash", ["-e", "-c", packageShim("/tmp/stackwright-0.2.0.tgz", seed) + line], {
        cwd: path.join(home, dir),
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}` },
      }).trim();
    };
    expect(run("other", "npm install left-pad")).toBe("other:");
    expect(run("first", "npm install --save-dev stackwright")).toBe("first:");
    expect(run("second", "npm install --save-dev stackwright")).toBe("second: from-first");
    expect(fs.readdirSync(path.join(home, "second", "node_modules")).sort()).toEqual([
      "from-first",
      "from-second",
    ]);
    expect(fs.readdirSync(path.join(seed, "node_modules"))).toEqual(["from-first"]);
    fs.rmSync(bin, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("of this repository all parse, and each one not run says why", () => {
    for (const file of documents(repoRoot)) {
      for (const b of shellBlocks(repoRoot, file)) {
        if (b.notRun !== undefined) expect(b.notRun.length, `${file}:${b.line}`).toBeGreaterThan(10);
      }
    }
  });
});
