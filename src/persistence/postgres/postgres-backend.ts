// The PostgreSQL backend: entries as rows, a per-user event log and version, one transaction per write group, shareable by many servers.

import type {
  BackendStats,
  Batch,
  CatalogUser,
  EmbedderIdentity,
  LoadedState,
  PersistenceBackend,
  RefreshedState,
  SharedCounts,
  SharedWriting,
  SnapshotSource,
  StoreCounts,
  StoreCatalog,
  UserCatchUp,
  UserLoading,
} from "../backend.ts";
import { WriteConflict } from "../backend.ts";
import type { EntryRecord, EntryStatus, UserSummary as StoreUser } from "../../types.ts";
import { ENTRY_STATUSES } from "../../types.ts";
import { MoomemError, describeError, invalidArgument } from "../../errors.ts";
import type { SqlClient, SqlQueryable, SqlRow } from "./sql-client.ts";
import { fromPgPool, type PgPoolLike } from "./pg-adapter.ts";
import { ENTRY_COLUMNS, entriesJsonText, entryFromRow, entryRowsFromJson, numeric } from "./row-codec.ts";
import {
  DEFAULT_SCHEMA,
  LATEST_SCHEMA_VERSION,
  OLDEST_USABLE_SCHEMA_VERSION,
  POSTGRES_FORMAT_VERSION,
  migrate,
  quoteSchema,
  schemaVersion,
  type MigrationResult,
} from "./schema.ts";
import { createOwnedPool, describeConnectionString, describePool, type OwnedPool } from "./connection.ts";
import { ioFailure, isConnectionError, isRetryableConflict, neverSent, redact, sqlState } from "./sql-errors.ts";
import { STATUS_COUNTS, countEntries, countUsers, userSummaryOfRow } from "./store-counts.ts";

/** Options of {@link PostgresBackend}: exactly one of `client`, `pool` or `connectionString`. */
export interface PostgresBackendOptions {
  /** Any driver behind the small {@link SqlClient} interface (see `fromPgPool`, `fromPglite`). Stays the host's. */
  client?: SqlClient;
  /** A node-postgres `Pool` (or anything shaped like one). Stays the host's: `close()` never ends it. */
  pool?: PgPoolLike;
  /** Let the backend make (and end, on `close()`) its own `pg` Pool; needs the optional peer `pg`. Never printed. */
  connectionString?: string;
  /** Connections of the pool made for `connectionString` (default 10). */
  poolSize?: number;
  /** Schema the tables live in (default `"moomem"`); one store per schema. */
  schema?: string;
  /** Run the migrations on first use (default true). False: the schema must already be current (a role without DDL rights). */
  migrate?: boolean;
  /** Never write (inspect or follow a store servers are using). Open the store with `readOnly: true` too. */
  readOnly?: boolean;
  /** Events kept per user when the log is trimmed (on `compact`, i.e. on close), default 1000. Readers further behind reload the user. */
  keepEvents?: number;
  /** Name shown in messages instead of the connection's host and database. */
  name?: string;
  /**
   * With `pool` or `connectionString`: send statements as named prepared statements (default false), which
   * PostgreSQL parses and plans once per connection: about a third less server CPU per write. Only where a
   * session lasts (a direct connection, session pooling, PgBouncer 1.21+ with `max_prepared_statements`), not
   * behind an older PgBouncer's transaction pooling. With `client`, pass `fromPgPool(pool, { prepare: true })`.
   */
  prepareStatements?: boolean;
}

/** A user's entries and the version they are current as of. */
export interface LoadedUser {
  /** The user's version in the database (0 for a user never written). */
  version: number;
  /** Latest version of every entry of the user, in `seq` order. */
  entries: EntryRecord[];
}

/** One change the event log recorded for an entry: what changed, never its content. */
export interface EntryChange {
  id: string;
  seq: number;
  status: EntryStatus;
}

/** One write's record in a user's event log. */
export interface UserEvent {
  /** The user's version after this write. */
  version: number;
  /** ms since epoch, by the writer's clock. */
  at: number;
  /** Random id of the write (one `append` call); the same for every user it touched. */
  writeId: string;
  changes: EntryChange[];
}

/** What changed for a user after a version, read in one snapshot. */
export interface UserChanges {
  /** The user's current version; the caller is current as of it after applying `entries`. */
  version: number;
  /**
   * True when the log cannot bring the caller up to date: the asked version was
   * trimmed away, or is ahead of the database (restored from a backup?). Load
   * the user again with `loadUser`.
   */
  reloadNeeded: boolean;
  /** The writes after the asked version, oldest first (empty when `reloadNeeded`). */
  events: UserEvent[];
  /** The current version of every entry those writes changed, in `seq` order. */
  entries: EntryRecord[];
}

/** One user in {@link PostgresBackend.listUsers}. */
export interface UserSummary {
  userId: string;
  version: number;
  lastWriteAt: number;
  /** Entries of the user, any status. */
  entries: number;
  /** Entries by status. */
  byStatus: Record<EntryStatus, number>;
}

/** Rows per page when a load streams entries. */
const PAGE_ROWS = 1000;
/** Entries per upsert statement (one JSON parameter each). */
const UPSERT_ROWS = 500;
/** A transaction that hit a deadlock, a serialization failure or a dropped pooled connection runs again, this many times in all. */
const MAX_ATTEMPTS = 3;
/** `bytesOnDisk` is refreshed with an append at most this often (ms); always on load and compact. */
const SIZE_REFRESH_MS = 1000;

/** The meta row as read. */
interface MetaRow {
  /** The row version (`xmin` as text): every write transaction updates the row (the writer fence), so a new stamp means something was written. */
  stamp: string;
  format: number;
  embedder: EmbedderIdentity | null;
  lastWriteAt: number | null;
}

/** What a write that fails itself (`#oneStatement` alone, after a race) puts in its error, to be told from any other failure. */
const REFUSED_MARK = "moomem: write refused";

/** A write as one statement, and what the backend needs to read its outcome. */
interface OneStatement {
  text: string;
  params: unknown[];
  /** Per user: the version the write was planned on, and its number of events. */
  expected: Array<{ user_id: string; v: number; n: number }>;
  /** The first event it writes, to look up when the answer is lost. */
  landmark: Landmark;
}

/** Where an append left a mark, so a COMMIT whose answer was lost can be checked. */
interface Landmark {
  userId: string;
  version: number;
  writeId: string;
}

/**
 * Keeps a store in PostgreSQL, so several app servers can share one memory.
 * Tables (in `schema`, default `moomem`): `entries` (one row per entry, every
 * field a column), `users` (per-user version), `events` (per-user append-only
 * log of what changed, without content), `meta`, `counters`, `migrations`.
 *
 * Every `append` group is one transaction: a transaction-scoped advisory lock
 * per user touched (taken in one global order, so writers never deadlock),
 * upserted rows, one event per (operation, user) and the user's version bumped.
 *
 * Any number of processes write one store at once (the `SharedWriting`
 * capability, docs/postgres.md "Consistency"): seqs come in blocks from
 * `reserveSeqs`; the backend keeps, per user, the version the store's copy is
 * current as of (set by `loadUser`, each `append` and `catchUpUser`), and an
 * `append` touching a user whose version moved meanwhile writes nothing and
 * throws `WriteConflict`, for the store to catch up and plan again.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { MemoryStore } from "moomem";
 * import { PostgresBackend } from "moomem/postgres";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on("error", () => {}); // idle connections dropped by the server are replaced on the next query
 * const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool }) });
 * ```
 */
export class PostgresBackend implements PersistenceBackend, UserLoading, SharedWriting, SharedCounts {
  readonly location: string;
  /** The schema the tables live in. */
  readonly schema: string;
  readonly #s: string;
  readonly #secrets: string[];
  readonly #readOnly: boolean;
  readonly #migrate: boolean;
  readonly #keepEvents: number;
  readonly #connectionString: string | null;
  readonly #poolSize: number;
  readonly #prepare: boolean;
  #client: SqlClient | null;
  #owned: OwnedPool | null = null;
  #ready: Promise<SqlClient> | null = null;
  /** What connecting migrated, until `setup()` reports it. */
  #migration: MigrationResult | null = null;
  /** Schema version found on connecting (0: no moomem tables, possible only for a read-only backend). */
  #schemaFound = 0;
  #state: "new" | "loading" | "open" | "closed" = "new";
  #embedder: EmbedderIdentity | null = null;
  #lastWriteAt: number | null = null;
  #bytes = 0;
  #sizeAt = 0;
  /** Users written since load, whose event logs the next compaction trims. */
  #touched = new Set<string>();
  /** Events written since the last trim; at `keepEvents` the store is asked to compact (which trims). */
  #eventsSinceTrim = 0;
  /** The meta row as last read: its row version (`xmin`, new with every write, which updates the row) and the row format. */
  #meta: { stamp: string; format: number } | null = null;
  /** The version of each user as of what this backend last read of it (the whole store at load, a user by `readUser`, changes by `refresh()`). */
  #versions = new Map<string, number>();
  /** The text of {@link #oneStatement}, once built. */
  #writeText: string | null = null;
  /** The append under way (appends run one after another). */
  #appending: Promise<unknown> = Promise.resolve();

