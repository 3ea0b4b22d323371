#!/usr/bin/env node
// The `stackwright` command. The TypeScript sources compile to dist/ (npm run build).
"use strict";

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
  console.error(
    `stackwright needs Node.js 22 or later; this is Node.js ${process.versions.node}. ` +
      "Run it through npm (npm start, npm run stackwright -- <command>) so the project's Node 24 from node_modules/.bin is used.",
  );
  // 4: the tool cannot run here (README, "Exit codes"; src/cli/kit/exit-codes.ts).
  process.exit(4);
}

// Before anything loads node:sqlite: its "experimental" warning alone is dropped.
require("../dist/src/sqlite-warning.js");

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
