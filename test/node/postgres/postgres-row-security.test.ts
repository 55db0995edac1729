// Opt-in row-level security (docs/postgres.md, "Row-level security") on a real server: a role under the policy sees
// and writes only the rows of the user its transaction names, whatever SQL it sends; moomem itself keeps working,
// as the tables' owner and as a service role the policy lets through.

import { describe, it, expect } from "vitest";
import pg from "pg";
import { MemoryStore } from "../../../src/index.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { enableRowLevelSecurity } from "../../../src/persistence/postgres/row-security.ts";
import { fromPgPool } from "../../../src/persistence/postgres/pg-adapter.ts";
import { rejectsWith } from "../../helpers/scripted.ts";
import { clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("r");
const { freshSchema } = db;

/** A store of ann and bob, written by moomem as the tables' owner, with row-level security on for `role`. */
async function store(role: string, moomemRoles?: string): Promise<string> {
  const schema = freshSchema();
  const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
  await mem.add("ann", "I live in Berlin");
  await mem.add("ann", "I like green tea");
  await mem.add("bob", "I live in Paris");
  await mem.close();
  for (const r of [role, ...(moomemRoles === undefined ? [] : [moomemRoles])]) {
    await db.pool.query(`DO $$ BEGIN CREATE ROLE ${r} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  }
  await db.pool.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
  await db.pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON "${schema}".entries, "${schema}".users, "${schema}".events TO ${role}`);
  await enableRowLevelSecurity(fromPgPool(db.pool), { schema, roles: role, ...(moomemRoles === undefined ? {} : { moomemRoles }) });
  return schema;
}

/** Runs `sql` as `role` in one transaction that names `user` (null: names none); resolves to the rows. */
async function asRole(role: string, user: string | null, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = await db.pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(`SET LOCAL ROLE ${role}`);
    if (user !== null) await client.query("SELECT set_config('moomem.user_id', $1, true)", [user]);
    const { rows } = await client.query(sql, params);
    await client.query("COMMIT");
    return rows as Record<string, unknown>[];
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

describe("row-level security", () => {
  it("a role under the policy reads only the rows of the user its transaction names, whatever the query", async () => {
    const schema = await store("support_app");
    const t = (name: string): string => `"${schema}".${name}`;
    expect(await asRole("support_app", null, `SELECT user_id FROM ${t("entries")}`)).toEqual([]);
    expect(await asRole("support_app", "", `SELECT user_id FROM ${t("entries")}`)).toEqual([]);
    const ann = await asRole("support_app", "ann", `SELECT user_id, content FROM ${t("entries")} ORDER BY seq`);
    expect(ann.map((r) => r["content"])).toEqual(["I live in Berlin", "I like green tea"]);
    // Hand-written attempts at bob's rows from ann's transaction: nothing.
    expect(await asRole("support_app", "ann", `SELECT content FROM ${t("entries")} WHERE user_id = 'bob'`)).toEqual([]);
    expect(await asRole("support_app", "ann", `SELECT count(*)::int AS n FROM ${t("entries")}`)).toEqual([{ n: 2 }]);
    expect(await asRole("support_app", "ann", `SELECT user_id FROM ${t("users")}`)).toEqual([{ user_id: "ann" }]);
    expect(new Set((await asRole("support_app", "ann", `SELECT user_id FROM ${t("events")}`)).map((r) => r["user_id"]))).toEqual(new Set(["ann"]));
    expect(await asRole("support_app", "ann", `SELECT e.content FROM ${t("entries")} e JOIN ${t("users")} u USING (user_id) WHERE u.user_id <> 'ann'`)).toEqual(
      [],
    );
    // Writing bob's rows from ann's transaction: updates touch nothing, an insert is refused.
    expect(await asRole("support_app", "ann", `UPDATE ${t("entries")} SET content = 'x' WHERE user_id = 'bob' RETURNING id`)).toEqual([]);
    await expect(asRole("support_app", "ann", `INSERT INTO ${t("users")} (user_id, version, last_write_at) VALUES ('bob2', 1, 0)`)).rejects.toThrow(
      /row-level security/,
    );
    // A transaction that names bob sees bob's, and the setting ends with it.
    expect((await asRole("support_app", "bob", `SELECT content FROM ${t("entries")}`)).map((r) => r["content"])).toEqual(["I live in Paris"]);
    expect(await asRole("support_app", null, `SELECT user_id FROM ${t("entries")}`)).toEqual([]);
  });

  it("moomem keeps working with the policy on: as the tables' owner, and as a service role named in moomemRoles", async () => {
    const schema = await store("support_app2", "moomem_service");
    const owner = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await owner.add("cleo", "I live in Rome");
    expect((await owner.users()).map((u) => u.userId)).toEqual(["ann", "bob", "cleo"]);
    expect((await owner.recall("bob", "where do I live")).map((h) => h.content)).toEqual(["I live in Paris"]);
    await owner.close();

    await db.pool.query(`GRANT USAGE ON SCHEMA "${schema}" TO moomem_service`);
    await db.pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO moomem_service`);
    // Every connection of this pool runs as moomem_service (not the owner): the service policy lets it see every user.
    const service = new pg.Pool({ connectionString: db.cluster.url, max: 4, options: "-c role=moomem_service" });
    service.on("error", () => {});
    try {
      expect((await service.query("SELECT current_user AS u")).rows).toEqual([{ u: "moomem_service" }]);
      // Under the user policy alone (no transaction names a user), this role would see nothing: the service policy is what lets it.
      expect((await service.query(`SELECT count(*)::int AS n FROM "${schema}".entries`)).rows).toEqual([{ n: 4 }]);
      const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: service, schema, migrate: false }) });
      expect((await mem.users()).map((u) => u.userId)).toEqual(["ann", "bob", "cleo"]);
      await mem.add("dan", "I live in Oslo");
      expect((await mem.stats()).total).toBe(5);
      await mem.close();
    } finally {
      await service.end();
    }
  });

  it("refuses bad arguments and a schema without a store, changing nothing", async () => {
    const client = fromPgPool(db.pool);
    await rejectsWith(enableRowLevelSecurity(client, { roles: "bad role; drop" }), "INVALID_ARGUMENT");
    await rejectsWith(enableRowLevelSecurity(client, { roles: [] }), "INVALID_ARGUMENT");
    await rejectsWith(enableRowLevelSecurity(client, { schema: "x;y", roles: "a" }), "INVALID_ARGUMENT");
    await rejectsWith(enableRowLevelSecurity(client, { schema: freshSchema(), roles: "support_app" }), "INVALID_ARGUMENT");
    // A role the server does not know: the database refuses the policy, the caller gets IO_FAILURE naming it, and no
    // table of the store has row security turned on.
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await mem.add("ann", "I live in Berlin");
    await mem.close();
    const error = await rejectsWith(enableRowLevelSecurity(client, { schema, roles: "no_such_role_here" }), "IO_FAILURE");
    expect(error.message).toContain("no_such_role_here");
    const { rows } = await db.pool.query("SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relrowsecurity", [schema]);
    expect(rows).toEqual([]);
  });
});