  constructor(options: PostgresBackendOptions) {
    if (typeof options !== "object" || options === null) {
      throw invalidArgument(`PostgresBackend needs options with one of { client }, { pool } or { connectionString }, got ${String(options)}`);
    }
    const given = (["client", "pool", "connectionString"] as const).filter((k) => options[k] !== undefined);
    if (given.length !== 1) {
      throw invalidArgument(
        `PostgresBackend needs exactly one of { client }, { pool } or { connectionString }, got ${given.length === 0 ? "none" : given.join(" and ")}`,
      );
    }
    const schema = options.schema ?? DEFAULT_SCHEMA;
    this.#s = quoteSchema(schema);
    this.#prepare = checkBoolean(options.prepareStatements, "prepareStatements", false);
    if (this.#prepare && options.client !== undefined) {
      throw invalidArgument(
        "PostgresBackend prepareStatements applies to { pool } or { connectionString }; with { client }, make it with fromPgPool(pool, { prepare: true })",
      );
    }
    this.schema = schema;
    let where: string;
    this.#connectionString = null;
    if (options.client !== undefined) {
      const c = options.client as unknown as Record<string, unknown>;
      if (typeof c !== "object" || c === null || typeof c["query"] !== "function" || typeof c["transaction"] !== "function") {
        throw invalidArgument(
          "PostgresBackend client must have query(text, params) and transaction(fn) functions; make one with fromPgPool(pool) or fromPglite(db)",
        );
      }
      this.#client = options.client;
      this.#secrets = [];
      where = "PostgreSQL";
    } else if (options.pool !== undefined) {
      const p = options.pool as unknown as Record<string, unknown>;
      if (typeof p !== "object" || p === null || typeof p["query"] !== "function" || typeof p["connect"] !== "function" || "connectionParameters" in p) {
        throw invalidArgument(
          "PostgresBackend pool must be a pg Pool (query and connect functions); a single pg.Client is not enough, since reads would run inside open transactions",
        );
      }
      this.#client = fromPgPool(options.pool, { prepare: this.#prepare });
      const label = describePool(options.pool);
      this.#secrets = label.secrets;
      where = label.where;
    } else {
      if (typeof options.connectionString !== "string" || options.connectionString.trim() === "") {
        throw invalidArgument("PostgresBackend connectionString must be a non-empty string, e.g. postgres://user@host:5432/db");
      }
      this.#client = null;
      this.#connectionString = options.connectionString;
      const label = describeConnectionString(options.connectionString);
      this.#secrets = label.secrets;
      where = label.where;
    }
    if (options.name !== undefined && (typeof options.name !== "string" || options.name.length === 0)) {
      throw invalidArgument(`PostgresBackend name must be a non-empty string, got ${JSON.stringify(options.name)}`);
    }
    this.location = `${options.name === undefined ? where : redact(options.name, this.#secrets)} (schema "${schema}")`;
    this.#poolSize = checkInteger(options.poolSize, "poolSize", 10, 1, 10_000);
    this.#keepEvents = checkInteger(options.keepEvents, "keepEvents", 1000, 1, Number.MAX_SAFE_INTEGER);
    this.#readOnly = checkBoolean(options.readOnly, "readOnly", false);
    this.#migrate = checkBoolean(options.migrate, "migrate", !this.#readOnly);
  }

  /**
   * Connects and brings the schema up to date (see `migrate` in `schema.ts`).
   * `load()` does this itself; call it to migrate ahead of time, e.g. in a
   * deploy step. Resolves to what was applied by this call.
   */
  async setup(): Promise<MigrationResult> {
    this.#checkUsable("setup");
    const client = await this.#connect();
    const done = this.#migration;
    this.#migration = null;
    if (done !== null) return done;
    // Connected without migrating (migrate: false), or migrated by an earlier call: an explicit setup migrates now.
    const result = await this.#run("setup (migrations)", () => migrate(client, this.schema));
    this.#schemaFound = result.version;
    return result;
  }

