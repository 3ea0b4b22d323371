// Lint rules for our TypeScript. `any` is an error: parse unknown data with zod instead.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = {
  require: "readonly",
  module: "writable",
  exports: "writable",
  process: "readonly",
  console: "readonly",
  __dirname: "readonly",
};

// The layers of docs/architecture.md ("Layers and import rules"): who may import whom. A relative import that reaches a forbidden
// layer (any path segment naming it) fails the lint.
const layer = (files, forbidden, why, packages = []) => ({
  files,
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            regex: `^\\.\\.?/(?:.*/)?(?:${forbidden.join("|")})(?:/.*)?$`,
            message: `${why} (docs/architecture.md: nothing imports upward)`,
          },
        ],
        paths: packages.map((name) => ({ name, message: why, allowTypeImports: true })),
      },
    ],
  },
});
const layers = [
  layer(
    ["src/api/**"],
    ["client", "emulator", "config", "program", "cli", "providers", "observe", "safe-text"],
    "src/api imports none of ours",
  ),
  // Platform text made safe per medium (terminal, YAML comment, Markdown, chat, HTML): every
  // layer that renders may import it; it imports nothing of ours.
  layer(
    ["src/safe-text/**"],
    [
      "api",
      "client",
      "emulator",
      "config",
      "importer",
      "program",
      "cli",
      "providers",
      "observe",
      "notify",
      "edit",
    ],
    "src/safe-text imports none of ours",
  ),
  layer(
    ["src/client/**"],
    ["emulator", "config", "program", "cli", "providers", "observe"],
    "src/client imports only src/api",
  ),
  layer(
    ["src/emulator/**"],
    ["client", "config", "program", "cli", "providers", "observe"],
    "src/emulator imports only src/api",
  ),
  layer(
    ["src/config/**"],
    ["client", "emulator", "program", "cli", "providers", "observe"],
    "src/config imports none of ours but api",
  ),
  layer(
    ["src/importer/**"],
    ["client", "emulator", "config", "program", "cli", "providers", "observe"],
    "src/importer imports only src/api: it decides what an imported file says, the CLI reads and writes",
  ),
  layer(
    ["providers/**"],
    ["emulator", "config", "program", "cli", "observe"],
    "providers import only src/client and src/api",
  ),
  // Inside providers/, which process a file runs in (providers/README.md): the provider
  // process has only the serialized provider, which loads provider-process/ by path.
  layer(
    ["providers/provider-process/**"],
    ["emulator", "config", "program", "cli", "data", "program-process"],
    "providers/provider-process imports src/client, src/api and providers/shared only",
    ["@pulumi/pulumi"],
  ),
  layer(
    ["providers/program-process/**", "providers/data/**"],
    ["emulator", "config", "program", "cli", "provider-process"],
    "the program process reaches providers/provider-process only through the serialized provider (program-process/provider.ts)",
  ),
  // The dynamic-provider plugin's process serves any serialized provider; it knows none of ours
  // and must not load the SDK's runtime (the point of having it).
  layer(
    ["providers/provider-host/**"],
    [
      "api",
      "client",
      "emulator",
      "config",
      "program",
      "cli",
      "data",
      "program-process",
      "provider-process",
      "shared",
    ],
    "providers/provider-host imports none of ours, and of the SDK only its generated messages",
    ["@pulumi/pulumi"],
  ),
  layer(
    ["providers/shared/**"],
    ["emulator", "config", "program", "cli", "program-process", "provider-process", "data"],
    "providers/shared is loaded by both processes: it imports src/client and src/api only",
    ["@pulumi/pulumi"],
  ),
  // Notifications: events, sink formats and delivery; the CLI calls it after a run.
  layer(
    ["src/notify/**"],
    ["client", "emulator", "program", "cli", "providers", "observe"],
    "src/notify imports only src/config and src/api",
  ),
  layer(
    ["src/edit/**"],
    ["client", "emulator", "program", "cli", "providers", "observe"],
    "src/edit imports only src/config and src/api",
  ),
  // The observe layer reads (files, state backend, API) and never writes; the CLI's commands and
  // what reports on the fleet use it. It is neither the program nor the providers.
  layer(
    ["src/observe/**"],
    ["emulator", "program", "cli", "providers"],
    "src/observe imports only src/api, src/client and src/config",
    ["@pulumi/pulumi"],
  ),
  layer(
    ["src/program/**"],
    ["client", "emulator", "cli", "observe"],
    "src/program imports only src/config and providers",
  ),
  // The CLI calls the API itself only before the engine starts (the preflight) and for commands
  // that are API calls, not desired state (logs, snapshot download, history, and the reads of
  // promote and rollback, which change files through src/edit); everything else goes through
  // the engine.
  // The engine runs the program; for a `stackwright` run it runs it in the CLI's own process,
  // hosted through src/program's entry point (src/program/host.ts). Nothing else of the program
  // or of providers/ is the CLI's to call.
  layer(
    ["src/cli/**"],
    ["program/.+", "providers"],
    "src/cli hosts the program only through src/program's entry point (index.ts) and never calls providers/",
  ),
  // Inside src/cli, from the bottom up: the command kit (flags, output, exit codes), the engine run,
  // reports (summaries, facts), the display of a run (built from the engine's events), gates (preflight, change windows), the state backend, a target's
  // settings (--target, --project, its file and secrets, read one way by every command), the fleet
  // run, an ops repository's files (what init writes and doctor compares); commands sit on top and
  // nothing imports them. Each folder may import only those below it.
  ...[
    ["kit", ["engine", "report", "display", "gates", "state", "settings", "fleet", "ops", "commands"]],
    ["engine", ["report", "display", "gates", "state", "settings", "fleet", "ops", "commands"]],
    ["report", ["display", "gates", "state", "settings", "fleet", "ops", "commands"]],
    ["display", ["gates", "state", "settings", "fleet", "ops", "commands"]],
    ["gates", ["state", "settings", "fleet", "ops", "commands"]],
    ["state", ["settings", "fleet", "ops", "commands"]],
    ["settings", ["fleet", "ops", "commands"]],
    ["fleet", ["ops", "commands"]],
    ["ops", ["commands"]],
  ].map(([folder, above]) =>
    layer(
      [`src/cli/${folder}/**`],
      ["program/.+", "providers", ...above],
      `src/cli/${folder} imports only the folders of src/cli below it (kit < engine < report < display < gates < state < settings < fleet < ops < commands), and the program only through its entry point`,
    ),
  ),
];

// Every eslint-disable says why, after " -- " (a directive without a reason fails the lint).
const disableNeedsReason = {
  meta: {
    type: "suggestion",
    messages: { reason: "say why after ' -- ': an eslint-disable without its reason is refused" },
  },
  create: (context) => ({
    Program: () => {
      for (const comment of context.sourceCode.getAllComments()) {
        const text = comment.value.trim();
        if (/^eslint-disable(?:-next-line|-line)?(?:\s|$)/.test(text) && !/\s--\s*\S/.test(text)) {
          context.report({ loc: comment.loc, messageId: "reason" });
        }
      }
    },
  }),
};

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".tools/", ".stackwright/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { stackwright: { rules: { "disable-needs-reason": disableNeedsReason } } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "stackwright/disable-needs-reason": "error",
    },
  },
  ...layers,
  {
    // Benches measure what users get, so they import the public entry points only.
    files: ["bench/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./src/[^/]+/.+",
              message: "bench imports only public entry points (src/<layer>, i.e. its index.ts)",
            },
          ],
        },
      ],
    },
  },
  {
    // Plain CommonJS entry points and fixtures that the engine loads without compilation.
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: nodeGlobals },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
