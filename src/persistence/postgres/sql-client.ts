// The small SQL surface the PostgreSQL backend needs, so any driver plugs in (pg, PGlite, others).

/** One result row, by column name. What a value looks like depends on the driver; see `row-codec.ts`. */
export type SqlRow = Record<string, unknown>;

/**
 * Runs one SQL statement with `$1`, `$2`, … parameters and resolves to its rows
 * (an empty array for statements that return none).
 *
 * moomem only passes strings, finite numbers and null as parameters (lists
 * travel as JSON text), so a driver needs no type mapping of its own.
 */
export interface SqlQueryable {
  query(text: string, params?: readonly unknown[]): Promise<SqlRow[]>;
}

/**
 * What the PostgreSQL backend talks to: plain queries, and transactions bound to
 * one connection. `fromPgPool` (node-postgres) and `fromPglite` (PGlite) make
 * one; any other driver needs only these two functions.
 *
 * @example
 * ```ts
 * const client: SqlClient = {
 *   query: async (text, params) => (await myDriver.unsafe(text, params)).rows,
 *   transaction: (fn) => myDriver.begin((tx) => fn({ query: async (t, p) => (await tx.unsafe(t, p)).rows })),
 * };
 * ```
 */
export interface SqlClient extends SqlQueryable {
  /**
   * Runs `fn` between BEGIN and COMMIT on one connection; ROLLBACK and rethrow
   * when `fn` throws. moomem awaits each query before sending the next, and sets
   * the isolation level itself (`SET TRANSACTION …` as the first statement).
   * A rejection after `fn` resolved means COMMIT failed: the backend then checks
   * whether the transaction landed (see `postgres-backend.ts`).
   */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}
