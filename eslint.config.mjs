// Lint rules for our TypeScript. `any` is an error: parse unknown data with zod instead.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
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

// The layers of docs/architecture.md ("Layers and import rules"), read from layers.json: who may
// import whom. Each relative import of a file in src/ or providers/ must land in the file's own
// layer or in one it may import; a file in no layer fails, so a new folder is refused until
// layers.json lists it with what it may import.
const root = path.dirname(fileURLToPath(import.meta.url));
const table = JSON.parse(fs.readFileSync(path.join(root, "layers.json"), "utf8"));
const withoutExtension = (file) => file.replace(/\.(?:ts|js|mts|cjs)$/, "");
const layerPaths = Object.keys(table.layers).sort((a, b) => b.length - a.length);
const layerOf = (file) =>
  layerPaths.find((layer) =>
    layer.endsWith(".ts") ? withoutExtension(layer) === withoutExtension(file) : file.startsWith(`${layer}/`),
  );
const rulesOf = (layer) => {
  const common = table.common.filter((c) => layer.startsWith(c.prefix));
  return {
    may: [...table.layers[layer].may, ...common.flatMap((c) => c.may)],
    notPackages: [...(table.layers[layer].notPackages ?? []), ...common.flatMap((c) => c.notPackages ?? [])],
    why: table.layers[layer].why,
  };
};
const inside = (file, entry) =>
  entry.endsWith(".ts") ? withoutExtension(entry) === file : file === entry || file.startsWith(`${entry}/`);
const layered = (file) => file.startsWith("src/") || file.startsWith("providers/");
const layerRule = {
  meta: {
    type: "problem",
    messages: {
      unlisted: "{{file}} is in no layer of layers.json: list its folder there with what it may import",
      upward:
        "{{layer}} may not import {{target}}: {{why}} (layers.json; docs/architecture.md: nothing imports upward)",
      unlistedTarget:
        "{{target}} is in no layer of layers.json: list its folder there with what it may import",
      sdk: "{{layer}} may import only types of {{name}}: {{why}} (layers.json)",
    },
  },
  create: (context) => {
    const file = path.relative(root, context.filename).split(path.sep).join("/");
    if (!layered(file)) return {};
    const layer = layerOf(file);
    if (layer === undefined) {
      return { Program: (node) => context.report({ node, messageId: "unlisted", data: { file } }) };
    }
    const rules = rulesOf(layer);
    const check = (node, source, typeOnly) => {
      if (typeof source !== "string") return;
      if (!source.startsWith(".")) {
        if (!typeOnly && rules.notPackages.includes(source)) {
          context.report({ node, messageId: "sdk", data: { layer, name: source, why: rules.why } });
        }
        return;
      }
      let resolved = path.resolve(path.dirname(context.filename), source);
      if (fs.existsSync(resolved) && fs.statSync(resolved).isDirectory())
        resolved = path.join(resolved, "index");
      const target = withoutExtension(path.relative(root, resolved).split(path.sep).join("/"));
      if (!layered(target)) return;
      const targetLayer = layerOf(`${target}.ts`);
      if (targetLayer === undefined) {
        context.report({ node, messageId: "unlistedTarget", data: { target } });
        return;
      }
      if (targetLayer === layer || rules.may.some((entry) => inside(target, entry))) return;
      context.report({ node, messageId: "upward", data: { layer, target, why: rules.why } });
    };
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 &&
        node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type"));
    return {
      ImportDeclaration: (node) => check(node, node.source.value, typeOnly(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === "type"),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value, false),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === "TSExternalModuleReference" &&
        check(node, node.moduleReference.expression.value, false),
    };
  },
};

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
    plugins: { stackwright: { rules: { "disable-needs-reason": disableNeedsReason, layers: layerRule } } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "stackwright/disable-needs-reason": "error",
    },
  },
  { files: ["src/**/*.ts", "providers/**/*.ts"], rules: { "stackwright/layers": "error" } },
  {
    // undici's index loads its whole library; src/undici.ts loads the parts we use (it says why).
    files: ["src/**/*.ts", "providers/**/*.ts"],
    ignores: ["src/undici.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "undici",
              message: "make undici's agents and requests with src/undici.ts (its types from undici)",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
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
