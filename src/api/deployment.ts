import { z } from "zod";
import { EnvironmentRef, Id, SelfLinks, StackRef, UnixSeconds, listDocument, singleDocument } from "./common";
import { readView } from "./read-view";

/** Every value of a deployment's `attributes.state`. */
export const DEPLOYMENT_STATES = [
  "New",
  "Submitted",
  "Invalid",
  "Approved",
  "Rejected",
  "Queued",
  "Deploying",
  "Aborting",
  "Completed",
  "Failed",
  "Deleted",
] as const;
export const DeploymentState = z.enum(DEPLOYMENT_STATES);
export type DeploymentState = z.infer<typeof DeploymentState>;

/** States after which a deployment no longer changes by itself. */
export const FINISHED_DEPLOYMENT_STATES = [
  "Completed",
  "Failed",
  "Invalid",
  "Rejected",
  "Deleted",
] as const satisfies readonly DeploymentState[];
/** The one finished state that means success. */
export const SUCCESSFUL_DEPLOYMENT_STATES = ["Completed"] as const satisfies readonly DeploymentState[];
/** Finished states that mean the deployment did not happen. */
export const FAILED_DEPLOYMENT_STATES = [
  "Failed",
  "Invalid",
  "Rejected",
  "Deleted",
] as const satisfies readonly DeploymentState[];
/** States of a deployment that occupies its environment (only one per environment at a time). */
export const IN_PROGRESS_DEPLOYMENT_STATES = [
  "Queued",
  "Deploying",
  "Aborting",
] as const satisfies readonly DeploymentState[];
/** States of a deployment that waits for a person or a start call. */
export const PENDING_DEPLOYMENT_STATES = [
  "New",
  "Submitted",
  "Approved",
] as const satisfies readonly DeploymentState[];

/** True when the state is terminal (Completed, Failed, Invalid, Rejected, Deleted). */
export function isDeploymentFinished(state: DeploymentState): boolean {
  const finished: readonly DeploymentState[] = FINISHED_DEPLOYMENT_STATES;
  return finished.includes(state);
}
/** True when the deployment is Queued, Deploying or Aborting. */
export function isDeploymentInProgress(state: DeploymentState): boolean {
  const inProgress: readonly DeploymentState[] = IN_PROGRESS_DEPLOYMENT_STATES;
  return inProgress.includes(state);
}

/** `ref_type` values of endpoint 9. */
export const REF_TYPES = ["promote_from_uat", "sha", "branch", "tag", "redeploy", "package"] as const;
export const RefType = z.enum(REF_TYPES);
export type RefType = z.infer<typeof RefType>;
/** Ref types whose `ref` must be empty (a non-empty ref would take precedence). */
export const REF_TYPES_WITHOUT_REF = ["promote_from_uat", "redeploy"] as const satisfies readonly RefType[];

/**
 * How a deployment gets past approval: `bypass_and_start` and `bypass` are the create endpoint's
 * flags of those names (the second followed by a start), `request` sets neither and leaves the
 * deployment Submitted for a person. The YAML and the Deployment resource share this list.
 */
export const APPROVAL_MODES = ["bypass_and_start", "bypass", "request"] as const;
export const ApprovalMode = z.enum(APPROVAL_MODES);
export type ApprovalMode = z.infer<typeof ApprovalMode>;
/** True when `ref` must be empty for this ref type. */
export function refTypeForbidsRef(refType: RefType): boolean {
  const withoutRef: readonly RefType[] = REF_TYPES_WITHOUT_REF;
  return withoutRef.includes(refType);
}

/** What `ref` names for each ref type that needs one (completes "the ... to deploy"). */
const REF_MEANING: Readonly<Record<RefType, string>> = {
  sha: "the commit sha",
  branch: "the branch name",
  tag: "the tag name",
  package: "the package reference",
  promote_from_uat: "nothing",
  redeploy: "nothing",
};

/** Options of {@link refProblem}. */
export interface RefRuleOptions {
  /** The ref may be left out although the type names one (a Deployment that adopts an existing one). */
  refMayBeOmitted?: boolean | undefined;
}

/**
 * The one rule of `ref` against `ref_type` (stack files, the Deployment resource and the create
 * endpoint share it): promote_from_uat and redeploy take no ref (a non-empty ref would take
 * precedence), the other types need one. The message completes "ref ...".
 */
