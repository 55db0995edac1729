// Where the CLI's store lives: a folder (`--dir`) or a PostgreSQL schema (`--pg`, `MOOMEM_PG_URL`), and how to print it without credentials.

import type { OpenOptions } from "../node.ts";
import { PostgresBackend, connectionSecrets, redactSecrets } from "../postgres.ts";
import { type OptionSpecs, type OptionValues, stringOption, usageError } from "./args.ts";

/** The flags that point a command at a PostgreSQL store instead of a folder, listed in `moomem --help`. */
export const STORE_OPTIONS: OptionSpecs = {
  pg: {
    type: "string",
    placeholder: "<url>",
    description:
      "use the PostgreSQL store at this connection string instead of a folder (or set MOOMEM_PG_URL); needs the package pg. " +
      "Keep the password out of it (PGPASSWORD or ~/.pgpass): command lines are visible to other users",
  },
  "pg-schema": { type: "string", placeholder: "<name>", description: "the schema the PostgreSQL store lives in (default moomem, or MOOMEM_PG_SCHEMA)" },
};

const DEFAULT_DIR = "./memory";
/** A schema name PostgresBackend accepts: a plain identifier (docs/postgres.md, "Schema"). */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A store in a folder. */
export interface FolderLocation {
  readonly kind: "folder";
  readonly dir: string;
  /** What messages print: the folder as given. */
  readonly where: string;
}

/** A store in a PostgreSQL schema. The connection string is never printed: `where` has no password. */
export interface PostgresLocation {
  readonly kind: "postgres";
  readonly connectionString: string;
  readonly schema: string;
  /** e.g. `postgres://app@db:5432/memory (schema "moomem")`. */
  readonly where: string;
  /** Every form of the password the connection string holds, to mask in whatever the CLI prints. */
  readonly secrets: readonly string[];
}

export type StoreLocation = FolderLocation | PostgresLocation;

/**
 * The store a command uses. `--pg` and `--dir` together are a usage error; a flag beats the
 * environment, so `--dir` opens the folder even when MOOMEM_PG_URL is set (docs/decisions.md).
 */
export function resolveStoreLocation(values: OptionValues, env: Readonly<Record<string, string | undefined>>, command: string): StoreLocation {
  const dir = stringOption(values, "dir");
  const pgFlag = stringOption(values, "pg");
  const schemaFlag = stringOption(values, "pg-schema");
  if (pgFlag !== undefined && dir !== undefined) {
    throw usageError(command, "--pg and --dir name two different stores: pass one of them (a PostgreSQL connection string, or a folder)");
  }
  const fromEnv = env["MOOMEM_PG_URL"];
  const connectionString = pgFlag ?? (dir === undefined && fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined);
  if (connectionString === undefined) {
    if (schemaFlag !== undefined) throw usageError(command, "--pg-schema names a schema of a PostgreSQL store: pass --pg <url> (or set MOOMEM_PG_URL) too");
    const folder = dir ?? DEFAULT_DIR;
    if (folder.trim() === "") throw usageError(command, "--dir needs a folder path");
    return { kind: "folder", dir: folder, where: folder };
  }
  const source = pgFlag === undefined ? "MOOMEM_PG_URL" : "--pg";
  // The value is never echoed: it may hold a password.
  if (!/^postgres(?:ql)?:\/\/./i.test(connectionString) && !/^\s*[a-z_]+\s*=/i.test(connectionString)) {
    throw usageError(
      command,
      `${source} needs a PostgreSQL connection string, postgres://user@host:5432/database (or libpq's key=value form); the value given is neither`,
    );
  }
  const envSchema = env["MOOMEM_PG_SCHEMA"];
  const schema = schemaFlag ?? (envSchema === undefined || envSchema === "" ? "moomem" : envSchema);
  if (!SCHEMA_NAME.test(schema)) {
    throw usageError(
      command,
      `${schemaFlag === undefined ? "MOOMEM_PG_SCHEMA" : "--pg-schema"} must be a plain SQL identifier (letters, digits and _, at most 63, not starting with a digit), got ${JSON.stringify(schema)}`,
    );
  }
  // Making a backend connects nothing: it only describes where it would connect.
  const where = new PostgresBackend({ connectionString, schema }).location;
  return { kind: "postgres", connectionString, schema, where, secrets: connectionSecrets(connectionString) };
}

/** The path `MemoryStore.open` gets: the folder, or (with a backend, which the path does not choose) the printable location. */
export function storePath(location: StoreLocation): string {
  return location.kind === "folder" ? location.dir : location.where;
}

/**
 * `options` for this location: for PostgreSQL a new backend (a backend loads once, so each open needs
 * its own), read-only when the store is opened read-only, so reading commands never take over as the writer.
 */
export function withStoreBackend(location: StoreLocation, options: OpenOptions): OpenOptions {
  if (location.kind === "folder") return options;
  const readOnly = options.readOnly === true;
  return { ...options, backend: new PostgresBackend({ connectionString: location.connectionString, schema: location.schema, readOnly }) };
}

/**
 * `text` with every form of the location's password masked, and the password of any
 * `scheme://user:password@` URL (a connection string typed where a command word belongs
 * is echoed as an unknown command). For error messages; never applied to exported data.
 */
export function maskSecrets(location: StoreLocation | undefined, text: string): string {
  return redactSecrets(text, location?.kind === "postgres" ? location.secrets : []);
}
