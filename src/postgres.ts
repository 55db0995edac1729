// The `moomem/postgres` entry: a PostgreSQL backend any number of app servers can share (any driver; `pg` is an optional peer).

export {
  PostgresBackend,
  type PostgresBackendOptions,
  type LoadedUser,
  type UserChanges,
  type UserEvent,
  type EntryChange,
  type UserSummary,
} from "./persistence/postgres/postgres-backend.ts";
export type { SqlClient, SqlQueryable, SqlRow } from "./persistence/postgres/sql-client.ts";
export {
  fromPgPool,
  type PgPoolLike,
  type PgPoolClientLike,
  type PgPoolOptions,
  type PgQueryConfigLike,
  type PgQueryResultLike,
} from "./persistence/postgres/pg-adapter.ts";
export { fromPglite, type PgliteLike, type PgliteTransactionLike, type PgliteResultLike } from "./persistence/postgres/pglite-adapter.ts";
export { migrate, DEFAULT_SCHEMA, LATEST_SCHEMA_VERSION, POSTGRES_FORMAT_VERSION, type MigrationResult } from "./persistence/postgres/schema.ts";
export { connectionSecrets } from "./persistence/postgres/connection.ts";
export { enableRowLevelSecurity, USER_SETTING, type RowLevelSecurityOptions } from "./persistence/postgres/row-security.ts";
export { redact as redactSecrets } from "./persistence/postgres/sql-errors.ts";
