/**
 * How far a reader walks through the CLI to follow `drift` from its flags to the API: the static
 * import graph from src/cli/commands/drift.ts, as the compiled program loads it.
 *
 * A room is a folder directly under src/cli (`commands/`, `kit/`, `observation/`, ...); a file
 * directly in src/cli (`main.ts`) is a room of its own. The walk follows every import and
 * re-export that loads a module when drift.ts is loaded, and stops where it leaves src/cli for a
 * layer below (src/observe, src/project, src/client, ...), which never imports the CLI back
 * (layers.json). It does not follow
 * - `import type` (the compiler erases it: nothing is loaded), nor
 * - `import()`: code loaded only when a run needs it, which is not the way from the flags to the
 *   API (drift's engine checks, for the stacks whose proof does not hold).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");
const cli = path.join(root, "src", "cli");

/** The modules `file` loads when it is loaded (relative specifiers resolved to their .ts file). */
function loadedImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      if (!typesOnly) specifiers.push(statement.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      !statement.isTypeOnly
    ) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers.flatMap((specifier) => {
    if (!specifier.startsWith(".")) return []; // a package
    const base = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ""));
    const found = [`${base}.ts`, path.join(base, "index.ts")].find((f) => fs.existsSync(f));
    if (found === undefined) throw new Error(`${file}: cannot resolve ${specifier}`);
    return [found];
  });
}

/** The walk from `start`: the modules of src/cli it passes through, and those below it reaches. */
function walk(start: string): { inCli: string[]; below: string[] } {
  const inCli = new Set<string>();
  const below = new Set<string>();
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (inCli.has(file)) continue;
    inCli.add(file);
    for (const next of loadedImports(file)) {
      if (next.startsWith(`${cli}${path.sep}`)) queue.push(next);
      else below.add(path.relative(root, next));
    }
  }
  return { inCli: [...inCli].map((f) => path.relative(cli, f)), below: [...below] };
}

function roomOf(relativeToCli: string): string {
  const [first] = relativeToCli.split(path.sep);
  return first ?? relativeToCli;
}

describe("a walk of drift from its flags to the API", () => {
  const { inCli, below } = walk(path.join(cli, "commands", "drift.ts"));
  const rooms = [...new Set(inCli.map(roomOf))].sort();

  it("passes through at most three rooms of src/cli", () => {
    const byRoom = rooms.map((room) => `${room}: ${inCli.filter((f) => roomOf(f) === room).join(", ")}`);
    expect(rooms.length, byRoom.join("\n")).toBeLessThanOrEqual(3);
    expect(rooms, byRoom.join("\n")).toEqual(["commands", "kit", "observation"]);
  });

  it("reaches the API through the observation and the layers below the CLI", () => {
    // The walk is real: it goes through the command kit and the observed target, and leaves the
    // CLI for the fleet's observation, the project's settings and selection, and the API client.
    expect(inCli).toEqual(
      expect.arrayContaining([
        path.join("commands", "drift.ts"),
        path.join("kit", "command.ts"),
        path.join("observation", "observe-target.ts"),
      ]),
    );
    expect(below).toEqual(
      expect.arrayContaining([
        path.join("src", "observe", "index.ts"),
        path.join("src", "project", "target-settings.ts"),
        path.join("src", "project", "selection.ts"),
        path.join("src", "client", "index.ts"),
      ]),
    );
  });
});
