// Per-user loading on a real PostgreSQL server (README, "Many users: loading a user when asked"): a store over
// PostgresBackend opens from the catalog, loads a user on first use, and answers exactly as a store holding every user.

import { describe, it, expect } from "vitest";
import { HashingEmbedder, MemoryStore } from "../../../src/index.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { fromPgPool } from "../../../src/persistence/postgres/pg-adapter.ts";
import type { SqlClient } from "../../../src/persistence/postgres/sql-client.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";
import { T0, comparableExport, randomOp } from "../../helpers/random-ops.ts";
import { clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("u");
const { freshSchema } = db;

async function exported(mem: MemoryStore): Promise<unknown> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  return comparableExport(lines);
}

/** A client that records the text of every statement sent through it. */
function recording(client: SqlClient, texts: string[]): SqlClient {
  return {
    query: (text, params) => (texts.push(text), client.query(text, params)),
    transaction: (fn) => client.transaction((tx) => fn({ query: (text, params) => (texts.push(text), tx.query(text, params)) })),
  };
}

/** A statement that reads entry rows (their content) rather than counts. */
const readsEntries = (text: string): boolean => /SELECT id, user_id, content/.test(text);

describe("per-user loading on PostgreSQL", () => {
  it("with at most 2 users loaded and reopens along the way, random calls answer exactly as a store holding every user", async () => {
    for (let run = 0; run < 6; run++) {
      const random = seededRandom(1800 + run);
      const schema = freshSchema();
      let now = T0;
      const clock = { now: () => now };
      const reference = await MemoryStore.open(":memory:", { clock });
      const open = (): Promise<MemoryStore> => MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), clock, maxLoadedUsers: 2 });
      let bounded = await open();
      for (let step = 0; step < 70; step++) {
        now += 1000;
        if (step % 25 === 24) {
          // A new process: the catalog, not the entries, is read; users load again as they are asked.
          await bounded.close();
          bounded = await open();
          expect((await bounded.stats()).loadedUsers).toBe(0);
        }
        const op = randomOp(random);
        const expected = await op.run(reference);
        expect(await op.run(bounded), `run ${run} step ${step}: ${op.name}`).toEqual(expected);
        expect((await bounded.stats()).loadedUsers).toBeLessThanOrEqual(2);
      }
      expect(await exported(bounded)).toEqual(await exported(reference));
      await reference.close();
      await bounded.close();
    }
  }, 120_000);

  it("opens without reading an entry row: counts come from the catalog; a user's entries are read on its first call, once", async () => {
    const schema = freshSchema();
    const writer = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    for (let u = 0; u < 20; u++) for (let i = 0; i < 5; i++) await writer.add(`user-${u}`, `fact ${i} of user ${u}: I love ${["tea", "dogs", "Paris"][i % 3]}`);
    await writer.forget("user-3", { all: true });
    const before = await writer.stats();
    await writer.close();

    const texts: string[] = [];
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ client: recording(fromPgPool(db.pool), texts), schema }), maxLoadedUsers: 3 });
    expect(texts.filter(readsEntries)).toEqual([]);
    const stats = await mem.stats();
    expect(stats).toMatchObject({ total: before.total, active: before.active, deleted: before.deleted, users: 20, loadedUsers: 0 });
    expect((await mem.users()).map((u) => u.userId)).toHaveLength(20);
    expect(texts.filter(readsEntries)).toEqual([]);

    const hits = await Promise.all([mem.recall("user-7", "tea"), mem.list("user-7"), mem.recall("user-7", "Paris")]);
    expect(hits[1]).toHaveLength(5);
    expect(hits[0]!.every((h) => h.userId === "user-7")).toBe(true);
    expect(texts.filter(readsEntries)).toHaveLength(1);
    // A new entry's seq is past every stored one (the catalog's max seq), so ids never repeat.
    const added = await mem.add("user-12", "I live in Rome");
    const all = (await exported(mem)) as Array<{ id: string; seq: number }>;
    expect(new Set(all.map((e) => e.seq)).size).toBe(all.length);
    expect(added.inserted).toBe(1);
    await mem.close();
  });

  it("an id naming a seq not reached yet: after a reopen from the catalog, new entries never take that seq", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await mem.add("ann", "I love tea");
    await mem.close();
    // A row of bob (as an import keeps ids) whose id names seq 5 while its seq is 2.
    const backend = new PostgresBackend({ pool: db.pool, schema });
    await backend.load();
    const entry = (await backend.readUser("ann")).entries[0]!;
    await backend.append([{ entries: [{ ...entry, id: "000000000005-abcd", seq: 2, userId: "bob" }] }]);
    await backend.close();

    const reopened = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), maxLoadedUsers: 1 });
    for (let i = 0; i < 4; i++) await reopened.add("cy", `fact ${i}: I love ${["dogs", "cats", "Rome", "jazz"][i]}`);
    const seqs = (await reopened.list("cy")).map((e) => parseInt(e.id.slice(0, 12), 16));
    expect(seqs).toHaveLength(4);
    expect(seqs.every((s) => s > 5)).toBe(true);
    expect((await reopened.list("bob")).map((e) => e.id)).toEqual(["000000000005-abcd"]);
    await reopened.close();
  });

  it("reembed from the catalog: every user is read, every vector rewritten; the next open with the new embedder needs no reembed", async () => {
    const schema = freshSchema();
    const old = new HashingEmbedder({ dim: 64 });
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), embedder: old });
    for (const user of ["ann", "bob", "cy"]) await mem.add(user, `${user} loves tea and lives in Paris`);
    await mem.close();
    const next = new HashingEmbedder({ dim: 128 });
    const refused = MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), embedder: next, maxLoadedUsers: 1 });
    await expect(refused).rejects.toMatchObject({ code: "EMBEDDER_MISMATCH" });
    const reembedded = await MemoryStore.open("pg", {
      backend: new PostgresBackend({ pool: db.pool, schema }),
      embedder: next,
      reembed: true,
      maxLoadedUsers: 1,
    });
    expect((await reembedded.recall("bob", "tea")).map((h) => h.content)).toEqual(["bob loves tea and lives in Paris"]);
    await reembedded.close();
    const backend = new PostgresBackend({ pool: db.pool, schema, readOnly: true });
    const state = await backend.load();
    expect(state.embedder).toEqual({ id: next.id, dim: 128 });
    expect(state.entries.map((e) => e.embedding?.length)).toEqual([128, 128, 128]);
    await backend.close();
    const again = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), embedder: next, maxLoadedUsers: 1 });
    expect((await again.recall("cy", "Paris")).map((h) => h.userId)).toEqual(["cy"]);
    await again.close();
  });
});

