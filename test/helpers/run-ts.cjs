// Runs a TypeScript entry file in a plain Node process, for tests that need a real child process
// (kill -9, signals). Each .ts file is transpiled on load; types are checked by tsc, not here.
// What TypeScript makes of a file is kept in node_modules/.cache/stackwright-run-ts, keyed by the
// compiler's version, the file's path and its text: loading TypeScript and transpiling the
// emulator's hundred files took 2.4 CPU-seconds in every such process, and a test run starts
// about twenty of them. TypeScript is loaded only when a file is not in the cache.
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const cacheDir = path.join(__dirname, "..", "..", "node_modules", ".cache", "stackwright-run-ts");
const compilerVersion = require("typescript/package.json").version;
let ts;

function transpile(source, filename) {
  ts ??= require("typescript");
  return ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2023,
      esModuleInterop: true,
    },
  }).outputText;
}

require.extensions[".ts"] = (module, filename) => {
  const source = fs.readFileSync(filename, "utf8");
  const key = crypto.createHash("sha256").update(`${compilerVersion}\0${filename}\0${source}`).digest("hex");
  const cached = path.join(cacheDir, `${key}.js`);
  let out;
  try {
    out = fs.readFileSync(cached, "utf8");
  } catch {
    out = transpile(source, filename);
    try {
      // Whole or not at all: another process may read it meanwhile.
      fs.mkdirSync(cacheDir, { recursive: true });
      const temporary = `${cached}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, out);
      fs.renameSync(temporary, cached);
    } catch {
      // A read-only tree: transpile every time.
    }
  }
  module._compile(out, filename);
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
