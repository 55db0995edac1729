// The PostgreSQL tables moomem keeps, and the migrations that create them (idempotent, safe when servers start together).

import { MoomemError, invalidArgument } from "../../errors.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/** Schema the tables live in unless `schema` is given. */
export const DEFAULT_SCHEMA = "moomem";

/**
 * Version of the rows: the fields of a record-codec entry as columns, vectors
 * dense. v3: entry format 4, the store's bookkeeping in the `lifecycle` column
 * (rows written before hold it in `metadata` and a NULL `lifecycle`: they are
 * read the v2 way, and rewritten when they change). Stored in `meta.format`; a
 * database holding a newer one was written by a newer moomem and is refused.
 */
export const POSTGRES_FORMAT_VERSION = 3;

/** Checks a schema name and returns it quoted for SQL. Names are plain identifiers, so no quoting trick can sneak SQL in. */
export function quoteSchema(name: unknown): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw invalidArgument(
      `PostgresBackend schema must be a plain SQL identifier (letters, digits, _; at most 63; not starting with a digit), got ${JSON.stringify(name) ?? String(name)}; e.g. "moomem" or "moomem_tests"`,
    );
  }
  return `"${name}"`;
}

/** One step of the schema's history. Applied in order, each exactly once, recorded in `migrations`. */
interface Migration {
  version: number;
  name: string;
  /** One statement per string (drivers differ on several statements in one query). */
  statements: (s: string) => string[];
}

/**
 * The schema's history. Never edit an applied migration: add a new one.
 *
 * - `entries`: the latest version of every entry, one row each, every field a column.
 *   Times are ms since epoch (double precision, exactly what the store holds), the
 *   vector is float32 little-endian bytes, metadata and lifecycle `json` (not `jsonb`, which
 *   would reorder its keys: exports and recall hits stay byte-identical to the
 *   file store's). `seq` is unique (the store's order and
 *   the root of every id); `(user_id, seq)` serves per-user loading.
 * - `users`: per user, a version bumped by every write that touches the user, the
 *   last write time, and how far its event log was trimmed.
 * - `events`: append-only per-user log, one row per (write, user): which entries
 *   changed (id, seq, status), never their content, so erasing an entry's
 *   content from `entries` erases it from the database's live rows.
 * - `meta`: one row: row format, embedder identity, writer epoch (the fence that
 *   keeps one writing process per store today), last write time.
 * - `counters`: `seq`, for {@link PostgresBackend.reserveSeqs} (blocks of seqs from the database).
 * - No planner statistics on the columns a purge erases (v3), so no sampled copy of them outlives a purge.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "entries, users, events, meta, counters",
    statements: (s) => [
      `CREATE TABLE ${s}.meta (
        id integer PRIMARY KEY CHECK (id = 1),
        format integer NOT NULL,
        embedder_id text,
        embedder_dim integer,
        writer_epoch bigint NOT NULL DEFAULT 0,
        last_write_at double precision
      )`,
      `INSERT INTO ${s}.meta (id, format) VALUES (1, 2)`,
      `CREATE TABLE ${s}.entries (
        id text PRIMARY KEY,
        user_id text NOT NULL,
        content text NOT NULL,
        kind text NOT NULL,
        key text,
        status text NOT NULL,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        seq bigint NOT NULL,
        superseded_by text,
        metadata json NOT NULL,
        embedding bytea
      )`,
      `CREATE UNIQUE INDEX entries_seq ON ${s}.entries (seq)`,
      `CREATE INDEX entries_user_seq ON ${s}.entries (user_id, seq)`,
      `CREATE TABLE ${s}.users (
        user_id text PRIMARY KEY,
        version bigint NOT NULL,
        last_write_at double precision NOT NULL,
        trimmed_to bigint NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE ${s}.events (
        user_id text NOT NULL,
        version bigint NOT NULL,
        write_id text NOT NULL,
        at double precision NOT NULL,
        changes jsonb NOT NULL,
        PRIMARY KEY (user_id, version)
      )`,
      `CREATE TABLE ${s}.counters (name text PRIMARY KEY, value bigint NOT NULL)`,
      `INSERT INTO ${s}.counters (name, value) VALUES ('seq', 0)`,
    ],
  },
  {
    version: 2,
    name: "entries.lifecycle: the store's bookkeeping apart from the caller's metadata (row format 3)",
    statements: (s) => [`ALTER TABLE ${s}.entries ADD COLUMN lifecycle json`, `UPDATE ${s}.meta SET format = 3 WHERE id = 1`],
  },
  {
    version: 3,
    name: "no planner statistics on what a purge erases (content, key, metadata, lifecycle, embedding)",
    // ANALYZE copies sampled column values into pg_statistic, where a purged text would outlive its row
    // until the next ANALYZE. No query of moomem filters on these columns, so the planner loses nothing.
    // Statistics target 0 stops the sampling; the same-type ALTER drops what was already collected
    // (PostgreSQL removes a column's statistics when its type is altered; no rewrite, the type is unchanged).
    statements: (s) => [
      `ALTER TABLE ${s}.entries
        ALTER COLUMN content SET STATISTICS 0, ALTER COLUMN content TYPE text,
        ALTER COLUMN key SET STATISTICS 0, ALTER COLUMN key TYPE text,
        ALTER COLUMN metadata SET STATISTICS 0, ALTER COLUMN metadata TYPE json,
        ALTER COLUMN lifecycle SET STATISTICS 0, ALTER COLUMN lifecycle TYPE json,
        ALTER COLUMN embedding SET STATISTICS 0, ALTER COLUMN embedding TYPE bytea`,
    ],
  },
];

/** The newest schema version this moomem knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * The oldest schema version this moomem reads and writes without migrating: the
 * migrations after it change no table or column moomem uses (v3 only turns planner
 * statistics off), so a store opened without migrations (read-only, or
 * `migrate: false` for a role without DDL rights) keeps working until someone migrates.
 */
