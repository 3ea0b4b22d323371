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

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".tools/", ".stackwright/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
    },
  },
  {
    // Plain CommonJS entry points and fixtures that the engine loads without compilation.
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: nodeGlobals },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