  async load(): Promise<LoadedState> {
    return this.#open(
      "load",
      () => this.#readAll(),
      () => ({ entries: [] }),
    );
  }

  /**
   * {@link load} without the entries (per-user loading, README "Many users: loading a user when asked"):
   * fences off writers of an older moomem (see `#open`) and reads, in one snapshot, the meta row and per user the counts by status,
   * the largest `updatedAt`, and the largest seq stored or named by an id. The counting runs in
   * PostgreSQL (one grouped scan of `entries`); no entry row leaves the database.
   */
  async openCatalog(): Promise<StoreCatalog> {
    return this.#open(
      "load",
      () => this.#readCatalog(),
      () => ({ users: [] }),
    );
  }

  /**
   * The latest version of each of the user's entries, in seq order (`[]` for an unknown user): the
   * entries of {@link readUser}. Remembers the version they are current as of.
   */
  async loadUser(userId: string): Promise<EntryRecord[]> {
    const { version, entries } = await this.readUser(userId);
    this.#versions.set(userId, version);
    return entries;
  }

  /**
   * Every entry, latest version of each, in seq order, fetched `PAGE_ROWS` at a time (keyset on the
   * unique seq; each page its own query, so no transaction stays open while the caller iterates).
   */
  async *scan(): AsyncGenerator<EntryRecord> {
    this.#checkUsable("scan");
    await this.#connect();
    if (this.#schemaFound === 0) return;
    let after = -1;
    for (;;) {
      const rows = await this.#run("scan", (db) =>
        db.query(`SELECT ${ENTRY_COLUMNS} FROM ${this.#s}.entries WHERE seq > $1 ORDER BY seq LIMIT ${PAGE_ROWS}`, [after]),
      );
      const page = rows.map((row) => this.#entryFromRow(row));
      yield* page;
      if (page.length < PAGE_ROWS) return;
      after = page[page.length - 1]!.seq;
    }
  }

  /**
   * {@link compact} for a store that holds only some users: the rows are current already (every append
   * replaced the rows it touched), so this records the embedder identity and trims the event logs.
   */
  async compactStored(embedder: EmbedderIdentity): Promise<void> {
    this.#writable("compact");
    await this.#compact({ id: embedder.id, dim: embedder.dim }, null);
  }

  async append(batches: readonly Batch[]): Promise<void> {
    this.#writable("append");
    const operations = splitOperations(batches, this.location);
    if (operations.length === 0) return;
    // One append at a time (a store's write queue never overlaps them anyway): each is planned on the versions the
    // one before it left, which a write sent alone reads when it is built.
    const run = this.#appending.then(() => this.#append(operations));
    this.#appending = run.catch(() => undefined);
    return run;
  }

  async #append(operations: EntryRecord[][]): Promise<void> {
    const at = Date.now();
    const rows = latestRows(operations);
    const users = usersOf(operations);
    if (rows.length <= UPSERT_ROWS && users.length === 1) {
      // The common write (an add, a forget, a group of them for one user): one statement, no BEGIN or COMMIT.
      await this.#writeAlone(operations, rows, at);
    } else if (rows.length <= UPSERT_ROWS) {
      // Several users: the same statement between BEGIN and COMMIT (a user whose version moved rolls back the others').
      await this.#write(
        "append",
        at,
        usersOf(operations),
        true,
        (tx, writeId, versions) => this.#writeInOne(tx, operations, rows, at, writeId, versions),
        true,
      );
    } else {
      await this.#write("append", at, usersOf(operations), true, (tx, writeId, versions) => this.#writeOperations(tx, operations, at, writeId, versions));
    }
    this.#lastWriteAt = at;
  }

  /**
   * Whether `compact` would change anything: this process wrote users whose event logs it has not trimmed
   * yet, or no embedder is recorded. Otherwise a close runs no compaction transaction (which would also
   * update the meta row and so send every reader to read every user's version).
   */
  hasUncompacted(): boolean {
    return this.#state === "open" && !this.#readOnly && (this.#touched.size > 0 || this.#embedder === null);
  }

  /** True once `keepEvents` events were written since the last trim: compaction is what trims the event logs. */
  wantsCompaction(): boolean {
    return this.#eventsSinceTrim >= this.#keepEvents;
  }

  /**
   * Records the embedder identity. The rows need no rewrite: every append
   * already replaced the rows it touched. When the identity changed (the store
   * recomputed every vector: `reembed`), every entry of `source` is written
   * again, as one more operation, in the same transaction. Also trims the event
   * logs of the users written since load to the newest `keepEvents` events.
   * After a takeover by another writer it does nothing, unless vectors were
   * rewritten (then `STORE_LOCKED`).
   */
  async compact(source: SnapshotSource): Promise<void> {
    this.#writable("compact");
    await this.#compact({ id: source.embedder.id, dim: source.embedder.dim }, source);
  }

  /** Records `embedder`, rewrites every entry of `source` when the identity changed (`null`: never), trims the logs. */
  async #compact(embedder: EmbedderIdentity, source: SnapshotSource | null): Promise<void> {
    const changed = source !== null && this.#embedder !== null && (this.#embedder.id !== embedder.id || this.#embedder.dim !== embedder.dim);
    const entries = changed ? [...source.entries] : [];
    const trim = [...this.#touched];
    const at = Date.now();
    const users = usersOf([entries]);
    try {
      await this.#write("compact", changed ? at : null, users, false, async (tx, writeId, versions) => {
        // One compaction at a time in the whole store; then every user it changes, locked in key order up front
        // (a writer takes its users' locks in one go, then the meta row last: no cycle with this order).
        await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`moomem:compact:${this.schema}`]);
        await this.#lockUsers(tx, [...new Set([...users, ...trim])].sort());
        // The embedder is recorded only where none is, or the same (a reembed replaces it): another process's
        // record is never overwritten by a process that opened with another embedder before it.
        const recorded = await tx.query(
          `UPDATE ${this.#s}.meta SET embedder_id = $1, embedder_dim = $2 WHERE id = 1 AND ($3 OR embedder_id IS NULL OR (embedder_id = $1 AND embedder_dim = $2))
           RETURNING 1 AS ok`,
          [embedder.id, embedder.dim, changed],
        );
        if (recorded.length === 0) {
          const [meta] = await tx.query(`SELECT embedder_id, embedder_dim FROM ${this.#s}.meta WHERE id = 1`);
          throw new MoomemError(
            "EMBEDDER_MISMATCH",
            `${this.location}: another process recorded embedder ${String(meta?.["embedder_id"])} (${String(meta?.["embedder_dim"])} dims) for this store; this process uses ${embedder.id} (${embedder.dim} dims): open the store again with that embedder`,
          );
        }
        const landmark = entries.length === 0 ? null : await this.#writeOperations(tx, [entries], at, writeId, versions);
        if (trim.length > 0) await this.#trimEvents(tx, trim);
        return landmark;
      });
    } catch (error) {
      if (error instanceof WriteConflict) {
        throw new MoomemError(
          "WRITE_CONFLICT",
          `${this.location}: recomputing every vector (reembed) was refused because another process wrote user ${JSON.stringify(error.users[0])} meanwhile; nothing was stored. Stop the other processes writing this store, then open it with reembed again`,
          { cause: error },
        );
      }
      throw error;
    }
    for (const user of trim) this.#touched.delete(user);
    this.#eventsSinceTrim = 0;
    this.#embedder = embedder;
    if (changed && entries.length > 0) this.#lastWriteAt = at;
    await this.#refreshSize(true);
  }

  /**
   * For a read-only backend: what writers committed since `load()` or the previous call, from the per-user
   * versions and event logs; null when nothing was written (one query of the meta row, whose row version
   * every write changes). When something was, the users whose version moved are found by reading every
   * user's version (one row per user), and for each the entries its events after the version read last
   * name (the whole user again when its log was trimmed past that version), in one snapshot: the writes
   * come whole and in order. Null for a writer (it sees its own writes).
   */
  async refresh(): Promise<RefreshedState | null> {
    this.#checkUsable("refresh");
    if (this.#state !== "open") throw new MoomemError("STORE_CLOSED", `${this.location}: refresh before load(); call load() first`);
    if (!this.#readOnly) return null;
    await this.#connect();
    if (this.#schemaFound === 0) return this.#refreshFromNothing();
    const known = this.#meta!.stamp;
    // The common case, for `follow` before every call: one statement, no transaction.
    const [now] = await this.#run("refresh", (db) => db.query(`SELECT xmin::text AS stamp FROM ${this.#s}.meta WHERE id = 1`));
    if (now !== undefined && String(now["stamp"]) === known) return null;
    const found = await this.#run("refresh", (db) =>
      db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        const meta = await this.#selectMeta(tx);
        if (meta.stamp === known) return null;
        const versions = new Map<string, number>();
        const fromEvents: Array<{ user_id: string; v: number }> = [];
        const whole: string[] = [];
        for (const row of await tx.query(`SELECT user_id, version, trimmed_to FROM ${this.#s}.users`)) {
          const userId = String(row["user_id"]);
          const version = Number(numeric(row["version"]));
          const trimmedTo = Number(numeric(row["trimmed_to"]));
          const had = this.#versions.get(userId) ?? 0;
          versions.set(userId, version);
          if (version === had) continue;
          if (had > version || had < trimmedTo) whole.push(userId);
          else fromEvents.push({ user_id: userId, v: had });
        }
        const ids =
          fromEvents.length === 0
            ? []
            : (
                await tx.query(
                  `SELECT DISTINCT c->>'id' AS id FROM ${this.#s}.events e
                   JOIN jsonb_to_recordset($1::jsonb) AS k(user_id text, v bigint) ON e.user_id = k.user_id AND e.version > k.v
                   CROSS JOIN jsonb_array_elements(e.changes) AS c`,
                  [JSON.stringify(fromEvents)],
                )
              ).map((row) => String(row["id"]));
        // Two statements, each on its index (an OR of the two would scan the whole table): the rows the events
        // name, by id, and every row of the users read whole, by (user_id, seq). Merged by seq, each row once.
        const byId = new Map<string, EntryRecord>();
        if (ids.length > 0) {
          const rows = await tx.query(`SELECT ${ENTRY_COLUMNS} FROM ${this.#s}.entries WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`, [
            JSON.stringify(ids),
          ]);
          for (const row of rows) byId.set(String(row["id"]), this.#entryFromRow(row));
        }
        for (const userId of whole) for (const entry of await this.#pages(tx, "user_id = $2 AND", [userId])) byId.set(entry.id, entry);
        const entries = [...byId.values()].sort((a, b) => a.seq - b.seq);
        return { meta, versions, entries };
      }),
    );
    if (found === null) return null;
    // Taken only once the whole read succeeded: a failed refresh leaves the next one to find the same writes.
    this.#useMeta(found.meta);
    this.#versions = found.versions;
    await this.#refreshSize(false);
    return { replace: false, entries: found.entries, embedder: this.#embedder, formatVersion: found.meta.format, lastWriteAt: this.#lastWriteAt };
  }

  /** `refresh()` of a read-only backend opened before any table existed: once a writer created them, everything, as a new read. */
  async #refreshFromNothing(): Promise<RefreshedState | null> {
    const version = await this.#run("refresh (schema check)", (db) => schemaVersion(db, this.schema));
    if (version === 0) return null;
    if (version < OLDEST_USABLE_SCHEMA_VERSION || version > LATEST_SCHEMA_VERSION) {
      throw new MoomemError(
        version > LATEST_SCHEMA_VERSION ? "STORE_CORRUPTED" : "IO_FAILURE",
        `${this.location} is now at schema version ${version}, this moomem needs ${LATEST_SCHEMA_VERSION}; ${version > LATEST_SCHEMA_VERSION ? "upgrade moomem" : "run the migrations"}`,
      );
    }
    const { entries } = await this.#readAll();
    this.#schemaFound = version;
    return { replace: true, entries, embedder: this.#embedder, formatVersion: this.#meta!.format, lastWriteAt: this.#lastWriteAt };
  }

  /**
   * `bytesOnDisk` is what PostgreSQL reports for the schema's tables, their
   * indexes and TOAST (`pg_total_relation_size`), as of the last load, compact
   * or append (refreshed at most once a second). It counts pages, so it grows
   * in steps of 8 kB and shrinks only after VACUUM; other writers change it too.
   */
  stats(): BackendStats {
    return { bytesOnDisk: this.#bytes, lastWriteAt: this.#lastWriteAt };
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    await this.#shutdown();
  }

  // ---- per-user reads: the ground for per-user loading and many writers ----

  /** The user's entries (latest version of each, in `seq` order) and the version they are current as of, read in one snapshot. */
  async readUser(userId: string): Promise<LoadedUser> {
    checkUser(userId, "readUser");
    this.#checkUsable("readUser");
    await this.#connect();
    if (this.#schemaFound === 0) return { version: 0, entries: [] };
    return this.#run("readUser", (db) =>
      db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        const [user] = await tx.query(`SELECT version FROM ${this.#s}.users WHERE user_id = $1`, [userId]);
        const entries = await this.#pages(tx, `user_id = $2 AND`, [userId]);
        return { version: user === undefined ? 0 : Number(numeric(user["version"])), entries };
      }),
    );
  }

  /** Whether another process wrote the user since this backend last read or wrote it: {@link userVersion}, one indexed lookup. */
  async userMoved(userId: string): Promise<boolean> {
    return (await this.userVersion(userId)) !== (this.#versions.get(userId) ?? 0);
  }

  /**
   * What other processes wrote for the user since this backend last read or wrote it: the current rows of
   * the entries their events name ({@link eventsSince}), or the whole user again when the log was trimmed
   * past that version; null when nothing. This backend's copy is then current as of the version read.
   */
  async catchUpUser(userId: string): Promise<UserCatchUp | null> {
    const known = this.#versions.get(userId) ?? 0;
    const changes = await this.eventsSince(userId, known);
    if (changes.reloadNeeded) {
      const { version, entries } = await this.readUser(userId);
      this.#versions.set(userId, version);
      return { replace: true, entries };
    }
    if (changes.version === known) return null;
    this.#versions.set(userId, changes.version);
    return { replace: false, entries: changes.entries };
  }

  /** The user's current version (0 for a user never written): one indexed lookup, cheap enough to run before every call. */
  async userVersion(userId: string): Promise<number> {
    checkUser(userId, "userVersion");
    this.#checkUsable("userVersion");
    await this.#connect();
    const rows = await this.#run("userVersion", (db) => db.query(`SELECT version FROM ${this.#s}.users WHERE user_id = $1`, [userId]));
    return rows[0] === undefined ? 0 : Number(numeric(rows[0]["version"]));
  }

  /**
   * What changed for the user after `version`: the events, and the current
   * version of every entry they touched, in one snapshot. A caller applies
   * `entries` over its copy and is then current as of `version` of the result.
   */
  async eventsSince(userId: string, version: number): Promise<UserChanges> {
    checkUser(userId, "eventsSince");
    if (!Number.isSafeInteger(version) || version < 0) throw invalidArgument(`eventsSince: version must be an integer ≥ 0, got ${JSON.stringify(version)}`);
    this.#checkUsable("eventsSince");
    await this.#connect();
    return this.#run("eventsSince", (db) =>
      db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        const [user] = await tx.query(`SELECT version, trimmed_to FROM ${this.#s}.users WHERE user_id = $1`, [userId]);
        const current = user === undefined ? 0 : Number(numeric(user["version"]));
        const trimmedTo = user === undefined ? 0 : Number(numeric(user["trimmed_to"]));
        if (version > current || version < trimmedTo) return { version: current, reloadNeeded: true, events: [], entries: [] };
        if (version === current) return { version: current, reloadNeeded: false, events: [], entries: [] };
        const rows = await tx.query(`SELECT version, at, write_id, changes FROM ${this.#s}.events WHERE user_id = $1 AND version > $2 ORDER BY version`, [
          userId,
          version,
        ]);
        const events = rows.map((row) => this.#eventFromRow(row));
        const ids = [...new Set(events.flatMap((e) => e.changes.map((c) => c.id)))];
        const entryRows = await tx.query(
          `SELECT ${ENTRY_COLUMNS} FROM ${this.#s}.entries WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND user_id = $2 ORDER BY seq`,
          [JSON.stringify(ids), userId],
        );
        return { version: current, reloadNeeded: false, events, entries: entryRows.map((row) => this.#entryFromRow(row)) };
      }),
    );
  }

  /** `users()` of a writable store: every user as the database holds them now (store-counts.ts). */
  async countUsers(): Promise<StoreUser[]> {
    this.#checkUsable("countUsers");
    await this.#connect();
    return this.#run("counting the users", (db) => countUsers(db, this.#s));
  }

  /** `stats()` of a writable store: the counts as the database holds them now (store-counts.ts); the size on disk is read again too. */
  async countEntries(): Promise<StoreCounts> {
    this.#checkUsable("countEntries");
    await this.#connect();
    const counts = await this.#run("counting the entries", (db) => countEntries(db, this.#s));
    if (counts.lastWriteAt !== null && (this.#lastWriteAt === null || counts.lastWriteAt > this.#lastWriteAt)) this.#lastWriteAt = counts.lastWriteAt;
    await this.#refreshSize(true);
    return counts;
  }

  /**
   * Every user that has entries, in user id order, with counts, fetched a page
   * at a time (each page is its own snapshot: a long listing sees writes made
   * while it runs).
   */
  async *listUsers(options: { after?: string; pageSize?: number } = {}): AsyncGenerator<UserSummary> {
    const pageSize = checkInteger(options.pageSize, "listUsers pageSize", 500, 1, 100_000);
    let after = options.after ?? "";
    if (typeof after !== "string") throw invalidArgument(`listUsers: after must be a user id string, got ${JSON.stringify(after)}`);
    this.#checkUsable("listUsers");
    await this.#connect();
    const counts = ENTRY_STATUSES.map((s) => `count(*) FILTER (WHERE e.status = '${s}') AS "${s}"`).join(", ");
    for (;;) {
      const rows = await this.#run("listUsers", (db) =>
        db.query(
          `SELECT u.user_id, u.version, u.last_write_at, c.* FROM ${this.#s}.users u
           CROSS JOIN LATERAL (SELECT count(*) AS total, ${counts} FROM ${this.#s}.entries e WHERE e.user_id = u.user_id) c
           WHERE u.user_id > $1 ORDER BY u.user_id LIMIT $2`,
          [after, pageSize],
        ),
      );
      for (const row of rows) {
        const byStatus = {} as Record<EntryStatus, number>;
        for (const s of ENTRY_STATUSES) byStatus[s] = Number(numeric(row[s]));
        yield {
          userId: String(row["user_id"]),
          version: Number(numeric(row["version"])),
          lastWriteAt: Number(row["last_write_at"]),
          entries: Number(numeric(row["total"])),
          byStatus,
        };
      }
      if (rows.length < pageSize) return;
      after = String(rows[rows.length - 1]!["user_id"]);
    }
  }

  /**
   * Reserves `count` consecutive seqs nobody else will get, from the database,
   * and resolves to the first. Always beyond every seq stored, also those a
   * store numbered itself. With it, processes writing at once never hand out
   * one seq (nor, so, one entry id) twice.
   */
  async reserveSeqs(count: number, after = 0): Promise<number> {
    if (!Number.isSafeInteger(count) || count < 1 || count > 1_000_000)
      throw invalidArgument(`reserveSeqs: count must be an integer from 1 to 1000000, got ${JSON.stringify(count)}`);
    if (!Number.isSafeInteger(after) || after < 0) throw invalidArgument(`reserveSeqs: after must be an integer ≥ 0, got ${JSON.stringify(after)}`);
    this.#checkUsable("reserveSeqs");
    if (this.#readOnly) throw new MoomemError("READ_ONLY", `${this.location} was opened readOnly; reserveSeqs needs a writable backend`);
    await this.#connect();
    const rows = await this.#run("reserveSeqs", (db) =>
      db.query(
        `UPDATE ${this.#s}.counters SET value = greatest(value, $2, (SELECT coalesce(max(seq), 0) FROM ${this.#s}.entries)) + $1
         WHERE name = 'seq' RETURNING value - $1 + 1 AS first`,
        [count, after],
      ),
    );
    return Number(numeric(rows[0]?.["first"]));
  }

  /**
   * Gives back `[first, end)`, the unused end of a block {@link reserveSeqs} handed out, when it is still
   * the last block reserved (the counter stands at `end - 1`); otherwise another process reserved after it
   * and the seqs stay unused (a gap costs nothing). So one process alone numbers its entries without gaps.
   */
  async releaseSeqs(first: number, end: number): Promise<void> {
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(end) || first < 1 || end < first)
      throw invalidArgument(`releaseSeqs: first and end must be integers with 1 ≤ first ≤ end, got ${JSON.stringify([first, end])}`);
    this.#writable("releaseSeqs");
    await this.#connect();
    await this.#run("releaseSeqs", (db) => db.query(`UPDATE ${this.#s}.counters SET value = $1 WHERE name = 'seq' AND value = $2`, [first - 1, end - 1]));
  }

  // ---- internals ----

  /** The client, connected and migrated once (again after a failure, so a database that comes back is picked up). */
  #connect(): Promise<SqlClient> {
    this.#ready ??= (async () => {
      if (this.#client === null) {
        this.#owned = await createOwnedPool(this.#connectionString!, this.#poolSize, this.#secrets);
        this.#client = fromPgPool(this.#owned, { prepare: this.#prepare });
      }
      const client = this.#client;
      if (this.#migrate) {
        this.#migration = await this.#run("setup (migrations)", () => migrate(client, this.schema));
        this.#schemaFound = this.#migration.version;
      } else {
        const version = await this.#run("setup (schema check)", (db) => schemaVersion(db, this.schema));
        if (version !== 0 && (version < OLDEST_USABLE_SCHEMA_VERSION || version > LATEST_SCHEMA_VERSION)) {
          throw new MoomemError(
            version > LATEST_SCHEMA_VERSION ? "STORE_CORRUPTED" : "IO_FAILURE",
            `${this.location} is at schema version ${version}, this moomem needs ${LATEST_SCHEMA_VERSION}; ${version > LATEST_SCHEMA_VERSION ? "upgrade moomem" : "run the migrations (PostgresBackend setup(), or open once with migrate: true)"}`,
          );
        }
        if (version === 0 && !this.#readOnly) {
          throw new MoomemError(
            "IO_FAILURE",
            `${this.location} has no moomem tables and migrate is false; run the migrations first (PostgresBackend setup() with migrate: true)`,
          );
        }
        this.#schemaFound = version;
      }
      return client;
    })();
    const ready = this.#ready;
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = null;
    });
    return ready;
  }

  /**
   * Runs a database call, once more after a dropped pooled connection, a
   * deadlock or a serialization failure; other failures become `IO_FAILURE`
   * (secrets masked). Only for calls that are safe to repeat.
   */
  async #run<T>(what: string, fn: (db: SqlClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(this.#client!);
      } catch (error) {
        if (error instanceof MoomemError) throw error;
        if (attempt < MAX_ATTEMPTS && (isConnectionError(error) || isRetryableConflict(error))) continue;
        throw ioFailure(`${this.location}: ${what} failed`, error, this.#secrets);
      }
    }
  }

  /**
   * One write transaction: `body`, then the meta row (last write, and the row version readers compare;
   * updated last so its row lock, which every writer needs, is held only until COMMIT). Refused with
   * `EMBEDDER_MISMATCH` when `checkEmbedder` and another process recorded another embedder (a
   * `reembed` elsewhere). Retried whole after a failure before COMMIT that PostgreSQL rolled back
   * (dropped connection, deadlock, serialization). When COMMIT itself fails, its answer is lost, not
   * necessarily the write: the landmark `body` returned (an event it wrote) is looked up to tell which.
   * The users' versions `body` reported are taken once the write is known to have committed.
   */
  async #write(
    what: string,
    at: number | null,
    users: readonly string[],
    checkEmbedder: boolean,
    body: (tx: SqlQueryable, writeId: string, versions: Map<string, number>) => Promise<Landmark | null>,
    metaInBody = false,
  ): Promise<void> {
    const client = await this.#connect();
    const writeId = randomId();
    for (let attempt = 1; ; attempt++) {
      let landmark: Landmark | null = null;
      let committing = false;
      const versions = new Map<string, number>();
      const done = async (): Promise<void> => {
        for (const user of users) this.#touched.add(user);
        for (const [user, version] of versions) this.#versions.set(user, version);
        await this.#refreshSize(false);
      };
      try {
        await client.transaction(async (tx) => {
          landmark = await body(tx, writeId, versions);
          if (metaInBody) {
            committing = true;
            return;
          }
          const [meta] = await tx.query(
            `UPDATE ${this.#s}.meta SET last_write_at = coalesce($1, last_write_at) WHERE id = 1 RETURNING embedder_id, embedder_dim`,
            [at],
          );
          if (checkEmbedder) this.#checkEmbedder(meta, what);
          committing = true;
        });
        await done();
        return;
      } catch (error) {
        if (error instanceof MoomemError && !committing) throw error;
        if (committing) {
          const landed = await this.#landed(landmark);
          if (landed === true) {
            await done();
            return;
          }
          if (landed === null) {
            throw new MoomemError(
              "IO_FAILURE",
              redact(
                `${this.location}: the connection failed while committing this ${what} (${describeError(error)}), so it may or may not have been stored; the store's memory does not have it (the next call for the user reads what the database kept)`,
                this.#secrets,
              ),
            );
          }
        }
        if (attempt < MAX_ATTEMPTS && (isConnectionError(error) || isRetryableConflict(error))) continue;
        throw ioFailure(`${this.location}: ${what} failed and nothing of it was stored`, error, this.#secrets);
      }
    }
  }

  /** Refuses the write (`EMBEDDER_MISMATCH`, inside its transaction: nothing is stored) when the meta row records another embedder than this process's. */
  #checkEmbedder(meta: SqlRow | undefined, what: string): void {
    const mine = this.#embedder;
    if (mine === null || typeof meta?.["embedder_id"] !== "string") return;
    const id = meta["embedder_id"];
    const dim = Number(numeric(meta["embedder_dim"]));
    if (id !== mine.id || dim !== mine.dim) {
      throw new MoomemError(
        "EMBEDDER_MISMATCH",
        `${this.location}: another process recomputed every vector with embedder ${id} (${dim} dims) (a reembed); this process uses ${mine.id} (${mine.dim} dims), so this ${what} was not stored: open the store again with that embedder`,
      );
    }
  }

  /**
   * The whole of a write of at most `UPSERT_ROWS` rows as ONE statement. In order, by the data each part
   * needs of the one before: the users' advisory locks (in key order, as `#lockUsers`); each user's
   * version moved from the one this process's copy is current as of to that plus its events, as a
   * compare-and-set (`ON CONFLICT … DO UPDATE … WHERE version = expected`, which PostgreSQL evaluates on
   * the newest committed row, after waiting for its row lock: so the statement's snapshot, taken before
   * the advisory lock was granted, cannot hide a write that committed meanwhile); only if every user's
   * version matched, the rows, the events, and last the meta row. Nothing but the versions is written
   * unless every version matched.
   *
   * `alone` (a statement that is its own transaction, for a write of one user): the statement also checks
   * first, in its snapshot, that no row of the write belongs to another user and that the recorded
   * embedder is this process's, and writes nothing when not (`pre` false: the caller runs the write
   * again the long way, which says which); and if either turns out otherwise once the rows are written
   * (a race with a commit after its snapshot), it fails itself, with a cast error naming
   * `REFUSED_MARK`, so PostgreSQL undoes all of it. Without `alone`, the caller checks `upserted` and
   * the embedder the meta row returned, inside its transaction, and rolls back.
   */
  #oneStatement(operations: EntryRecord[][], rows: EntryRecord[], at: number, writeId: string, alone: boolean): OneStatement {
    const events = eventsOf(operations);
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.user_id, (counts.get(event.user_id) ?? 0) + 1);
    const expected = [...counts.keys()].sort().map((userId) => ({ user_id: userId, v: this.#versions.get(userId) ?? 0, n: counts.get(userId)! }));
    const s = this.#s;
    const mine = this.#embedder;
    // The same text for every write of this backend: built once (and, with prepareStatements, parsed once per connection).
    const text = (this.#writeText ??= `WITH expected AS (
         SELECT x.user_id, x.v, x.n FROM jsonb_to_recordset($1::jsonb) AS x(user_id text, v bigint, n bigint)
       ), pre AS (
         SELECT NOT $9::boolean OR (
           NOT EXISTS (SELECT 1 FROM ${s}.entries t JOIN json_array_elements($2::json) AS r ON t.id = r->>'id' WHERE t.user_id <> r->>'user_id')
           AND NOT EXISTS (SELECT 1 FROM ${s}.meta m WHERE m.id = 1 AND $7::text IS NOT NULL AND m.embedder_id IS NOT NULL AND (m.embedder_id <> $7 OR m.embedder_dim <> $8))
         ) AS ok
       ), locked AS (
         SELECT count(*) AS n FROM (SELECT k, pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended($6 || user_id, 0) AS k FROM expected ORDER BY k) AS keys) AS l
       ), bumped AS (
         INSERT INTO ${s}.users AS u (user_id, version, last_write_at)
         SELECT x.user_id, x.v + x.n, $4 FROM expected x
         WHERE (SELECT pre.ok FROM pre) AND (SELECT n FROM locked) >= 0 AND (x.v = 0 OR EXISTS (SELECT 1 FROM ${s}.users w WHERE w.user_id = x.user_id))
         ON CONFLICT (user_id) DO UPDATE SET version = excluded.version, last_write_at = excluded.last_write_at
         WHERE u.version = (SELECT x.v FROM expected x WHERE x.user_id = u.user_id)
         RETURNING u.user_id, u.version
       ), ok AS (
         SELECT (SELECT count(*) FROM bumped) = (SELECT count(*) FROM expected) AS ok
       ), upserted AS (
         INSERT INTO ${s}.entries AS e (${ENTRY_COLUMNS}) ${entryRowsFromJson("$2")} WHERE (SELECT ok.ok FROM ok)
         ON CONFLICT (id) DO UPDATE SET content = excluded.content, kind = excluded.kind, key = excluded.key,
           status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at, seq = excluded.seq,
           superseded_by = excluded.superseded_by, metadata = excluded.metadata, lifecycle = excluded.lifecycle, embedding = excluded.embedding
         WHERE e.user_id = excluded.user_id
         RETURNING id
       ), written AS (
         INSERT INTO ${s}.events (user_id, version, write_id, at, changes)
         SELECT i.user_id, b.version - x.n + row_number() OVER (PARTITION BY i.user_id ORDER BY i.op), $5, $4, i.changes
         FROM jsonb_to_recordset($3::jsonb) AS i(op integer, user_id text, changes jsonb) JOIN expected x USING (user_id) JOIN bumped b USING (user_id)
         WHERE (SELECT ok.ok FROM ok)
         RETURNING user_id, version
       ), meta AS (
         UPDATE ${s}.meta SET last_write_at = coalesce($4, last_write_at)
         WHERE id = 1 AND (SELECT ok.ok FROM ok) AND (SELECT count(*) FROM written) >= 0 AND (SELECT count(*) FROM upserted) >= 0
           AND (NOT $9::boolean OR $7::text IS NULL OR embedder_id IS NULL OR (embedder_id = $7 AND embedder_dim = $8))
         RETURNING embedder_id, embedder_dim
       ), outcome AS (
         SELECT (SELECT pre.ok FROM pre) AS pre, (SELECT ok.ok FROM ok) AS ok, (SELECT count(*) FROM upserted) AS upserted, (SELECT count(*) FROM written) AS written,
           (SELECT json_agg(json_build_object('user_id', user_id, 'version', version)) FROM bumped) AS versions,
           (SELECT json_agg(user_id) FROM expected WHERE user_id NOT IN (SELECT user_id FROM bumped)) AS moved,
           m.embedder_id, m.embedder_dim, m.embedder_id IS NULL AND NOT EXISTS (SELECT 1 FROM meta) AS no_meta
         FROM (SELECT 1) AS one LEFT JOIN meta m ON true
       )
       SELECT o.*, CASE WHEN $9::boolean AND o.ok AND (o.upserted <> $10 OR o.no_meta)
         THEN CAST('${REFUSED_MARK} ' || o.upserted::text AS integer) END AS refused
       FROM outcome o`);
    const params = [
      JSON.stringify(expected),
      entriesJsonText(rows),
      JSON.stringify(events),
      at,
      writeId,
      `moomem:${this.schema}:`,
      mine?.id ?? null,
      mine?.dim ?? null,
      alone,
      rows.length,
    ];
    const first = expected[0]!;
    return { text, params, expected, landmark: { userId: first.user_id, version: first.v + 1, writeId } };
  }

  /** {@link #oneStatement} inside a transaction (a write of several users): refusals throw, and the caller rolls back. */
  async #writeInOne(
    tx: SqlQueryable,
    operations: EntryRecord[][],
    rows: EntryRecord[],
    at: number,
    writeId: string,
    versions: Map<string, number>,
  ): Promise<Landmark | null> {
    if (rows.length === 0) return null;
    const statement = this.#oneStatement(operations, rows, at, writeId, false);
    const [result] = await tx.query(statement.text, statement.params);
    if (result === undefined || !isTrue(result["ok"])) throw this.#conflict(result, statement);
    if (Number(numeric(result["upserted"])) !== rows.length) {
      // An entry never changes user: the row whose id another user's entry holds was not updated, and the whole write is refused.
      const owners = await tx.query(`SELECT id, user_id FROM ${this.#s}.entries WHERE id IN (SELECT e->>'id' FROM json_array_elements($1::json) AS e)`, [
        JSON.stringify(rows.map((r) => ({ id: r.id }))),
      ]);
      const clash = rows.find((r) => owners.some((row) => row["id"] === r.id && row["user_id"] !== r.userId)) ?? rows[0]!;
      throw this.#clash(clash);
    }
    this.#checkEmbedder(result, "append");
    this.#took(result, versions);
    return statement.landmark;
  }

  /**
   * A write of one user as {@link #oneStatement} alone, its own transaction: one round trip. When its checks
   * found a row of another user or another embedder (or a race made it fail itself), the write runs again
   * the long way (`#writeOperations` in a transaction), which stores it or says precisely why not. A
   * connection that failed with the statement sent leaves its fate unknown: the event it would have written
   * is looked up, as for a lost COMMIT (`#write`).
   */
  async #writeAlone(operations: EntryRecord[][], rows: EntryRecord[], at: number): Promise<void> {
    const client = await this.#connect();
    const statement = this.#oneStatement(operations, rows, at, randomId(), true);
    const longWay = (): Promise<void> =>
      this.#write("append", at, usersOf(operations), true, (tx, writeId, versions) => this.#writeOperations(tx, operations, at, writeId, versions));
    const versions = new Map<string, number>();
    for (let attempt = 1; ; attempt++) {
      let result: SqlRow | undefined;
      try {
        [result] = await client.query(statement.text, statement.params);
      } catch (error) {
        if (sqlState(error) === "22P02" && describeError(error).includes(REFUSED_MARK)) return longWay();
        if (isRetryableConflict(error) && attempt < MAX_ATTEMPTS) continue;
        if (isConnectionError(error) && !neverSent(error)) {
          const landed = await this.#landed(statement.landmark);
          if (landed === true) {
            for (const x of statement.expected) versions.set(x.user_id, x.v + x.n);
            this.#eventsSinceTrim += statement.expected.reduce((n, x) => n + x.n, 0);
            await this.#wrote(operations, versions);
            return;
          }
          if (landed === null) {
            throw new MoomemError(
              "IO_FAILURE",
              redact(
                `${this.location}: the connection failed while this append was sent (${describeError(error)}), so it may or may not have been stored; the store's memory does not have it (the next call for the user reads what the database kept); check that the database is reachable`,
                this.#secrets,
              ),
            );
          }
        }
        if (isConnectionError(error) && attempt < MAX_ATTEMPTS) continue;
        throw ioFailure(`${this.location}: append failed and nothing of it was stored`, error, this.#secrets);
      }
      if (result !== undefined && !isTrue(result["pre"])) return longWay();
      if (result === undefined || !isTrue(result["ok"])) throw this.#conflict(result, statement);
      this.#took(result, versions);
      await this.#wrote(operations, versions);
      return;
    }
  }

  /** The `WriteConflict` of a statement that found users whose version moved. */
  #conflict(result: SqlRow | undefined, statement: OneStatement): WriteConflict {
    const moved = jsonValue(result?.["moved"]);
    return new WriteConflict(this.location, Array.isArray(moved) && moved.length > 0 ? moved.map(String) : statement.expected.map((x) => x.user_id));
  }

  #clash(entry: EntryRecord): MoomemError {
    return new MoomemError(
      "STORE_CORRUPTED",
      `${this.location}: entry id ${JSON.stringify(entry.id)} is already stored for another user than ${JSON.stringify(entry.userId)}; nothing of this write was stored (an entry never moves between users)`,
    );
  }

  /** Takes what a statement that wrote reports: the events written, each user's new version. */
  #took(result: SqlRow, versions: Map<string, number>): void {
    this.#eventsSinceTrim += Number(numeric(result["written"]));
    const bumped = jsonValue(result["versions"]);
    for (const row of Array.isArray(bumped) ? (bumped as SqlRow[]) : []) versions.set(String(row["user_id"]), Number(numeric(row["version"])));
  }

  /** After a write known to have committed, as `#write` does: the users to trim, their versions, the size. */
  async #wrote(operations: EntryRecord[][], versions: Map<string, number>): Promise<void> {
    for (const user of usersOf(operations)) this.#touched.add(user);
    for (const [user, version] of versions) this.#versions.set(user, version);
    await this.#refreshSize(false);
  }

  /** Whether the transaction that wrote `landmark` committed: true, false, or null when the database cannot tell us now. */
  async #landed(landmark: Landmark | null): Promise<boolean | null> {
    if (landmark === null) return null;
    try {
      const rows = await this.#client!.query(`SELECT write_id FROM ${this.#s}.events WHERE user_id = $1 AND version = $2`, [landmark.userId, landmark.version]);
      return rows[0]?.["write_id"] === landmark.writeId;
    } catch {
      return null;
    }
  }

  /**
   * Writes operations inside a transaction: per-user advisory locks, the rows,
   * then per operation and user one event and one version bump. Resolves to one
   * event written (the landmark to check an uncertain COMMIT by).
   */
  async #writeOperations(tx: SqlQueryable, operations: EntryRecord[][], at: number, writeId: string, versions: Map<string, number>): Promise<Landmark | null> {
    const users = usersOf(operations);
    if (users.length === 0) return null;
    await this.#lockUsers(tx, users);
    // Under the users' locks: each user's version must still be the one this process's copy is current as
    // of. Another process wrote the user since: nothing is written, and the store catches up and plans again.
    const current = await tx.query(
      `SELECT k.u AS user_id, coalesce(v.version, 0) AS version FROM jsonb_array_elements_text($1::jsonb) AS k(u)
       LEFT JOIN ${this.#s}.users v ON v.user_id = k.u`,
      [JSON.stringify(users)],
    );
    const moved = current
      .filter((row) => Number(numeric(row["version"])) !== (this.#versions.get(String(row["user_id"])) ?? 0))
      .map((row) => String(row["user_id"]));
    if (moved.length > 0) throw new WriteConflict(this.location, moved);
    const rows = latestRows(operations);
    for (let i = 0; i < rows.length; i += UPSERT_ROWS) {
      const chunk = rows.slice(i, i + UPSERT_ROWS);
      // An entry never changes user: a row whose id another user's entry holds is not updated, and the whole write is refused.
      const upserted = await tx.query(
        `INSERT INTO ${this.#s}.entries AS e (${ENTRY_COLUMNS}) ${entryRowsFromJson("$1")}
         ON CONFLICT (id) DO UPDATE SET content = excluded.content, kind = excluded.kind, key = excluded.key,
           status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at, seq = excluded.seq,
           superseded_by = excluded.superseded_by, metadata = excluded.metadata, lifecycle = excluded.lifecycle, embedding = excluded.embedding
         WHERE e.user_id = excluded.user_id
         RETURNING id`,
        [entriesJsonText(chunk)],
      );
      if (upserted.length !== chunk.length) {
        const written = new Set(upserted.map((r) => r["id"]));
        const clash = chunk.find((entry) => !written.has(entry.id))!;
        throw new MoomemError(
          "STORE_CORRUPTED",
          `${this.location}: entry id ${JSON.stringify(clash.id)} is already stored for another user than ${JSON.stringify(clash.userId)}; nothing of this write was stored (an entry never moves between users)`,
        );
      }
    }
    const events = eventsOf(operations);
    const written = await tx.query(
      `WITH incoming AS (
         SELECT r.op, r.user_id, r.changes FROM jsonb_to_recordset($1::jsonb) AS r(op integer, user_id text, changes jsonb)
       ), counts AS (
         SELECT user_id, count(*) AS n FROM incoming GROUP BY user_id
       ), bumped AS (
         INSERT INTO ${this.#s}.users AS u (user_id, version, last_write_at)
         SELECT user_id, n, $2 FROM counts
         ON CONFLICT (user_id) DO UPDATE SET version = u.version + excluded.version, last_write_at = excluded.last_write_at
         RETURNING user_id, version
       )
       INSERT INTO ${this.#s}.events (user_id, version, write_id, at, changes)
       SELECT i.user_id, b.version - c.n + row_number() OVER (PARTITION BY i.user_id ORDER BY i.op), $3, $2, i.changes
       FROM incoming i JOIN counts c USING (user_id) JOIN bumped b USING (user_id)
       RETURNING user_id, version`,
      [JSON.stringify(events), at, writeId],
    );
    this.#eventsSinceTrim += written.length;
    for (const row of written) {
      const user = String(row["user_id"]);
      const version = Number(numeric(row["version"]));
      if (version > (versions.get(user) ?? 0)) versions.set(user, version);
    }
    const mark = written[0];
    return mark === undefined ? null : { userId: String(mark["user_id"]), version: Number(numeric(mark["version"])), writeId };
  }

  /**
   * The users' write locks: transaction-scoped (so PgBouncer's transaction pooling keeps them), one per
   * user, taken in key order in one statement, so two writers never wait on each other in a cycle, even
   * when two users' keys collide. Taking one again in the same transaction is free.
   */
  async #lockUsers(tx: SqlQueryable, users: readonly string[]): Promise<void> {
    await tx.query(
      `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended($1 || u, 0) AS k FROM jsonb_array_elements_text($2::jsonb) AS u ORDER BY k) AS keys`,
      [`moomem:${this.schema}:`, JSON.stringify(users)],
    );
  }

  /** Keeps the newest `keepEvents` events of each of these users; readers behind that reload the user. */
  async #trimEvents(tx: SqlQueryable, users: string[]): Promise<void> {
    const list = JSON.stringify(users);
    await tx.query(
      `UPDATE ${this.#s}.users SET trimmed_to = version - $2
       WHERE user_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND version - $2 > trimmed_to`,
      [list, this.#keepEvents],
    );
    await tx.query(
      `DELETE FROM ${this.#s}.events e USING ${this.#s}.users u
       WHERE u.user_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND e.user_id = u.user_id AND e.version <= u.trimmed_to`,
      [list],
    );
  }

  /**
   * The first (and only) read of the backend, by `load()` or `openCatalog()`: connects, bumps the
   * writer epoch unless read-only (fencing off writers of an older moomem), then `read`s. A read-only open of a schema nobody created is an empty
   * store (`empty` gives the rest), and creates nothing.
   */
  async #open<T extends object>(what: string, read: () => Promise<T>, empty: () => T): Promise<T & Omit<LoadedState, "entries">> {
    if (this.#state !== "new") {
      throw new MoomemError(
        "STORE_CLOSED",
        `${this.location}: ${what}() was already called on this backend (a backend opens once); create a new PostgresBackend to open the store again`,
      );
    }
    this.#state = "loading";
    try {
      const client = await this.#connect();
      if (this.#schemaFound === 0) {
        this.#state = "open";
        return { ...empty(), embedder: null, truncatedRecovered: 0, formatVersion: POSTGRES_FORMAT_VERSION, lastWriteAt: null };
      }
      if (!this.#readOnly) {
        // Many writers share the store; the epoch is still bumped so that a writer of an older moomem (which
        // numbered entries itself and checked the epoch before each write) stops writing: its next write fails.
        await this.#run(`${what} (fence off older moomem writers)`, (db) =>
          db.query(`UPDATE ${this.#s}.meta SET writer_epoch = writer_epoch + 1 WHERE id = 1`),
        );
      }
      const state = await read();
      const meta = this.#meta!;
      await this.#refreshSize(true, client);
      this.#state = "open";
      return { ...state, embedder: this.#embedder, truncatedRecovered: 0, formatVersion: meta.format, lastWriteAt: this.#lastWriteAt };
    } catch (error) {
      this.#state = "closed";
      await this.#shutdown();
      throw error;
    }
  }

  /** Every entry and every user's version, in one snapshot. */
  async #readAll(): Promise<{ entries: EntryRecord[] }> {
    return this.#run("load", (db) =>
      db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        await this.#readMeta(tx);
        this.#versions = await this.#userVersions(tx);
        return { entries: await this.#pages(tx, "", []) };
      }),
    );
  }

  /** Per user, counts by status, the largest updatedAt and the largest seq stored or named by an id (see user-catalog.ts), in one snapshot. */
  async #readCatalog(): Promise<{ users: CatalogUser[] }> {
    const rows = await this.#run("load (the catalog of users)", (db) =>
      db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        await this.#readMeta(tx);
        this.#versions = await this.#userVersions(tx);
        // An id of moomem's shape names a seq in its first 12 hex digits (user-catalog.ts, seqNamedById).
        return tx.query(
          `SELECT user_id, count(*) AS total, ${STATUS_COUNTS}, max(updated_at) AS last_write_at, max(seq) AS max_seq,
             max(CASE WHEN id ~ '^[0-9a-f]{12}-[0-9a-f]{4}$' THEN ('x' || lpad(left(id, 12), 16, '0'))::bit(64)::bigint END) AS named_seq
           FROM ${this.#s}.entries GROUP BY user_id`,
        );
      }),
    );
    const users = rows.map((row): CatalogUser => ({
      ...userSummaryOfRow(row),
      maxSeq: Math.max(Number(numeric(row["max_seq"])), Number(numeric(row["named_seq"] ?? 0))),
    }));
    return { users };
  }

  /** Reads and checks the meta row, and takes what it says: embedder, row format, last write, and the stamp `refresh()` compares. */
  async #readMeta(tx: SqlQueryable): Promise<void> {
    this.#useMeta(await this.#selectMeta(tx));
  }

  #useMeta(meta: MetaRow): void {
    this.#embedder = meta.embedder;
    this.#lastWriteAt = meta.lastWriteAt;
    this.#meta = { stamp: meta.stamp, format: meta.format };
  }

  /** The meta row, checked. */
  async #selectMeta(tx: SqlQueryable): Promise<MetaRow> {
    const [meta] = await tx.query(`SELECT xmin::text AS stamp, format, embedder_id, embedder_dim, last_write_at FROM ${this.#s}.meta WHERE id = 1`);
    if (meta === undefined)
      throw new MoomemError("STORE_CORRUPTED", `${this.location}: the meta row is missing; the schema was not written by moomem (or was emptied by hand)`);
    const format = Number(numeric(meta["format"]));
    if (!Number.isSafeInteger(format) || format < 1)
      throw new MoomemError("STORE_CORRUPTED", `${this.location}: meta.format is ${JSON.stringify(String(meta["format"]))}, not a format version`);
    if (format > POSTGRES_FORMAT_VERSION) {
      throw new MoomemError(
        "STORE_CORRUPTED",
        `${this.location} holds row format ${format}, newer than the ${POSTGRES_FORMAT_VERSION} this moomem reads; upgrade moomem to open it`,
      );
    }
    const id = meta["embedder_id"];
    const dim = numeric(meta["embedder_dim"]);
    const lastWriteAt = meta["last_write_at"];
    return {
      stamp: String(meta["stamp"]),
      format,
      embedder: typeof id === "string" && typeof dim === "number" ? { id, dim } : null,
      lastWriteAt: typeof lastWriteAt === "number" ? lastWriteAt : null,
    };
  }

  /** Every user's version. */
  async #userVersions(tx: SqlQueryable): Promise<Map<string, number>> {
    const rows = await tx.query(`SELECT user_id, version FROM ${this.#s}.users`);
    return new Map(rows.map((row) => [String(row["user_id"]), Number(numeric(row["version"]))]));
  }

  /** Entries in `seq` order, a page at a time (keyset on the unique seq), optionally filtered (`where` ends with AND; its params start at $2). */
  async #pages(tx: SqlQueryable, where: string, params: unknown[]): Promise<EntryRecord[]> {
    const entries: EntryRecord[] = [];
    let after = -1;
    for (;;) {
      const rows = await tx.query(`SELECT ${ENTRY_COLUMNS} FROM ${this.#s}.entries WHERE ${where} seq > $1 ORDER BY seq LIMIT ${PAGE_ROWS}`, [
        after,
        ...params,
      ]);
      for (const row of rows) entries.push(this.#entryFromRow(row));
      if (rows.length < PAGE_ROWS) return entries;
      after = entries[entries.length - 1]!.seq;
    }
  }

  #entryFromRow(row: SqlRow): EntryRecord {
    try {
      return entryFromRow(row);
    } catch (error) {
      throw new MoomemError("STORE_CORRUPTED", `${this.location}: entry ${JSON.stringify(String(row["id"]))} cannot be read: ${describeError(error)}`, {
        cause: error,
      });
    }
  }

  #eventFromRow(row: SqlRow): UserEvent {
    const raw = typeof row["changes"] === "string" ? (JSON.parse(row["changes"]) as unknown) : row["changes"];
    const changes = Array.isArray(raw) ? (raw as Array<Record<string, unknown>>) : [];
    return {
      version: Number(numeric(row["version"])),
      at: Number(row["at"]),
      writeId: String(row["write_id"]),
      changes: changes.map((c) => ({ id: String(c["id"]), seq: Number(c["seq"]), status: c["status"] as EntryStatus })),
    };
  }

  /** Re-reads the schema's size (all of it on load/compact; after appends at most once a second). A failure keeps the old number. */
  async #refreshSize(always: boolean, client: SqlClient | null = this.#client): Promise<void> {
    const now = Date.now();
    if (client === null || (!always && now - this.#sizeAt < SIZE_REFRESH_MS)) return;
    this.#sizeAt = now;
    try {
      const [row] = await client.query(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [this.schema],
      );
      const bytes = Number(numeric(row?.["bytes"]));
      if (Number.isFinite(bytes)) this.#bytes = bytes;
    } catch {
      // Stats are informative; the write itself succeeded.
    }
  }

  #checkUsable(operation: string): void {
    if (this.#state === "closed") throw new MoomemError("STORE_CLOSED", `${this.location}: ${operation} after close(); open the store again`);
  }

  #writable(operation: string): void {
    this.#checkUsable(operation);
    if (this.#state !== "open") throw new MoomemError("STORE_CLOSED", `${this.location}: ${operation} before load(); call load() first`);
    if (this.#readOnly)
      throw new MoomemError("READ_ONLY", `${this.location} was opened readOnly; ${operation} needs a writable PostgresBackend (readOnly: false)`);
  }

  async #shutdown(): Promise<void> {
    const owned = this.#owned;
    this.#owned = null;
    if (owned !== null) {
      try {
        await owned.end();
      } catch {
        // Ending our own pool on the way out: nothing of the store's depends on it.
      }
    }
  }
}

