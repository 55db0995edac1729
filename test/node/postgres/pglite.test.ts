// PostgresBackend on PGlite (PostgreSQL in WebAssembly, in process): the conformance suite and the store, through
// a second driver whose type mapping differs from node-postgres (int8 as numbers, bytea as Uint8Array).

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { MemoryStore } from "../../../src/index.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { fromPglite } from "../../../src/persistence/postgres/pglite-adapter.ts";
import type { SqlClient } from "../../../src/persistence/postgres/sql-client.ts";
import { testBackend } from "../../backend-conformance.ts";

let db: PGlite;
let client: SqlClient;
let schemas = 0;

beforeAll(async () => {
  db = new PGlite();
  await db.waitReady;
  client = fromPglite(db);
}, 180_000);

afterAll(async () => {
  await db?.close();
});

testBackend(
  "PostgresBackend (PGlite)",
  () => new PostgresBackend({ client, schema: `lite_${++schemas}` }),
  (previous) => new PostgresBackend({ client, schema: previous.schema }),
);

describe("MemoryStore on PGlite", () => {
  it("adds, supersedes, forgets and reopens with the same answers", async () => {
    const schema = `lite_store_${++schemas}`;
    const mem = await MemoryStore.open("pglite", { backend: new PostgresBackend({ client, schema }) });
    await mem.add("u", "I'm allergic to peanuts");
    await mem.add("u", "我住在北京");
    const [peanuts] = await mem.recall("u", "peanuts", { topK: 1 });
    await mem.forget("u", { id: peanuts!.id });
    const recall = await mem.recall("u", "北京", { topK: 5 });
    const list = await mem.list("u");
    await mem.close();
    const again = await MemoryStore.open("pglite", { backend: new PostgresBackend({ client, schema }) });
    expect(await again.recall("u", "北京", { topK: 5 })).toEqual(recall);
    expect(await again.list("u")).toEqual(list);
    expect((await again.list("u")).find((e) => e.id === peanuts!.id)?.status).toBe("deleted");
    await again.close();
  });

  it("queues transactions on PGlite's one connection, and per-user reads see each write whole", async () => {
    const schema = `lite_tx_${++schemas}`;
    const backend = new PostgresBackend({ client, schema });
    await backend.load();
    const writes = Array.from({ length: 5 }, (_, i) =>
      backend.append([
        {
          entries: [
            {
              id: `x${i}`,
              userId: "u",
              content: `c${i}`,
              kind: "fact",
              status: "active",
              createdAt: i,
              updatedAt: i,
              seq: i + 1,
              metadata: {},
              lifecycle: {},
              embedding: Float32Array.from([i, -i]),
            },
          ],
        },
      ]),
    );
    const reads = Array.from({ length: 5 }, () => backend.readUser("u"));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) expect(read.entries).toHaveLength(read.version);
    const user = await backend.readUser("u");
    expect(user.version).toBe(5);
    expect(user.entries.map((e) => Array.from(e.embedding!))).toEqual([0, 1, 2, 3, 4].map((i) => [i, -i]));
    await backend.close();
  });
});

describe("rows written before row format 3 (schema 1)", () => {
  it("migrates to schema 2, reads an old row's bookkeeping out of its metadata, and writes lifecycle from then on", async () => {
    const schema = `lite_legacy_${++schemas}`;
    const first = new PostgresBackend({ client, schema });
    await first.load();
    await first.close();
    // Back to what moomem wrote before: no lifecycle column, row format 2, the store's bookkeeping inside metadata.
    const s = `"${schema}"`;
    await client.query(`ALTER TABLE ${s}.entries DROP COLUMN lifecycle`);
    await client.query(`UPDATE ${s}.meta SET format = 2`);
    await client.query(`DELETE FROM ${s}.migrations WHERE version >= 2`);
    await client.query(
      `INSERT INTO ${s}.entries (id, user_id, content, kind, key, status, created_at, updated_at, seq, superseded_by, metadata, embedding)
       VALUES ('old', 'u', 'I play the cello', 'fact', NULL, 'deleted', 1, 2, 1, NULL, '{"channel":"chat","extractor":"raw","deleted_from":"active","deleted_at":2}', NULL)`,
    );
    const mem = await MemoryStore.open("pglite", { backend: new PostgresBackend({ client, schema }) });
    expect((await mem.list("u"))[0]).toMatchObject({ metadata: { channel: "chat" }, lifecycle: { extractor: "raw", deletedFrom: "active", deletedAt: 2 } });
    expect(await mem.restore("u", "old")).toMatchObject({ status: "active", metadata: { channel: "chat" } });
    await mem.close();
    const [row] = await client.query(`SELECT metadata, lifecycle FROM ${s}.entries WHERE id = 'old'`);
    expect(row).toMatchObject({ metadata: { channel: "chat" }, lifecycle: { extractor: "raw", restored_at: expect.any(Number) as unknown } });
    const [meta] = await client.query(`SELECT format FROM ${s}.meta`);
    expect(meta).toMatchObject({ format: 3 });
  });
});