export const OLDEST_USABLE_SCHEMA_VERSION = 2;

/** What {@link migrate} did. */
export interface MigrationResult {
  /** Versions this call applied (empty when the schema was already current, or another server applied them). */
  applied: number[];
  /** Schema version now. */
  version: number;
}

/** The schema's version: 0 when it has no migrations table yet. */
export async function schemaVersion(db: SqlQueryable, schema: string): Promise<number> {
  const s = quoteSchema(schema);
  const [table] = await db.query("SELECT to_regclass($1) IS NOT NULL AS present", [`${s}.migrations`]);
  if (table?.["present"] !== true) return 0;
  const [row] = await db.query(`SELECT coalesce(max(version), 0) AS version FROM ${s}.migrations`);
  return Number(row?.["version"] ?? 0);
}

function newerSchema(schema: string, version: number): MoomemError {
  return new MoomemError(
    "STORE_CORRUPTED",
    `PostgreSQL schema "${schema}" is at version ${version}, newer than the ${LATEST_SCHEMA_VERSION} this moomem knows; it was migrated by a newer moomem, so upgrade moomem here too`,
  );
}

/**
 * Brings `schema` to the newest version. Idempotent, and safe when several
 * servers start at once: the work runs in one transaction holding a
 * transaction-scoped advisory lock (so it also works behind PgBouncer's
 * transaction pooling), and re-reads the version under that lock, so each
 * migration is applied by exactly one caller. When the schema is already
 * current it takes no lock and runs no DDL (a role without CREATE rights can
 * open a migrated store).
 */
export async function migrate(client: SqlClient, schema: string = DEFAULT_SCHEMA): Promise<MigrationResult> {
  const s = quoteSchema(schema);
  const before = await schemaVersion(client, schema);
  if (before > LATEST_SCHEMA_VERSION) throw newerSchema(schema, before);
  if (before === LATEST_SCHEMA_VERSION) return { applied: [], version: before };
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`moomem:migrate:${schema}`]);
    const [exists] = await tx.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1", [schema]);
    if (Number(exists?.["n"]) === 0) await tx.query(`CREATE SCHEMA ${s}`);
    await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersion(tx, schema);
    if (current > LATEST_SCHEMA_VERSION) throw newerSchema(schema, current);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements(s)) await tx.query(statement);
      await tx.query(`INSERT INTO ${s}.migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return { applied, version: LATEST_SCHEMA_VERSION };
  });
}
