// Schema versions for our SQLite files: migration N moves a database from version N-1 to
// N, each in its own transaction with `PRAGMA user_version` set inside it, so a crash
// leaves the database at a version it really has. Migration 1 is each store's first
// schema verbatim (IF NOT EXISTS), so a database written before versioning (version 0,
// tables present) is adopted as it is. A database newer than this code is refused.
import type { DatabaseSync } from "node:sqlite";

export class SchemaTooNewError extends Error {
  constructor(store: string, found: number, known: number) {
    super(
      `the ${store} database is at schema version ${found}, but this autogen-bot knows only up to ${known}: upgrade autogen-bot or use another AUTOGEN_DB_PATH`,
    );
    this.name = "SchemaTooNewError";
  }
}

export function schemaVersion(db: DatabaseSync): number {
  return Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
}

/** Applies the migrations the database has not had yet; returns the version it ends at. */
export function migrateSqlite(db: DatabaseSync, store: string, migrations: readonly string[]): number {
  const found = schemaVersion(db);
  if (found > migrations.length) throw new SchemaTooNewError(store, found, migrations.length);
  for (let version = found + 1; version <= migrations.length; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while this one waited for the lock.
      if (schemaVersion(db) >= version) {
        db.exec("COMMIT");
        continue;
      }
      db.exec(migrations[version - 1] as string);
      db.exec(`PRAGMA user_version = ${version}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
  return migrations.length;
}