export function refProblem(
  refType: RefType,
  ref: string | undefined,
  options: RefRuleOptions = {},
): string | undefined {
  if (refTypeForbidsRef(refType)) {
    if (ref === undefined || ref === "") return undefined;
    return `must be empty when ref_type is '${refType}': a non-empty ref takes precedence and would deploy '${ref}' instead; remove it`;
  }
  if (ref !== undefined && ref !== "") return undefined;
  if (options.refMayBeOmitted === true) return undefined;
  const missing = ref === undefined ? "is required" : "must not be empty";
  return `${missing} when ref_type is '${refType}' (${REF_MEANING[refType]} to deploy)`;
}

/** {@link refProblem} as a zod refinement of an object with `ref_type` and `ref`; the issue is on `ref`. */
export function checkRef(
  body: { ref_type: RefType; ref?: string | undefined },
  ctx: z.RefinementCtx,
  options: RefRuleOptions = {},
): void {
  const problem = refProblem(body.ref_type, body.ref, options);
  if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["ref"], message: problem });
}

/**
 * A member the spec does not list: optional, and absent when it arrives in a shape other than the
 * one the platform's clients recorded (an extra never makes a document unreadable).
 */
function beyondSpec<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

/** A person on a deployment: who made it (`deployer`), approved it (`approver`) or bypassed approval (`bypasser`). */
export const Deployer = z.object({
  id: z.number().int(),
  email: z.string(),
  role: z.string(),
  name: z.string(),
});
export type Deployer = z.infer<typeof Deployer>;

/** One entry of `changes`: a label (such as "Code version") mapped to `{from, to}`. */
export const DeploymentChange = z.object({ from: z.string(), to: z.string() });
export type DeploymentChange = z.infer<typeof DeploymentChange>;

/** One of the create response's `messages`: a note of the platform about the deployment. */
export const DeploymentMessage = z.object({ text: z.string(), code: z.union([z.string(), z.number()]) });
export type DeploymentMessage = z.infer<typeof DeploymentMessage>;

export const DeploymentAttributes = z.object({
  id: Id,
  date_created_unix: UnixSeconds,
  date_started_unix: UnixSeconds,
  date_requested_unix: UnixSeconds,
  date_approved_unix: UnixSeconds,
  date_updated_unix: UnixSeconds,
  title: z.string(),
  summary: z.string(),
  /** Only in create, start and invalidate responses. */
  changes: z.record(z.string(), DeploymentChange).optional(),
  deployment_type: z.string(),
  deployment_estimate: z.string(),
  // The spec says text; the platform sends null for a package deployment not built yet (its
  // commit is not known), and so does the emulator.
  sha: z.string().nullable(),
  short_sha: z.string().nullable(),
  commit_subject: z.string().nullable(),
  commit_message: z.string().nullable(),
  commit_url: z.string(),
  deployer: Deployer,
  state: DeploymentState,
  is_current_build: z.boolean(),
  // Members the spec does not list; the real platform sends them (docs/emulator.md, "Beyond the
  // spec"), and the emulator writes them too. Their shapes are as recorded by the platform's
  // public clients; one that arrives in another shape reads as absent, never as an error.
  /** The `ref_type` of the create request (`branch`, `tag`, `sha`, `package`, ...). */
  ref_type: beyondSpec(z.string()),
  /** The ref the deployment was made from (branch or tag name, sha); null for a package. */
  ref_name: beyondSpec(z.string().nullable()),
  /** Tags of the deployed commit. */
  tags: beyondSpec(z.array(z.string())),
  rejected_reason: beyondSpec(z.string().nullable()),
  /** A package deployment's package: its link and id (null otherwise). */
  package_link: beyondSpec(z.string().nullable()),
  package_id: beyondSpec(z.number().int().nullable()),
  approver: beyondSpec(Deployer.nullable()),
  bypasser: beyondSpec(Deployer.nullable()),
  locked_by: beyondSpec(Deployer.nullable()),
  dirty: beyondSpec(z.boolean()),
  schedule_start_unix: beyondSpec(UnixSeconds.nullable()),
  schedule_end_unix: beyondSpec(UnixSeconds.nullable()),
  is_full_deployment: beyondSpec(z.boolean()),
  /** Create responses: the approval decision, the options asked for, and the platform's notes. */
  decision: beyondSpec(z.string().nullable()),
  options: beyondSpec(z.record(z.string(), z.unknown()).nullable()),
  messages: beyondSpec(z.array(DeploymentMessage)),
});