/**
 * Splits a group into operations: a batch, or a run of batches chained by
 * `continues`. A group ending in `continues: true` is refused, as by every backend.
 */
function splitOperations(batches: readonly Batch[], location: string): EntryRecord[][] {
  const operations: EntryRecord[][] = [];
  let current: EntryRecord[] = [];
  batches.forEach((batch, i) => {
    current.push(...batch.entries);
    if (batch.continues === true) {
      if (i === batches.length - 1)
        throw invalidArgument(`${location}: the last batch of an append call has continues: true; an operation must end inside the call`);
      return;
    }
    if (current.length > 0) operations.push(current);
    current = [];
  });
  return operations;
}

/** The latest version of each id in the group: one row per id per statement (PostgreSQL refuses an upsert touching a row twice). */
function latestRows(operations: readonly EntryRecord[][]): EntryRecord[] {
  const latest = new Map<string, EntryRecord>();
  for (const op of operations) for (const entry of op) latest.set(entry.id, entry);
  return [...latest.values()];
}

/** One event per (operation, user): the ids, seqs and statuses the operation changed for the user, never content. */
function eventsOf(operations: readonly EntryRecord[][]): Array<{ op: number; user_id: string; changes: EntryChange[] }> {
  const events: Array<{ op: number; user_id: string; changes: EntryChange[] }> = [];
  operations.forEach((op, index) => {
    const byUser = new Map<string, Map<string, EntryChange>>();
    for (const entry of op) {
      let changes = byUser.get(entry.userId);
      if (changes === undefined) byUser.set(entry.userId, (changes = new Map()));
      changes.set(entry.id, { id: entry.id, seq: entry.seq, status: entry.status });
    }
    for (const [userId, changes] of byUser) events.push({ op: index, user_id: userId, changes: [...changes.values()] });
  });
  return events;
}

/** A boolean column as a driver returns it (a boolean, or PostgreSQL's text `t`). */
function isTrue(value: unknown): boolean {
  return value === true || value === "t" || value === "true";
}

/** A `json` column as a value: drivers return it parsed, or as its text. */
function jsonValue(value: unknown): unknown {
  return typeof value === "string" ? (JSON.parse(value) as unknown) : value;
}

/** The distinct users of these operations, sorted. */
function usersOf(operations: readonly EntryRecord[][]): string[] {
  return [...new Set(operations.flatMap((op) => op.map((e) => e.userId)))].sort();
}

function randomId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function checkUser(userId: unknown, operation: string): void {
  if (typeof userId !== "string" || userId.length === 0)
    throw invalidArgument(`${operation}: userId must be a non-empty string, got ${JSON.stringify(userId) ?? String(userId)}`);
}

function checkInteger(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidArgument(`PostgresBackend ${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`);
  }
  return value;
}

function checkBoolean(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalidArgument(`PostgresBackend ${name} must be true or false, got ${JSON.stringify(value) ?? String(value)}`);
  return value;
}
