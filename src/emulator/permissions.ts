import type { Role } from "../api";

/** What a role may do on one environment (docs/emulator.md, "Auth and visibility"). Pure, so it is unit tested directly. */
export type Action = "deploy" | "bypass" | "approve" | "snapshot" | "restore" | "lock";

/**
 * Stack Manager and Release Manager: everything. Deployer: deploy, bypass, snapshots, restores
 * anywhere; no approve, no lock. Team Member: deploy, bypass and snapshots on non-production only,
 * no restore into production, no approve, no lock.
 */
export function isAllowed(role: Role, action: Action, production: boolean): boolean {
  switch (role) {
    case "Stack Manager":
    case "Release Manager":
      return true;
    case "Deployer":
      return action !== "approve" && action !== "lock";
    case "Team Member":
      if (action === "approve" || action === "lock") return false;
      return !production;
  }
}
