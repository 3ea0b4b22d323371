/**
 * The shell blocks of README.md and docs/*.md, as a user reads them: each fenced block whose
 * language is a shell, with the `doc-test:` directives of the HTML comments just above it, which
 * say how the docs test runs it (test/e2e/docs-commands.test.ts). markdown-it finds the blocks, so
 * a fence inside a list or a longer fence is read as a Markdown reader reads it.
 *
 * Directives (one `<!-- doc-test: ... -->` comment each, any number, right above the block):
 * - `not run: REASON`: the block is not run here (a real platform URL, GitHub-only, ...).
 * - `skip "PREFIX": REASON`: the block runs without its lines that start with PREFIX.
 * - `api`: the block runs with STACKWRIGHT_API_URL, _EMAIL and _API_TOKEN set to an emulator of
 *   the test's (as CI sets them); without it, none of the three is set.
 * - `exit N`: the exit code the block must end with (default 0).
 * - `expect "TEXT"`: its output must contain TEXT (any number of them).
 * - `server "TEXT"`: the block is a server that runs until stopped: it must print TEXT, then it is
 *   stopped as a person does (Ctrl-C: SIGINT to its process group) and must exit with its `exit`
 *   code (`npm run` exits 130 when its script is interrupted).
 * - `package`: the block installs the `stackwright` package into a repository of the user's, as
 *   the README's install does. It runs in a directory of its own outside the checkout (one per
 *   document, shared by its package blocks), with shell functions `npm` and `npx` in front of it
 *   ({@link packageShim}): `npm install` (or `i`, `add`) of `stackwright` or `stackwright@VERSION`
 *   installs a tarball the test packed once from this checkout (`npm pack`), from npm's cache
 *   where it can, a later document's install starting from the first one's installed tree; `npx` never fetches a package, so `npx stackwright` is the one installed. What
 *   the block shows is what a user runs; what it installs is this checkout, never a registry's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import MarkdownIt from "markdown-it";

export const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);

export interface DocBlock {
  /** The document, relative to the repository root. */
  readonly file: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  readonly text: string;
  readonly notRun?: string;
  readonly skips: readonly { readonly prefix: string; readonly reason: string }[];
  readonly api: boolean;
  readonly exit: number;
  readonly expects: readonly string[];
  readonly server?: string;
  /** Installs of `stackwright` are of this checkout's tarball ({@link packageShim}). */
  readonly package: boolean;
}

const DIRECTIVE = /<!--\s*doc-test:\s*([\s\S]*?)\s*-->/g;

