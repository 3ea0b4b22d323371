/**
 * The check of a file a command will write when it ends (`--json FILE`, `--summary FILE`), made
 * before the command reads or changes anything: a path that cannot be written fails the command
 * at once, with one line, instead of after the work whose result it was to hold.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "./exit-codes";

/** Throws a usage error naming `--flag` when `file` cannot be written as a file; `-` (stdout) passes. */
export function checkOutputPath(flag: string, file: string | undefined): void {
  if (file === undefined || file === "-") return;
  const target = path.resolve(file);
  const dir = path.dirname(target);
  let problem: string | undefined;
  if (!fs.existsSync(dir)) problem = `the directory ${dir} does not exist: create it or write elsewhere`;
  else if (!fs.statSync(dir).isDirectory()) problem = `${dir} is not a directory`;
  else if (fs.existsSync(target) && fs.statSync(target).isDirectory())
    problem = `${target} is a directory: name a file`;
  else {
    try {
      fs.accessSync(fs.existsSync(target) ? target : dir, fs.constants.W_OK);
    } catch {
      problem = `${fs.existsSync(target) ? target : dir} is not writable`;
    }
  }
  if (problem !== undefined) throw new UsageError(`--${flag} ${file}: ${problem}`);
}
