/**
 * Drops Node's one warning that node:sqlite is experimental, and no other warning.
 *
 * node:sqlite (the emulator's store) is built into Node 24 and stable enough for us, but still
 * flagged experimental; the warning would only confuse operators. Every entry point whose process
 * may load that module imports this file first, before anything that loads node:sqlite:
 * `bin/stackwright.js` (from dist), the Pulumi program (whose closure serializer loads every
 * built-in module) and the bench processes. It belongs to no layer and imports nothing.
 */
const emitWarning = process.emitWarning;
process.emitWarning = function (warning: string | Error, ...rest: unknown[]): void {
  const text = typeof warning === "string" ? warning : warning.message;
  if (text.includes("SQLite is an experimental feature")) return;
  Reflect.apply(emitWarning, process, [warning, ...rest]);
};
