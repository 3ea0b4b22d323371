import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { z } from "zod";

/** One stored entity: its kind, its key within the kind, and its JSON. */
export const StateRow = z.object({ kind: z.string(), key: z.string(), json: z.string() });
export type StateRow = z.infer<typeof StateRow>;

/**
 * The SQLite file behind a store: one table of JSON entities, written in transactions (WAL).
 * It knows nothing of what the entities mean; the store parses them.
 */
export class StateFile {
  private readonly db: DatabaseSync;
  private readonly upsert: StatementSync;
  private readonly remove: StatementSync;

  constructor(readonly path: string) {
    // Loaded only when a state file is asked for: node:sqlite prints an experimental warning on load.
    const sqlite = process.getBuiltinModule("node:sqlite");
    // A state file in a directory not made yet (`.stackwright/` of a fresh checkout) is created
    // with it, as a tool that writes a file to a path it is given should.
    mkdirSync(dirname(path), { recursive: true });
    this.db = new sqlite.DatabaseSync(path);
    try {
      // WAL: a commit is one append to the log; a process killed at any point leaves either the
      // whole transaction or none of it, so a half-written state is never read back.
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.db.exec("PRAGMA busy_timeout = 5000");
      this.db.exec(
        "CREATE TABLE IF NOT EXISTS entities (kind TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID",
      );
      this.upsert = this.db.prepare("INSERT OR REPLACE INTO entities (kind, key, json) VALUES (?, ?, ?)");
      this.remove = this.db.prepare("DELETE FROM entities WHERE kind = ? AND key = ?");
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** Every stored entity, checked to have the table's shape. */
  rows(): StateRow[] {
    return z.array(StateRow).parse(this.db.prepare("SELECT kind, key, json FROM entities").all());
  }

  write(kind: string, key: string, value: unknown): void {
    this.upsert.run(kind, key, JSON.stringify(value));
  }

  delete(kind: string, key: string): void {
    this.remove.run(kind, key);
  }

  clear(): void {
    this.db.exec("DELETE FROM entities");
  }

  /** Runs `fn` in one transaction: all of its writes reach the file, or none. */
  transaction<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }
}
