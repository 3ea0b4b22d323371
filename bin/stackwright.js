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

// node:sqlite (the emulator's store) is stable enough for us but still flagged experimental in
// Node 24; its one-time warning would only confuse operators, so it alone is silenced.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === "string" ? warning : (warning && warning.message) || "";
  if (/SQLite is an experimental feature/.test(text)) return;
  return emitWarning.call(process, warning, ...rest);
};

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
