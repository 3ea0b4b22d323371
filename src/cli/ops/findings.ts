/**
 * What `doctor` says about one part of an ops repository compared with the installed package,
 * decided from texts and versions only (the command reads the files and writes the fixes).
 */
import { major, satisfies, valid, validRange, gte } from "semver";
import { differsOnlyByVersion, readWorkflowMarker, renderWorkflow } from "./files";

/** One line of doctor's report. */
export interface Finding {
  /** The file it is about, relative to the ops repository. */
  readonly file: string;
  /** The line the user reads (without the file). */
  readonly says: string;
  /** True when it is behind the installed version (doctor then exits 1). */
  readonly behind: boolean;
  /** The file's new text, when `--write` brings it up to date. */
  readonly fix?: { readonly before: string; readonly after: string };
  /** A diff shown with the line (a file changed by hand that --write keeps). */
  readonly diff?: { readonly before: string; readonly after: string };
}

/**
 * A workflow file against its template of the installed version: up to date (undefined);
 * written by an earlier version and untouched, or differing only by the version (--write replaces
 * it); changed by hand (kept, with a diff: behind when its template changed since, a note when
 * the team only changed the current one).
 */
export function workflowFinding(
  file: string,
  text: string,
  template: { readonly name: string; readonly text: string },
  version: string,
): Finding | undefined {
  const marker = readWorkflowMarker(text);
  if (marker === undefined) {
    return {
      file,
      behind: false,
      says: `not written by stackwright init (no marker lines at its top): not compared with the template ${template.name}`,
    };
  }
  const current = renderWorkflow({ template: template.name, version, target: marker.target }, template.text);
  if (text === current) return undefined;
  if (marker.untouched) {
    return {
      file,
      behind: true,
      says: `stackwright ${marker.version}'s workflow, unchanged since written; ${version}'s differs (--write replaces it)`,
      fix: { before: text, after: current },
    };
  }
  if (differsOnlyByVersion(marker.body, template.text, marker.target)) {
    return {
      file,
      behind: true,
      says: `differs from stackwright ${version}'s template only by the version it names (--write sets ${version})`,
      fix: { before: text, after: current },
    };
  }
  if (marker.version === version) {
    return {
      file,
      behind: false,
      says: `changed by hand from stackwright ${version}'s template (kept; the diff to the template follows)`,
      diff: { before: text, after: current },
    };
  }
  return {
    file,
    behind: true,
    says: `changed by hand, and written by stackwright ${marker.version}: --write keeps it; merge the changes of ${version}'s template (the diff follows) by hand`,
    diff: { before: text, after: current },
  };
}

/** package.json's stackwright dependency (its spec as written) against the running version. */
export function dependencyFinding(spec: string | undefined, version: string): Finding | undefined {
  const file = "package.json";
  if (spec === undefined) {
    return {
      file,
      behind: true,
      says: "does not depend on stackwright (--write adds it at the installed version)",
    };
  }
  // A tarball, a path or a git URL: what it holds is what is installed.
  if (validRange(spec) === null) return undefined;
  if (satisfies(version, spec)) return undefined;
  return {
    file,
    behind: true,
    says: `asks for stackwright ${spec}, but ${version} is installed: run npm install (or npm ci)`,
  };
}

/**
 * package.json's `allowScripts` against the reviewed install scripts of the package's
 * dependencies (`unreviewed`: those it says nothing about). Undefined when it covers them all.
 */
export function installScriptsFinding(unreviewed: readonly string[]): Finding | undefined {
  if (unreviewed.length === 0) return undefined;
  const one = unreviewed.length === 1;
  return {
    file: "package.json",
    behind: true,
    says:
      `allowScripts says nothing of the install script${one ? "" : "s"} of ${unreviewed.join(", ")}, ` +
      `so npm warns on every install (--write records ${one ? "it" : "them"} as reviewed and not run)`,
  };
}

/**
 * The Pulumi CLI against the release of `@pulumi/pulumi` the package pins: the same major, at or
 * above it. Undefined when supported.
 */
export function pulumiCliFinding(
  cli: { readonly binary: string; readonly version: string } | undefined,
  pinned: string,
): Finding | undefined {
  if (cli === undefined) {
    return {
      file: "(Pulumi CLI)",
      behind: false,
      says: `none in the package's toolchain or on PATH: the first engine run provides Pulumi v${pinned}`,
    };
  }
  const version = valid(cli.version);
  if (version !== null && major(version) === major(pinned) && gte(version, pinned)) return undefined;
  return {
    file: "(Pulumi CLI)",
    behind: true,
    says:
      `${cli.binary} is Pulumi ${cli.version}; this stackwright supports v${major(pinned)}.x at or above v${pinned} ` +
      `(the release it pins): install one, or take it off PATH so that stackwright provides its own`,
  };
}
