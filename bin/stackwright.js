#!/usr/bin/env node
// The `stackwright` command. The TypeScript sources compile to dist/ (npm run build).
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
