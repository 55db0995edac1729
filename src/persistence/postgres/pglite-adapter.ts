// SqlClient over PGlite (PostgreSQL compiled to WebAssembly, in process), typed structurally.

import type { SqlClient, SqlRow } from "./sql-client.ts";
import { serialized } from "./pg-adapter.ts";

/** What moomem reads of a PGlite query result. */
export interface PgliteResultLike {
  rows: SqlRow[];
}

/** The subset of a PGlite transaction moomem uses. */
export interface PgliteTransactionLike {
  query(text: string, params?: unknown[]): Promise<PgliteResultLike>;
}

/** The subset of a `PGlite` instance moomem uses. */
export interface PgliteLike {
  query(text: string, params?: unknown[]): Promise<PgliteResultLike>;
  transaction<T>(callback: (tx: PgliteTransactionLike) => Promise<T>): Promise<T>;
}

/**
 * A {@link SqlClient} over a PGlite database: a whole PostgreSQL in the process
 * (Node, Bun, Deno, browsers), handy for tests and single-process apps. PGlite
 * has one connection, so its transactions simply queue; the database stays the
 * host's (close it yourself).
 *
 * @example
 * ```ts
 * import { PGlite } from "@electric-sql/pglite";
 * const backend = new PostgresBackend({ client: fromPglite(new PGlite("./memory-db")) });
 * ```
 */
export function fromPglite(db: PgliteLike): SqlClient {
  return {
    async query(text, params) {
      return (await db.query(text, params === undefined ? undefined : [...params])).rows;
    },
    transaction(fn) {
      return db.transaction((tx) => fn(serialized((text, params) => tx.query(text, params === undefined ? undefined : [...params]))));
    },
  };
}
