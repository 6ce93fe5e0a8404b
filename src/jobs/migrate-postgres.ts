// Schema versions for the Postgres store: migration N moves the database from version N-1
// to N in its own transaction, recording N in schema_migrations inside it. The whole run
// holds a session advisory lock, so instances starting at once migrate one after another
// (the later ones find the work done). A database newer than this code is refused.
import type { Pool } from "pg";
import { SchemaTooNewError } from "./migrate-sqlite.ts";

/** Any fixed number; the same for every instance of autogen-bot. */
const MIGRATION_LOCK = 7_415_020_261;

export async function postgresSchemaVersion(pool: Pool): Promise<number> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (exists.rows[0]?.t === null || exists.rows[0]?.t === undefined) return 0;
  const row = await pool.query<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_migrations");
  return row.rows[0]?.v ?? 0;
}

/** Applies the migrations the database has not had yet; returns the version it ends at. */
export async function migratePostgres(pool: Pool, store: string, migrations: readonly string[]): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
      );
      const found = Number(
        (await client.query<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_migrations")).rows[0]?.v ?? 0,
      );
      if (found > migrations.length) throw new SchemaTooNewError(store, found, migrations.length);
      for (let version = found + 1; version <= migrations.length; version++) {
        await client.query("BEGIN");
        try {
          await client.query(migrations[version - 1] as string);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
      return migrations.length;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
