/**
 * The desired state: loads `stacks-config/*.yaml`, validates it (yaml + zod, every error of every
 * file at once, as `file:line:col: path: message`) and returns typed stacks for the program and
 * the CLI, plus the JSON Schema of a stack file. Of our own modules it imports only `src/api`.
 */
export { ConfigValidationError, formatConfigErrors, formatErrorLine, formatPath } from "./errors";
export type { ConfigError, PathSegment } from "./errors";
// The shared rules the stack files obey, defined once in the API vocabulary.
export { DURATION_BOUNDS, SAFE_NAME_PATTERN, nameProblem, parseDuration } from "../api";
export type { DurationResult } from "../api";
export {
  APPROVAL_MODES,
  DeploymentSchema,
  EnvironmentSchema,
  LockSchema,
  PromotionSchema,
  REF_TYPES,
  REF_TYPES_WITHOUT_REF,
  RecordActionSchema,
  RestoreSchema,
  SNAPSHOT_MODES,
  SnapshotSchema,
  StackFileSchema,
} from "./schema";
export type {
  ApprovalMode,
  DeploymentConfig,
  EnvironmentConfig,
  LockConfig,
  PromotionConfig,
  RecordActionConfig,
  RefType,
  RestoreConfig,
  SnapshotConfig,
  SnapshotMode,
  StackConfig,
  StackFileInput,
} from "./schema";
export { validateSources, validateStackFile } from "./validate";
export type { DesiredState, FileResult, LoadResult, StackSource } from "./validate";
export {
  isStackFileName,
  STACK_FILE_NAME_MAX_BYTES,
  stackFileNameFor,
  loadDesiredState,
  loadDesiredStateOrThrow,
  loadDesiredStateSync,
  loadStackSync,
  scanDeclaredStacks,
  type DeclaredSource,
} from "./load";
export { parsePerFileStackName, perFileStackName, targetProblem } from "./stack-names";
export { resolveRestoreSnapshot } from "./restore-reference";
export type { RestoreSnapshotReference } from "./restore-reference";
export { SCHEMA_FILE, stackFileJsonSchema, stackFileJsonSchemaText } from "./json-schema";
export {
  CHECK_SEVERITIES,
  ENVIRONMENT_CHECK_KINDS,
  EnvironmentCheckSchema,
  STACK_CHECK_KINDS,
  StackCheckSchema,
  versionOfLabel,
} from "./check-schema";
export type { CheckSeverity, EnvironmentCheck, EnvironmentCheckKind, StackCheck } from "./check-schema";
export {
  environmentCheckKind,
  evaluateEnvironmentChecks,
  evaluateStackChecks,
  factsForChecks,
  failureMessage,
  stackFactsForChecks,
} from "./checks";
export type { CheckFailure } from "./checks";
export * from "./facts";
export {
  WINDOW_DURATION_BOUNDS,
  WINDOW_KINDS,
  WindowSchema,
  WindowsSchema,
  isTimeZone,
  parseWindowDuration,
  scheduleProblem,
} from "./window-schema";
export type { WindowConfig, WindowKind, WindowSpec } from "./window-schema";
export {
  NEXT_OPEN_HORIZON_DAYS,
  NEXT_OPEN_LOOKUPS,
  durationText,
  formatInZone,
  formatUtc,
  refusalText,
  windowState,
  windowVerdict,
  windowsOf,
  windowClock,
  WINDOW_CLOCK_VARIABLE,
  WINDOW_OVERRIDE_VARIABLE,
} from "./windows";
export type { NextOpen, WindowVerdict } from "./windows";
export {
  NotifySchema,
  SinkSchema,
  TARGET_NOTIFY_KEY,
  unsetSinkVariables,
  validateTargetNotify,
} from "./notify-schema";
export type { SinkConfig, TargetNotify } from "./notify-schema";
export {
  DEFAULT_DEPLOYMENT_WAIT_SECONDS,
  VerifyCheckSchema,
  VerifySchema,
  verifySpecOf,
} from "./verify-schema";
export type { VerifyCheckConfig, VerifyConfig } from "./verify-schema";
