/**
 * The part of `pulumi preview --json` that the pull-request summary reads. Parsed, not trusted:
 * a file that is not a preview (or is cut short) gets an error naming the JSON path at fault.
 */
import { z } from "zod";
import { CliError } from "../kit/exit-codes";

const resourceState = z
  .object({
    urn: z.string(),
    type: z.string(),
    id: z.string().optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    /** `retainOnDelete`: a delete leaves the object on the platform (`delete[retain]`). */
    retainOnDelete: z.boolean().optional(),
  })
  .loose();

export const previewStepSchema = z
  .object({
    op: z.string(),
    urn: z.string(),
    oldState: resourceState.optional(),
    newState: resourceState.optional(),
    diffReasons: z.array(z.string()).optional(),
    replaceReasons: z.array(z.string()).optional(),
  })
  .loose();

export const previewDiagnosticSchema = z
  .object({
    urn: z.string().optional(),
    message: z.string(),
    severity: z.string(),
  })
  .loose();

export const previewJsonSchema = z
  .object({
    steps: z.array(previewStepSchema).default([]),
    diagnostics: z.array(previewDiagnosticSchema).default([]),
    changeSummary: z.record(z.string(), z.number()).default({}),
  })
  .loose();

export type PreviewJson = z.infer<typeof previewJsonSchema>;
export type PreviewStep = z.infer<typeof previewStepSchema>;

/** Parses the text of `pulumi preview --json`, naming the file and JSON path of any fault. */
export function parsePreviewJson(text: string, source: string): PreviewJson {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CliError(
      "usage",
      `${source}: not JSON (${err instanceof Error ? err.message : String(err)}). ` +
        "Expected the output of `pulumi preview --json`.",
    );
  }
  const parsed = previewJsonSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : issue.path.map(String).join(".");
    throw new CliError(
      "usage",
      `${source}: not the output of \`pulumi preview --json\`: at ${where === "" ? "the top level" : where}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}
