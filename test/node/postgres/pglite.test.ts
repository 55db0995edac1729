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
      backend.append([{ entries: [{ id: `x${i}`, userId: "u", content: `c${i}`, kind: "fact", status: "active", createdAt: i, updatedAt: i, seq: i + 1, metadata: {}, embedding: Float32Array.from([i, -i]) }] }]),
    );
    const reads = Array.from({ length: 5 }, () => backend.loadUser("u"));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) expect(read.entries).toHaveLength(read.version);
    const user = await backend.loadUser("u");
    expect(user.version).toBe(5);
    expect(user.entries.map((e) => Array.from(e.embedding!))).toEqual([0, 1, 2, 3, 4].map((i) => [i, -i]));
    await backend.close();
  });
});
