// Runs a TypeScript entry file in a plain Node process, for tests that need a real child process
// (kill -9, signals). Each .ts file is transpiled on load; types are checked by tsc, not here.
const fs = require("node:fs");
const ts = require("typescript");

require.extensions[".ts"] = (module, filename) => {
  const source = fs.readFileSync(filename, "utf8");
  const out = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2023,
      esModuleInterop: true,
    },
  });
  module._compile(out.outputText, filename);
};

const entry = process.argv[2];
if (entry === undefined) {
  console.error("usage: node run-ts.cjs ENTRY.ts [args...]");
  process.exit(2);
}
// The entry takes the script's place in argv, as if Node had run it directly.
const file = require("node:path").resolve(entry);
process.argv.splice(1, 2, file);
require(file);
