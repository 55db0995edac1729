// A writable store on PostgreSQL that other processes write too (docs/postgres.md, "Consistency"): users() and stats()
// are the database's truth at call time, not this process's copy; and a close with nothing written runs no compaction.

import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock } from "../../../src/index.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("w");
const { freshSchema } = db;

function backend(schema: string): PostgresBackend {
  return new PostgresBackend({ pool: db.pool, schema });
}

async function metaStamp(schema: string): Promise<string> {
  const { rows } = await db.pool.query(`SELECT xmin::text AS stamp FROM "${schema}".meta WHERE id = 1`);
  return (rows[0] as { stamp: string }).stamp;
}

const byId = (users: { userId: string }[]): string[] => users.map((u) => u.userId);

describe("users() and stats() of a writable PostgreSQL store see every process's writes", () => {
  for (const [name, options] of [
    ["every user loaded when asked", {}],
    ["maxLoadedUsers: 1", { maxLoadedUsers: 1 }],
  ] as const) {
    it(`${name}: users created and changed by another process after open are listed and counted`, async () => {
      const schema = freshSchema();
      const clock = new FixedClock(1_700_000_000_000);
      const a = await MemoryStore.open("pg", { backend: backend(schema), clock, ...options });
      await a.add("ann", "I live in Berlin");
      const b = await MemoryStore.open("pg", { backend: backend(schema), clock });
      clock.advance(1000);
      await b.add("bob", "I live in Paris");
      await b.add("cleo", "I live in Rome");
      await b.add("ann", "I like green tea");
      await b.forget("cleo", { all: true });

      const users = await a.users();
      expect(byId(users)).toEqual(["ann", "bob", "cleo"]);
      expect(users.find((u) => u.userId === "ann")).toMatchObject({ total: 2, active: 2 });
      expect(users.find((u) => u.userId === "cleo")).toMatchObject({ total: 1, active: 0, deleted: 1, lastWriteAt: 1_700_000_001_000 });
      const stats = await a.stats();
      expect(stats).toMatchObject({ total: 4, active: 3, deleted: 1, superseded: 0, unstructured: 0, users: 3 });
      // This process's own numbers: only ann was ever loaded here.
      expect(stats.loadedUsers).toBe(1);
      expect(stats.lastWriteAt).not.toBeNull();
      // The same answer as B's (which served every user), and as a fresh reader's.
      expect(await a.users()).toEqual(await b.users());
      const reader = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema, readOnly: true }) });
      expect(await a.users()).toEqual(await reader.users());
      const { bytesOnDisk: _a, lastWriteAt: _la, loadedUsers: _lu, loadedBytes: _lb, ...ours } = await a.stats();
      const { bytesOnDisk: _r, lastWriteAt: _lr, loadedUsers: _ru, loadedBytes: _rb, ...theirs } = await reader.stats();
      expect(ours).toEqual(theirs);
      await reader.close();
      await b.close();
      await a.close();
    });
  }

  it("a write of this process not yet awaited is counted once it is durable (the call waits for it)", async () => {
    const schema = freshSchema();
    const a = await MemoryStore.open("pg", { backend: backend(schema) });
    const adding = a.add("dan", "I live in Oslo");
    const [users, stats] = await Promise.all([a.users(), a.stats()]);
    await adding;
    // Either before the add was applied (nothing) or after it was durable (dan): never a half.
    expect([[], ["dan"]]).toContainEqual(byId(users));
    expect([0, 1]).toContain(stats.total);
    expect(byId(await a.users())).toEqual(["dan"]);
    expect((await a.stats()).total).toBe(1);
    await a.close();
  });
});

describe("close of a PostgreSQL store", () => {
  it("with nothing written runs no compaction (the meta row is not touched); after a write it still does", async () => {
    const schema = freshSchema();
    const first = await MemoryStore.open("pg", { backend: backend(schema) });
    await first.add("ann", "I live in Berlin");
    await first.close();
    const before = await metaStamp(schema);
    const reading = await MemoryStore.open("pg", { backend: backend(schema) });
    expect((await reading.recall("ann", "where do I live")).map((h) => h.content)).toEqual(["I live in Berlin"]);
    await reading.users();
    await reading.stats();
    // Opening bumps the writer epoch (the meta row): what matters is what close does after it.
    const opened = await metaStamp(schema);
    await reading.close();
    expect(await metaStamp(schema)).toBe(opened);
    expect(opened).not.toBe(before);

    const writing = await MemoryStore.open("pg", { backend: backend(schema) });
    await writing.add("ann", "I like tea");
    const written = await metaStamp(schema);
    await writing.close();
    expect(await metaStamp(schema)).not.toBe(written);
  });
});