/**
 * A deployment as the spec documents it (with the platform's extra members, optional), type
 * `deployments`. `id` is numeric in 1.0 and a string since 2.0. The emulator writes this shape;
 * clients read {@link Deployment}.
 */
export const DocumentedDeployment = z.object({
  type: z.literal("deployments"),
  id: Id,
  attributes: DeploymentAttributes,
  /** Present in list responses. */
  relationships: z
    .object({
      environment: z.object({ data: EnvironmentRef }),
      stack: z.object({ data: StackRef }),
    })
    .optional(),
  links: SelfLinks,
});
export type DocumentedDeployment = z.infer<typeof DocumentedDeployment>;
export type DeploymentInput = z.input<typeof DocumentedDeployment>;

/**
 * A deployment as a client reads it: the read view of {@link DocumentedDeployment} (every
 * attribute optional and nullable: the platform sends `sha: null` for a package not built yet and
 * list items without dates, deployer, commit url or links). The type every layer imports.
 */
export const Deployment = readView(DocumentedDeployment);
export type Deployment = z.infer<typeof Deployment>;
/** The attributes of a read deployment. */
export type DeploymentReadAttributes = Deployment["attributes"];

/** Endpoints 9, 10, 12, 13. */
export const DeploymentDocument = singleDocument(DocumentedDeployment);
export type DeploymentDocument = z.infer<typeof DeploymentDocument>;
export const DeploymentReadDocument = readView(DeploymentDocument);

/** Endpoint 8. */
export const DeploymentListDocument = listDocument(DocumentedDeployment);
export type DeploymentListDocument = z.infer<typeof DeploymentListDocument>;
export const DeploymentReadListDocument = readView(DeploymentListDocument);

const intText = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, "expected an integer")])
  .transform((v) => Number(v));

/** Query filters of endpoint 8 (all optional). Integers may arrive as query text. */
export const DeploymentListQuery = z.strictObject({
  deployer_email: z.string().optional(),
  state: DeploymentState.optional(),
  lastedited_from_unix: intText.optional(),
  datestarted_from_unix: intText.optional(),
  datestarted_to_unix: intText.optional(),
  title: z.string().optional(),
  summary: z.string().optional(),
});
export type DeploymentListQuery = z.infer<typeof DeploymentListQuery>;
export type DeploymentListQueryInput = z.input<typeof DeploymentListQuery>;

/** Body of endpoint 9 (create a deployment). */
export const CreateDeploymentRequest = z
  .strictObject({
    ref_type: RefType,
    ref: z.string().optional(),
    title: z.string().optional(),
    summary: z.string().optional(),
    bypass: z.boolean().optional(),
    bypass_and_start: z.boolean().optional(),
    schedule_start_unix: z.number().int().optional(),
    schedule_end_unix: z.number().int().optional(),
    locked: z.boolean().optional(),
    /** Deploy without applying pending configuration changes. */
    ignore_config_changes: z.boolean().optional(),
    /** A full deployment (not only the code) even when the code alone changed. */
    force_full: z.boolean().optional(),
  })
  .superRefine((body, ctx) => checkRef(body, ctx));
export type CreateDeploymentRequest = z.infer<typeof CreateDeploymentRequest>;

/** Body of endpoints 12 (start) and 13 (invalidate): `{id: integer}`. */
export const DeploymentIdRequest = z.strictObject({ id: z.number().int().positive() });
export type DeploymentIdRequest = z.infer<typeof DeploymentIdRequest>;
export const StartDeploymentRequest = DeploymentIdRequest;
export type StartDeploymentRequest = DeploymentIdRequest;
export const InvalidateDeploymentRequest = DeploymentIdRequest;
export type InvalidateDeploymentRequest = DeploymentIdRequest;

/**
 * `GET .../deploys/log/{id}`: the deployment document plus a top-level `message`, the log lines so
 * far (all of them once the deployment has finished).
 */
export const DeploymentLogDocument = singleDocument(DocumentedDeployment).extend({
  message: z.array(z.string()),
});
export type DeploymentLogDocument = z.infer<typeof DeploymentLogDocument>;
export type DeploymentLogDocumentInput = z.input<typeof DeploymentLogDocument>;
export const DeploymentReadLogDocument = readView(DeploymentLogDocument);
