// SqlClient over a node-postgres (`pg`) Pool, typed structurally so moomem needs no `pg` types.

import type { SqlClient, SqlQueryable, SqlRow } from "./sql-client.ts";
import { invalidArgument } from "../../errors.ts";
import { isConnectionError } from "./sql-errors.ts";

/** What moomem reads of a `pg` query result. */
export interface PgQueryResultLike {
  rows: SqlRow[];
}

/** The subset of a `pg` PoolClient moomem uses. */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  /** `release(error)` destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
  /** node-postgres emits "error" on a checked-out client whose connection dies between queries. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/** The subset of a `pg` Pool moomem uses (a `pg.Pool`, or anything shaped like one). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
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
export function fromPgPool(pool: PgPoolLike): SqlClient {
  return {
    async query(text, params) {
      return (await pool.query(text, params === undefined ? undefined : [...params])).rows;
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
          const result = await fn(serialized((text, params) => connection.query(text, params === undefined ? undefined : [...params])));
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
