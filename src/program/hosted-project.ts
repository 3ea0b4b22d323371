/**
 * Whether a project's program is this very program, decided from its Pulumi.yaml alone: kept
 * apart from host.ts, which loads the SDK and gRPC, so that a command that ends before any engine
 * run (an `up` whose inputs did not change) never loads them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

/** The file of this program that Pulumi.yaml's `main` names (main.ts, compiled). */
const OWN_MAIN = path.join(__dirname, "main.js");

/** The project whose program is this very program: its name and the program's directory. */
export interface HostedProject {
  /** Pulumi.yaml's `name`. */
  readonly name: string;
  /** The directory of Pulumi.yaml's `main`: the engine's working directory for the program. */
  readonly programDir: string;
}

/**
 * The project, when its program (Pulumi.yaml's `main`) is this very program, so that hosting it
 * here runs what the language host would run. A project that names another program (a fixture,
 * a fork) keeps it: its engine runs start it in the language host, as plain `pulumi` does.
 */
export function hostedProject(projectDir: string): HostedProject | undefined {
  try {
    const settings: unknown = parse(fs.readFileSync(path.join(projectDir, "Pulumi.yaml"), "utf8"));
    if (typeof settings !== "object" || settings === null) return undefined;
    const main = "main" in settings ? settings.main : undefined;
    const name = "name" in settings ? settings.name : undefined;
    if (typeof main !== "string" || typeof name !== "string") return undefined;
    const file = path.resolve(projectDir, main);
    if (fs.realpathSync(file) !== fs.realpathSync(OWN_MAIN)) return undefined;
    return { name, programDir: path.dirname(file) };
  } catch {
    // No Pulumi.yaml, no such file, or not YAML: the language host will say what is wrong.
    return undefined;
  }
}
