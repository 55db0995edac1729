// Where a PostgreSQL backend connects: a printable location without credentials, the secrets to mask, and the pool it owns for a connection string.

import { MoomemError, describeError } from "../../errors.ts";
import type { PgPoolLike } from "./pg-adapter.ts";
import { redact } from "./sql-errors.ts";

/** The printable place and the strings that must never be printed. */
export interface ConnectionLabel {
  /** e.g. `postgres://app@db.internal:5432/memory`: no password, no query string. */
  where: string;
  secrets: string[];
}

/**
 * Describes a connection string for messages. URL form (`postgres://user:pw@host/db?…`)
 * keeps user, host, port and database; libpq's `key=value` form only says so. Every
 * password-like value (URL password, `password=`, `sslpassword=`, in either form,
 * raw and percent-decoded) becomes a secret to mask.
 */
export function describeConnectionString(connectionString: string): ConnectionLabel {
  const secrets: string[] = [];
  for (const match of connectionString.matchAll(/(?:^|[\s&?])(?:ssl)?password=('(?:[^'\\]|\\.)*'|[^\s&]*)/gi)) {
    const raw = match[1]!.replace(/^'(.*)'$/, "$1");
    secrets.push(raw, safeDecode(raw));
  }
  try {
    const url = new URL(connectionString);
    if (url.password !== "") secrets.push(url.password, safeDecode(url.password));
    const user = url.username === "" ? "" : `${safeDecode(url.username)}@`;
    const where = `${url.protocol}//${user}${url.host}${url.pathname}`;
    return { where: redact(where, secrets), secrets: unique(secrets) };
  } catch {
    return { where: "PostgreSQL (connection string)", secrets: unique(secrets) };
  }
}

/**
 * Every form of the password a connection string holds (the URL password, `password=`,
 * `sslpassword=`; raw and percent-decoded), for a host to mask in whatever it prints
 * or logs (see `redactSecrets`).
 */
export function connectionSecrets(connectionString: string): string[] {
  return describeConnectionString(connectionString).secrets;
}

/** Describes a host's pool from its `options` (node-postgres keeps its config there), never printing the password. */
export function describePool(pool: unknown): ConnectionLabel {
  const options = typeof pool === "object" && pool !== null ? (pool as { options?: unknown }).options : undefined;
  if (typeof options !== "object" || options === null) return { where: "PostgreSQL (pool)", secrets: [] };
  const o = options as Record<string, unknown>;
  if (typeof o["connectionString"] === "string") {
    const label = describeConnectionString(o["connectionString"]);
    if (typeof o["password"] === "string") label.secrets.push(o["password"]);
    return label;
  }
  const secrets = typeof o["password"] === "string" ? [o["password"]] : [];
  const user = typeof o["user"] === "string" ? `${o["user"]}@` : "";
  const host = typeof o["host"] === "string" ? o["host"] : "localhost";
  const port = typeof o["port"] === "number" || typeof o["port"] === "string" ? `:${o["port"]}` : "";
  const database = typeof o["database"] === "string" ? `/${o["database"]}` : "";
  return { where: redact(`postgres://${user}${host}${port}${database}`, secrets), secrets };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter((v) => v.length > 0))];
}

/** A pool the backend made itself (from a connection string), so it also ends it. */
export interface OwnedPool extends PgPoolLike {
  end(): Promise<void>;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

// In a variable, so bundlers leave the optional peer out instead of failing to resolve it.
const PG_MODULE = "pg";

/** Peer range moomem is tested with; the install hint names it. */
export const PG_RANGE = "^8.11.0";

/**
 * Makes a node-postgres Pool for a connection string (the optional peer `pg`,
 * loaded only here). Idle connections the server drops (restart, failover) are
 * logged nowhere and replaced on the next query: the error a caller sees comes
 * from the query that could not run.
 */
export async function createOwnedPool(connectionString: string, max: number, secrets: readonly string[]): Promise<OwnedPool> {
  let pg: Record<string, unknown>;
  try {
    pg = (await import(PG_MODULE)) as Record<string, unknown>;
  } catch (error) {
    throw new MoomemError(
      "MISSING_DEPENDENCY",
      `PostgresBackend with a connectionString needs the optional package pg, which could not be loaded (${redact(describeError(error), secrets)}); install it next to moomem with: npm i pg@${PG_RANGE} — or pass your own { pool } or { client }`,
    );
  }
  const namespace = (pg["default"] ?? pg) as { Pool?: new (config: Record<string, unknown>) => OwnedPool };
  if (typeof namespace.Pool !== "function") {
    throw new MoomemError("MISSING_DEPENDENCY", `the installed pg package has no Pool export; install pg@${PG_RANGE}`);
  }
  // A bounded connect wait: an unreachable host fails the call instead of hanging it.
  const pool = new namespace.Pool({ connectionString, max, connectionTimeoutMillis: 10_000 });
  pool.on("error", () => undefined);
  return pool;
}
