// PostgresBackend with prepareStatements (named prepared statements, parsed once per connection): the backend
// conformance suite again, the statements really prepared, several schemas on one pool, a schema dropped and made
// again under statements already prepared, and a store adding and recalling through them.

import { describe, it, expect } from "vitest";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { fromPgPool } from "../../../src/persistence/postgres/pg-adapter.ts";
import { MemoryStore } from "../../../src/index.ts";
import { HashingEmbedder } from "../../../src/embedding/hashing-embedder.ts";
import { isMoomemError } from "../../../src/errors.ts";
import { makeEntry, testBackend } from "../../backend-conformance.ts";
import { clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("p");

testBackend(
  "PostgresBackend (pg Pool, prepareStatements)",
  () => new PostgresBackend({ pool: db.pool, schema: db.freshSchema(), prepareStatements: true }),
  (previous) => new PostgresBackend({ pool: db.pool, schema: previous.schema, prepareStatements: true }),
);

/** The names of the statements prepared on the one connection of a pool of one. */
async function prepared(pool: ReturnType<typeof db.cluster.pool>): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name");
  return rows.map((r) => r.name);
}

describe("PostgresBackend: prepareStatements", () => {
  it("sends its statements named, so the server holds them prepared; without the option, none", async () => {
    for (const prepare of [true, false]) {
      const pool = db.cluster.pool(1);
      const backend = new PostgresBackend({ pool, schema: db.freshSchema(), prepareStatements: prepare });
      await backend.load();
      await backend.append([{ entries: [makeEntry("a1", 1, { userId: "u1" })] }]);
      await backend.append([{ entries: [makeEntry("a2", 2, { userId: "u1" })] }]);
      expect((await backend.readUser("u1")).entries.map((e) => e.id)).toEqual(["a1", "a2"]);
      const names = await prepared(pool);
      if (prepare) expect(names.filter((n) => n.startsWith("moomem_")).length).toBeGreaterThanOrEqual(2);
      else expect(names).toEqual([]);
      await backend.close();
      await pool.end();
    }
  });

  it("two schemas on one pool of one connection: the same statement texts share names, other texts never collide", async () => {
    const pool = db.cluster.pool(1);
    const a = new PostgresBackend({ pool, schema: db.freshSchema(), prepareStatements: true });
    const b = new PostgresBackend({ pool, schema: db.freshSchema(), prepareStatements: true });
    const c = new PostgresBackend({ pool, schema: a.schema, prepareStatements: true });
    await Promise.all([a.load(), b.load()]);
    for (let i = 1; i <= 3; i++) {
      await a.append([{ entries: [makeEntry(`a${i}`, i, { userId: "u" })] }]);
      await b.append([{ entries: [makeEntry(`b${i}`, i, { userId: "u" })] }]);
    }
    await c.load();
    expect((await c.readUser("u")).entries.map((e) => e.id)).toEqual(["a1", "a2", "a3"]);
    expect((await b.readUser("u")).entries.map((e) => e.id)).toEqual(["b1", "b2", "b3"]);
    for (const backend of [a, b, c]) await backend.close();
    await pool.end();
  });

  it("a schema dropped and made again under statements prepared on its tables: the next writes and reads use the new tables", async () => {
    const pool = db.cluster.pool(1);
    const schema = db.freshSchema();
    const first = new PostgresBackend({ pool, schema, prepareStatements: true });
    await first.load();
    for (let i = 1; i <= 6; i++) await first.append([{ entries: [makeEntry(`x${i}`, i, { userId: "u" })] }]);
    await first.close();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    const second = new PostgresBackend({ pool, schema, prepareStatements: true });
    await second.load();
    expect((await second.readUser("u")).entries).toEqual([]);
    await second.append([{ entries: [makeEntry("y1", 1, { userId: "u" })] }]);
    expect((await second.readUser("u")).entries.map((e) => e.id)).toEqual(["y1"]);
    await second.close();
    await pool.end();
  });

  it("a store adds, supersedes and recalls through prepared statements as through unnamed ones", async () => {
    const results: unknown[] = [];
    for (const prepare of [false, true]) {
      const embedder = new HashingEmbedder();
      const mem = await MemoryStore.open("pg", {
        embedder,
        backend: new PostgresBackend({ pool: db.pool, schema: db.freshSchema(), prepareStatements: prepare }),
      });
      await mem.add("u", "I live in Beijing");
      await mem.add("u", "I moved to Shenzhen");
      await mem.add("u", "I am allergic to peanuts");
      const hits = await mem.recall("u", "where does the user live", { topK: 3 });
      results.push(hits.map((h) => [h.content, h.score]));
      await mem.close();
    }
    expect(results[1]).toEqual(results[0]);
  });

  it("validates the option", () => {
    for (const bad of ["yes", 1, null]) {
      let error: unknown;
      try {
        new PostgresBackend({ pool: db.pool, prepareStatements: bad as never });
      } catch (e) {
        error = e;
      }
      expect(isMoomemError(error) && error.code === "INVALID_ARGUMENT" && error.message.includes("prepareStatements")).toBe(true);
    }
    let error: unknown;
    try {
      new PostgresBackend({ client: fromPgPool(db.pool), prepareStatements: true });
    } catch (e) {
      error = e;
    }
    expect(isMoomemError(error) && error.message.includes("fromPgPool(pool, { prepare: true })")).toBe(true);
    expect(() => fromPgPool(db.pool, { prepare: "yes" as never })).toThrow(/fromPgPool options/);
  });
});