/** The documents whose shell blocks a user (or a contributor) is told to run. */
export function documents(repoRoot: string): string[] {
  const docs = fs
    .readdirSync(path.join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", "CONTRIBUTING.md", ...docs].filter((f) => fs.existsSync(path.join(repoRoot, f)));
}

/** Every shell block of one document, in order; a malformed directive throws, naming its line. */
export function shellBlocks(repoRoot: string, file: string): DocBlock[] {
  const source = fs.readFileSync(path.join(repoRoot, file), "utf8");
  const tokens = new MarkdownIt({ html: true }).parse(source, {});
  const blocks: DocBlock[] = [];
  let pending: string[] = [];
  for (const token of tokens) {
    if (token.type === "html_block") {
      for (const m of token.content.matchAll(DIRECTIVE)) pending.push(m[1] ?? "");
      continue;
    }
    if (token.type === "fence") {
      const lang = token.info.trim().split(/\s+/)[0] ?? "";
      const line = (token.map?.[0] ?? 0) + 1;
      if (SHELL_LANGUAGES.has(lang)) blocks.push(block(file, line, token.content, pending));
      else if (pending.length > 0)
        throw new Error(`${file}:${line}: doc-test directives above a ${lang || "plain"} block`);
      pending = [];
      continue;
    }
    // Paragraph tokens come in open/inline/close triples; anything but HTML between a directive
    // and its block detaches the directive.
    if (pending.length > 0 && token.type !== "html_block") {
      throw new Error(
        `${file}:${(token.map?.[0] ?? 0) + 1}: a doc-test directive is not right above a block`,
      );
    }
  }
  return blocks;
}

function block(file: string, line: number, text: string, directives: readonly string[]): DocBlock {
  const skips: { prefix: string; reason: string }[] = [];
  const expects: string[] = [];
  let notRun: string | undefined;
  let api = false;
  let exit = 0;
  let server: string | undefined;
  let pkg = false;
  for (const d of directives) {
    let m: RegExpMatchArray | null;
    if ((m = /^not run:\s*(\S[\s\S]*)$/.exec(d))) notRun = m[1];
    else if ((m = /^skip "([^"]+)":\s*(\S[\s\S]*)$/.exec(d)))
      skips.push({ prefix: m[1] ?? "", reason: m[2] ?? "" });
    else if (d === "api") api = true;
    else if ((m = /^exit (\d+)$/.exec(d))) exit = Number(m[1]);
    else if ((m = /^expect "([^"]+)"$/.exec(d))) expects.push(m[1] ?? "");
    else if ((m = /^server "([^"]+)"$/.exec(d))) server = m[1];
    else if (d === "package") pkg = true;
    else throw new Error(`${file}:${line}: unknown doc-test directive '${d}'`);
  }
  if (pkg && server !== undefined) {
    throw new Error(`${file}:${line}: a server block cannot be a package block (it runs as one exec)`);
  }
  for (const s of skips) {
    if (!text.split("\n").some((l) => l.startsWith(s.prefix))) {
      throw new Error(`${file}:${line}: skip "${s.prefix}" matches no line of the block`);
    }
  }
  return {
    file,
    line,
    text,
    ...(notRun !== undefined ? { notRun } : {}),
    skips,
    api,
    exit,
    expects,
    ...(server !== undefined ? { server } : {}),
    package: pkg,
  };
}

/** Single-quoted for bash, whatever the text holds. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The shell functions a `package` block runs behind: `npm install stackwright[@VERSION]` (or
 * `i`, `add`) installs `tarball` instead, offline where npm's cache allows; every other npm
 * command is npm's own. `npx` runs only what is installed (`--no`), so nothing is fetched.
 *
 * With `seed` (a directory whose `node_modules` holds an install of the package, such as the
 * run's `installedTree`, or none yet: then the first such install is a whole one, kept there as
 * hard links), an install into a directory without `node_modules` starts from a hard-linked copy
 * of it: npm still resolves the package and its
 * dependencies, writes `package.json` and the lockfile, and adds or prunes whatever differs, but
 * does not unpack the same 300 packages again (about 8 CPU-seconds each time).
 */
export function packageShim(tarball: string, seed?: string): string {
  const kept = seed === undefined ? "" : `${shellQuote(seed)}/node_modules`;
  return [
    "npm() {",
    '  case "${1:-}" in',
    "    install | i | add)",
    "      local args=() a ours=",
    '      for a in "$@"; do',
    '        case "$a" in',
    `          stackwright | stackwright@*) args+=(${shellQuote(tarball)}) ours=1 ;;`,
    '          *) args+=("$a") ;;',
    "        esac",
    "      done",
    ...(seed === undefined
      ? []
      : [
          `      if [ -n "$ours" ] && [ ! -e node_modules ] && [ -d ${kept} ]; then cp -al ${kept} node_modules; fi`,
        ]),
    '      command npm "${args[@]}" --prefer-offline --no-audit --no-fund || return',
    ...(seed === undefined
      ? []
      : [`      if [ -n "$ours" ] && [ ! -e ${kept} ]; then cp -al node_modules ${kept}; fi`]),
    "      ;;",
    '    *) command npm "$@" ;;',
    "  esac",
    "}",
    'npx() { command npx --no "$@"; }',
    "",
  ].join("\n");
}

/** The script the test runs for a block: its text without the skipped lines (and their `\` continuations). */
export function runnableScript(b: DocBlock): string {
  const out: string[] = [];
  let skipping = false;
  for (const l of b.text.split("\n")) {
    const skip: boolean = skipping || b.skips.some((s) => l.startsWith(s.prefix));
    skipping = skip && l.trimEnd().endsWith("\\");
    if (!skip) out.push(l);
  }
  return out.join("\n");
}
