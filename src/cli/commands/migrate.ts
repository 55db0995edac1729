// `moomem migrate`: create or upgrade a PostgreSQL store's tables ahead of time (a deploy step), idempotent and safe to run from several servers at once.

import { PostgresBackend } from "../../postgres.ts";
import { usageError } from "../args.ts";
import { type Command, type CommandContext, requireNone } from "../command.ts";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "create or upgrade the tables of a PostgreSQL store (--pg); safe to run again, and from several servers at once",
  usage: "",
  options: {},
  details: [
    "Brings the schema (--pg-schema, default moomem) to the newest version this moomem knows and",
    "says which migrations it applied (none when it was current). Each migration is applied once,",
    "under a transaction-scoped advisory lock, so servers that start together can all run it.",
    "Writing commands migrate on their own; run this in a deploy step, or with a role that may",
    "create tables when the app's role may not. A file store (--dir) needs no migration.",
    "",
    "examples:",
    "  moomem migrate --pg postgres://admin@db:5432/memory",
    "  MOOMEM_PG_URL=postgres://admin@db:5432/memory moomem migrate --pg-schema tenant_a",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const location = ctx.location;
    if (location.kind !== "postgres") {
      throw usageError(ctx.name, "migrate is for a PostgreSQL store: pass --pg <url> (or set MOOMEM_PG_URL); a folder store (--dir) needs no migration");
    }
    const backend = new PostgresBackend({ connectionString: location.connectionString, schema: location.schema, poolSize: 1 });
    try {
      const result = await backend.setup();
      if (ctx.out.json) {
        ctx.out.data({ store: location.where, schema: location.schema, applied: result.applied, version: result.version });
        return;
      }
      ctx.out.line(
        result.applied.length === 0
          ? `${location.where} is current (schema version ${result.version}); nothing to apply`
          : `${location.where}: applied ${result.applied.length === 1 ? "migration" : "migrations"} ${result.applied.join(", ")}; now at schema version ${result.version}`,
      );
    } finally {
      await backend.close();
    }
  },
};
