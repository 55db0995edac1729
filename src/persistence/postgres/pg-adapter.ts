// SqlClient over a node-postgres (`pg`) Pool, typed structurally so moomem needs no `pg` types.

import type { SqlClient, SqlQueryable, SqlRow } from "./sql-client.ts";
import { invalidArgument } from "../../errors.ts";
import { isConnectionError } from "./sql-errors.ts";
import { hashString } from "../../text/string-hash.ts";
import { describeValue } from "../../describe-value.ts";

/** What moomem reads of a `pg` query result. */
export interface PgQueryResultLike {
  rows: SqlRow[];
}

/** A named statement as node-postgres takes it: prepared on each connection once, then only bound and run. */
export interface PgQueryConfigLike {
  name: string;
  text: string;
  values: unknown[];
}

/** Options of {@link fromPgPool}. */
export interface PgPoolOptions {
  /**
   * Send each parameterised statement as a named prepared statement (default false): PostgreSQL parses it
   * once per connection and then only binds and runs it, which spares the server most of its CPU per write
   * (docs/postgres.md "Measured"). Prepared statements belong to a session: use it on a direct connection
   * (or session pooling, or PgBouncer 1.21+ with `max_prepared_statements` set), not behind an older
   * PgBouncer's transaction pooling, which hands each transaction another session.
   */
  prepare?: boolean;
}

/** The subset of a `pg` PoolClient moomem uses. */
export interface PgPoolClientLike {
  query(text: string | PgQueryConfigLike, values?: unknown[]): Promise<PgQueryResultLike>;
  /** `release(error)` destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
  /** node-postgres emits "error" on a checked-out client whose connection dies between queries. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/** The subset of a `pg` Pool moomem uses (a `pg.Pool`, or anything shaped like one). */
export interface PgPoolLike {
  query(text: string | PgQueryConfigLike, values?: unknown[]): Promise<PgQueryResultLike>;
  connect(): Promise<PgPoolClientLike>;
}

/**
 * A {@link SqlClient} over a node-postgres Pool. Plain queries go to any pooled
 * connection; a transaction checks one connection out for its whole length.
 * The pool stays the host's: nothing here ends it.
 *
 * A single `pg.Client` is deliberately not accepted: reads that run while a
 * write transaction is open would land inside that transaction.
 *
 * Attach `pool.on("error", …)` in the host: node-postgres emits an error event
 * when the server closes an idle connection (a restart, a failover), and an
 * unhandled one ends the process. Queries after that get a fresh connection.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on("error", (e) => console.warn("idle PostgreSQL connection lost:", e.message));
 * const backend = new PostgresBackend({ client: fromPgPool(pool) });
 * ```
 */
export function fromPgPool(pool: PgPoolLike, options: PgPoolOptions = {}): SqlClient {
  if (typeof options !== "object" || options === null || (options.prepare !== undefined && typeof options.prepare !== "boolean")) {
    throw invalidArgument(`fromPgPool options must be an object like { prepare: true }, got ${describeValue(options)}`);
  }
  const name = options.prepare === true ? statementNames() : null;
  /** One statement on `on` (the pool or a checked-out connection), named when preparing and it has parameters. */
  const send = (on: PgPoolLike | PgPoolClientLike, text: string, params: readonly unknown[] | undefined): Promise<PgQueryResultLike> => {
    const values = params === undefined ? undefined : [...params];
    if (name === null || values === undefined || values.length === 0) return on.query(text, values);
    const named = name(text);
    return named === undefined ? on.query(text, values) : on.query({ name: named, text, values });
  };
  return {
    async query(text, params) {
      return (await send(pool, text, params)).rows;
    },
    async transaction(fn) {
      const connection = await pool.connect();
      if (typeof connection !== "object" || connection === null || typeof connection.release !== "function") {
        // A pg.Client's connect() resolves to nothing: it has no connections to lend.
        throw invalidArgument(
          "fromPgPool needs a pg Pool: connect() must lend a client with release(); a single pg.Client would run concurrent reads inside open transactions",
        );
      }
      let destroy: Error | undefined;
      // Unheard, that event would end the process; the next query on the dead connection fails and says why.
      const onError = (error: Error): void => {
        destroy = error;
      };
      connection.on?.("error", onError);
      try {
        await connection.query("BEGIN");
        try {
          const result = await fn(serialized((text, params) => send(connection, text, params)));
          await connection.query("COMMIT");
          return result;
        } catch (error) {
          try {
            // After a failed COMMIT this only warns ("no transaction in progress"); it throws only on a dead connection.
            await connection.query("ROLLBACK");
          } catch (rollbackError) {
            destroy = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
          }
          throw error;
        }
      } catch (error) {
        destroy ??= error instanceof Error && isConnectionError(error) ? error : undefined;
        throw error;
      } finally {
        connection.removeListener?.("error", onError);
        connection.release(destroy);
      }
    },
  };
}

/** Statements named per adapter at most; texts past it run unnamed, so a connection never holds an unbounded number. */
const MAX_NAMED = 256;

/**
 * The name of each statement text: from two hashes of the text and its length, so two adapters on one pool (two
 * schemas) give one text one name and two texts never share one (node-postgres refuses a name reused for another text).
 */
function statementNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let known = names.get(text);
    if (known === undefined && names.size < MAX_NAMED) {
      known = `moomem_${hashString(text, 0).toString(36)}_${hashString(text, 0x9e3779b9).toString(36)}_${text.length.toString(36)}`;
      names.set(text, known);
    }
    return known;
  };
}

/**
 * Queries of one transaction one after another, even when a caller fires two at
 * once: a connection runs one statement at a time, and node-postgres only warns
 * (and will refuse) when asked for more.
 */
export function serialized(run: (text: string, params?: readonly unknown[]) => Promise<PgQueryResultLike>): SqlQueryable {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    query(text, params) {
      const next = tail.then(async () => (await run(text, params)).rows);
      tail = next.catch(() => undefined);
      return next;
    },
  };
}
