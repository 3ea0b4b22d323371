/**
 * The state backend, whole: Pulumi's DIY backend on disk or in S3, as the CLI uses it. Its
 * layout (keys.ts), the one checkpoint reader (checkpoint.ts), Stackwright's records beside the
 * checkpoints (records.ts), the stores that read and write them (store.ts), the writer of a
 * new stack (new-stack.ts) and the repair of what a killed engine tore (torn-attributes.ts). `observe` imports read.ts only: it never writes.
 */
export * from "./read";
export {
  ATTRIBUTES_SUFFIX,
  BackendUrlError,
  openStateStore,
  redactUrl,
  s3RequestHandler,
  s3Settings,
  type StackPlace,
  type StateStore,
} from "./store";
export { createStackIfAbsent, emptyCheckpoint } from "./new-stack";
export { removeTornAttributes } from "./torn-attributes";
export { parseJson } from "./json";
