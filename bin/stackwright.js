#!/usr/bin/env node
// The `stackwright` command. The TypeScript sources compile to dist/ (npm run build).
"use strict";

// Before anything else loads: a version check must not pay for the SDK.
const first = process.argv[2];
if (first === "--version" || first === "-V") {
  console.log(require("../package.json").version);
  process.exit(0);
}

const path = require("node:path");
const root = path.resolve(__dirname, "..");

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
  // Installed in an ops repository, no Node of ours is there to run it with; this repository
  // installs Node 24 in node_modules/.bin, which npm scripts put first on PATH.
  const installed = root.split(path.sep).includes("node_modules");
  console.error(
    `stackwright needs Node.js 22 or later; this is Node.js ${process.versions.node}. ` +
      (installed
        ? "Install Node.js 22 or later (24 is the one it is tested with) and run it again."
        : "Run it through npm (npm start, npm run stackwright -- <command>) so the project's Node 24 from node_modules/.bin is used."),
  );
  // 4: the tool cannot run here (README, "Exit codes"; src/cli/kit/exit-codes.ts).
  process.exit(4);
}

// Node's on-disk compile cache (V8 code cache) for this process and every Node process the run
// starts (the program, the provider host, the emulator): each loads @pulumi/pulumi and our
// modules again, and with the cache it skips compiling them. Its default place is a folder
// under the OS temporary directory; NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1
// turns it off (both are Node's own).
if (process.env.NODE_DISABLE_COMPILE_CACHE === undefined) {
  const { enableCompileCache } = require("node:module");
  // Since Node.js 22.1.
  const enabled =
    typeof enableCompileCache === "function" ? enableCompileCache(process.env.NODE_COMPILE_CACHE) : undefined;
  if (enabled?.directory !== undefined) process.env.NODE_COMPILE_CACHE = enabled.directory;
}

// A checkout that was never built has no dist/: say how to build it, not `Cannot find module`.
if (!require("node:fs").existsSync(path.join(root, "dist", "src", "cli", "main.js"))) {
  console.error(
    `stackwright: ${path.join(root, "dist")} is missing (a checkout not built yet): run 'npm run build' in ${root}`,
  );
  process.exit(4);
}

// Before anything loads the Pulumi SDK: its closure serializer (with TypeScript and npm's package
// walker) is loaded on its first call only (dist/src/lazy-sdk/register.js says why).
require("../dist/src/lazy-sdk/register.js").deferClosureSerializer();

// Before anything loads node:sqlite: its "experimental" warning alone is dropped.
require("../dist/src/sqlite-warning.js");

// Before anything loads zod: its locales load when one is asked for (dist/src/zod-locales.js).
require("../dist/src/zod-locales.js");

require("../dist/src/cli/main.js")
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      // main() reports every failure itself; an error that reaches here is a bug.
      console.error(
        'stackwright: this is a bug in Stackwright, not in your settings; please report it with the lines below (see README.md, "Reporting a bug")',
      );
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
