/**
 * The one rule for a commit sha that Stackwright writes or deploys by: 7 to 40 lowercase hex
 * digits, as git abbreviates and prints them. A sha the platform reports goes into stack files,
 * commit messages and pull requests (promote, rollback, import), and a stack file's
 * `ref_type: sha` goes to the create endpoint, so anything else (`main`, `--upload-pack=…`, a
 * newline) is refused where it enters, never written or sent.
 */

/** 7 to 40 lowercase hex digits. */
export const COMMIT_SHA_PATTERN = "^[0-9a-f]{7,40}$";
const COMMIT_SHA = new RegExp(COMMIT_SHA_PATTERN);

/** True when `value` is a commit sha by {@link COMMIT_SHA_PATTERN}. */
export function isCommitSha(value: string): boolean {
  return COMMIT_SHA.test(value);
}

/**
 * Why `value` is not a commit sha, or undefined when it is. The message completes "<sha> ..." and
 * shows the value quoted and cut (it may hold control characters or be very long).
 */
export function commitShaProblem(value: string): string | undefined {
  if (isCommitSha(value)) return undefined;
  return `${shownValue(value)} is not a commit sha (7 to 40 lowercase hex digits, e.g. 8f3c2a1)`;
}

/** A value from elsewhere as one quoted line: escapes visible (JSON's), cut after 60 characters. */
export function shownValue(value: string): string {
  const cut = [...value].length > 60 ? `${[...value].slice(0, 60).join("")}…` : value;
  return JSON.stringify(cut);
}
