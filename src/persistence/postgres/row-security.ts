// Opt-in row-level security for a moomem schema: per-user policies for roles other than moomem's own (docs/postgres.md, "Row-level security").

import { invalidArgument } from "../../errors.ts";
import type { SqlClient } from "./sql-client.ts";
import { DEFAULT_SCHEMA, quoteSchema, schemaVersion } from "./schema.ts";
import { ioFailure } from "./sql-errors.ts";

/** The setting a transaction names its user with: `SELECT set_config('moomem.user_id', $1, true)` (true: until the transaction ends). */
export const USER_SETTING = "moomem.user_id";

/** The tables that hold a `user_id` column: each gets the policy. */
const USER_TABLES = ["entries", "users", "events"] as const;

const POLICY = "moomem_user_rows";
const SERVICE_POLICY = "moomem_service_rows";

/** Options of {@link enableRowLevelSecurity}. */
export interface RowLevelSecurityOptions {
  /** The moomem schema (default `moomem`); it must be migrated already. */
  schema?: string;
  /**
   * The role (or roles) the policy applies to: those your own per-user code connects as. Never moomem's own
   * role: its transactions span several users (see the docs), and it is exempt as the tables' owner.
   */
  roles: string | readonly string[];
  /**
   * Roles moomem's own processes connect as when they are not the tables' owner (the owner is exempt anyway):
   * a second policy lets them read and write every row. Without it, enabling security hides every row from them.
   */
  moomemRoles?: string | readonly string[];
}

/** A role list for a policy: each a plain identifier, at least one. */
function roleList(value: unknown, what: string): string {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0)
    throw invalidArgument(`enableRowLevelSecurity: ${what} must name at least one role, got ${JSON.stringify(value) ?? String(value)}`);
  return (list as readonly unknown[]).map(quoteRole).join(", ");
}

function quoteRole(role: unknown): string {
  if (typeof role !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(role)) {
    throw invalidArgument(
      `enableRowLevelSecurity: roles must be plain SQL identifiers (letters, digits, _; at most 63; not starting with a digit), got ${JSON.stringify(role) ?? String(role)}`,
    );
  }
  return `"${role}"`;
}

/**
 * Turns on row-level security on the tables that hold users' rows (`entries`, `users`, `events`) with one
 * policy per table: a row is visible to, and may be written by, the given roles only when its `user_id` is
 * the transaction's `moomem.user_id` setting (none set, or empty: no row). The tables' owner (the role
 * moomem's processes run as) is exempt, so moomem works as before; `meta`, `counters` and `migrations` get
 * no policy (they hold no user's data: grant your roles nothing there). Idempotent; each run replaces the
 * role lists (pass every role). It grants nothing: grant your roles what they need yourself (docs/postgres.md).
 *
 * @example
 * ```ts
 * await enableRowLevelSecurity(fromPgPool(adminPool), { roles: "support_app" });
 * // then, as support_app, per request:
 * // BEGIN; SELECT set_config('moomem.user_id', $1, true); SELECT content FROM moomem.entries; COMMIT;
 * ```
 */
export async function enableRowLevelSecurity(client: SqlClient, options: RowLevelSecurityOptions): Promise<void> {
  if (typeof options !== "object" || options === null) {
    throw invalidArgument(`enableRowLevelSecurity needs options { roles, schema?, moomemRoles? }, got ${String(options)}`);
  }
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const s = quoteSchema(schema);
  const roles = roleList(options.roles, "roles");
  const service = options.moomemRoles === undefined ? null : roleList(options.moomemRoles, "moomemRoles");
  let version: number;
  try {
    version = await schemaVersion(client, schema);
  } catch (error) {
    throw ioFailure(`enableRowLevelSecurity: reading the version of schema ${s} failed`, error, []);
  }
  if (version === 0) {
    throw invalidArgument(`enableRowLevelSecurity: schema ${s} holds no moomem store; run the migrations first (migrate(), or open it once writable)`);
  }
  const mine = `user_id = current_setting('${USER_SETTING}', true) AND current_setting('${USER_SETTING}', true) <> ''`;
  await setUp(
    client,
    async (tx) => {
      for (const table of USER_TABLES) {
        await tx.query(`ALTER TABLE ${s}.${table} ENABLE ROW LEVEL SECURITY`);
        await tx.query(`DROP POLICY IF EXISTS ${POLICY} ON ${s}.${table}`);
        await tx.query(`CREATE POLICY ${POLICY} ON ${s}.${table} TO ${roles} USING (${mine}) WITH CHECK (${mine})`);
        await tx.query(`DROP POLICY IF EXISTS ${SERVICE_POLICY} ON ${s}.${table}`);
        if (service !== null) await tx.query(`CREATE POLICY ${SERVICE_POLICY} ON ${s}.${table} TO ${service} USING (true) WITH CHECK (true)`);
      }
    },
    s,
  );
}

/** The policies in one transaction; a refusal (a role that does not exist, a user who does not own the tables) is `IO_FAILURE` naming it, and nothing changed. */
async function setUp(client: SqlClient, body: Parameters<SqlClient["transaction"]>[0], s: string): Promise<void> {
  try {
    await client.transaction(body);
  } catch (error) {
    throw ioFailure(`enableRowLevelSecurity: setting up the policies on schema ${s} failed and nothing changed`, error, []);
  }
}
