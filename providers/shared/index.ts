/** The contracts of the six resource types, by their key in the provider module. */
export { deploymentContract } from "./deployment";
export { environmentLockContract } from "./environment-lock";
export { snapshotContract } from "./snapshot";
export { snapshotRestoreContract } from "./snapshot-restore";
export { gitFetchContract } from "./git-fetch";
export { recordActionContract } from "./record-action";
