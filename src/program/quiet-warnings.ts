/**
 * The SDK's closure serializer requires every Node built-in module to recognise captured ones,
 * node:sqlite among them, and Node 24 still flags that module experimental: every run would print
 * a warning about a module the program never uses. That one warning alone is dropped.
 */
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === "string" ? warning : warning.message;
  if (text.includes("SQLite is an experimental feature")) return;
  (emitWarning as (w: string | Error, ...r: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;
