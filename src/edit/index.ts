/**
 * Changes to the files of `stacks-config/` that commands make for the user (promote, rollback):
 * byte-exact edits with the `yaml` package's Document API (never a re-serialised file), checked
 * against the intended values and validated, written atomically, optionally committed on a new
 * git branch. Of our own modules it imports only src/config (and through it src/api).
 */
export { EditRefusal, type EditRefusalCode } from "./errors";
export { applyEdit, editMap, renderValue, type EditValue, type MapEdit } from "./yaml-edit";
export { pinDeployment, validStack, type DeploymentPin, type PinOutcome } from "./deployment-pin";
export { writeFileAtomic, type AtomicWriteOptions } from "./atomic-write";
export { commitOnNewBranch, type BranchCommit, type ChangedFile } from "./git-branch";
export { unifiedDiff } from "./diff";
