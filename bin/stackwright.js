#!/usr/bin/env node
// The `stackwright` command. The TypeScript sources compile to dist/ (npm run build).
"use strict";

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
  console.error(
    `stackwright needs Node 22 or later; this is Node ${process.versions.node}. ` +
      "Run it through npm (npm start, npm run stackwright -- <command>) so the project's Node 24 from node_modules/.bin is used.",
  );
  process.exit(1);
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
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = 1;
    },
  );