describe("two writers opened from one catalog, on PostgreSQL", () => {
  it("hand out different seqs (blocks from the database) and each reads the other's entries", async () => {
    const schema = freshSchema();
    const first = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), maxLoadedUsers: 10 });
    await first.add("zoe", "I like tea");
    await first.close();
    // Both open from the catalog (seq 1 is the largest). Under the one-writer fence, the older one loaded zoe
    // with the newer one's seq 2 in it while numbering its own next entry 2 too (INVALID_ARGUMENT); now
    // seqs come from the database, so the two never collide.
    const older = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), maxLoadedUsers: 10 });
    const newer = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }), maxLoadedUsers: 10 });
    expect((await newer.add("zoe", "I play the cello")).inserted).toBe(1);
    expect((await older.add("zoe", "I speak Greek")).inserted).toBe(1);
    expect((await older.recall("zoe", "cello")).map((h) => h.content)).toContain("I play the cello");
    const both = [(await older.list("zoe")).map((e) => `${e.id} ${e.content}`).sort(), (await newer.list("zoe")).map((e) => `${e.id} ${e.content}`).sort()];
    expect(both[0]).toEqual(both[1]);
    expect(both[0]).toHaveLength(3);
    expect(new Set(both[0]!.map((l) => l.slice(0, 12))).size).toBe(3);
    await older.close();
    await newer.close();
  });
});
