// PostgresBackend on a real PostgreSQL server: the backend conformance suite, migrations, the writer fence and the per-user reads.

import { describe, it, expect } from "vitest";
import type pg from "pg";
import { PostgresBackend, type PostgresBackendOptions } from "../../../src/persistence/postgres/postgres-backend.ts";
import { fromPgPool } from "../../../src/persistence/postgres/pg-adapter.ts";
import { LATEST_SCHEMA_VERSION, migrate } from "../../../src/persistence/postgres/schema.ts";
import { isMoomemError } from "../../../src/errors.ts";
import { WriteConflict } from "../../../src/persistence/backend.ts";
import { makeEntry, testBackend } from "../../backend-conformance.ts";
import { clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("t");

/** A backend on a fresh schema of the test db.cluster. */
function fresh(options: Partial<PostgresBackendOptions> = {}): PostgresBackend {
  return new PostgresBackend({ pool: db.pool, schema: db.freshSchema(), ...options });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

testBackend(
  "PostgresBackend (pg Pool)",
  () => fresh(),
  (previous) => new PostgresBackend({ pool: db.pool, schema: previous.schema }),
  {
    additionalTests: ({ make, reopen }) => {
      it("reports the schema's size from PostgreSQL, growing with what was written", async () => {
        const backend = await make();
        await backend.load();
        const empty = backend.stats().bytesOnDisk;
        expect(empty).toBeGreaterThan(0); // the tables and indexes exist, empty pages and all
        const entries = Array.from({ length: 400 }, (_, i) =>
          makeEntry(`b${i}`, i + 1, { content: `fact ${i} `.repeat(20), embedding: Float32Array.from({ length: 64 }, (_, k) => Math.sin(i + k)) }),
        );
        await backend.append([{ entries }]);
        await backend.compact({ embedder: { id: "x", dim: 64 }, count: entries.length, entries });
        expect(backend.stats().bytesOnDisk).toBeGreaterThan(empty + 100_000);
        await backend.close();
        const next = await reopen(backend);
        await next.load();
        expect(next.stats().bytesOnDisk).toBeGreaterThan(empty + 100_000);
      });

      it("rewrites every vector when the embedder identity changes (reembed), and keeps them when it does not", async () => {
        const backend = await make();
        await backend.load();
        const a = makeEntry("v1", 1, { embedding: Float32Array.from([1, 0]) });
        await backend.append([{ entries: [a] }]);
        await backend.compact({ embedder: { id: "old", dim: 2 }, count: 1, entries: [a] });
        const reembedded = { ...a, embedding: Float32Array.from([0, 1, 0]) };
        await backend.compact({ embedder: { id: "new", dim: 3 }, count: 1, entries: [reembedded] });
        await backend.close();
        const next = await reopen(backend);
        const state = await next.load();
        expect(state.embedder).toEqual({ id: "new", dim: 3 });
        expect(Array.from(state.entries[0]!.embedding!)).toEqual([0, 1, 0]);
      });
    },
  },
);

describe("PostgresBackend: migrations", () => {
  it("four clients migrating one schema at once: each migration is applied exactly once", async () => {
    const schema = `mig_${process.pid}`;
    const pools = [db.cluster.pool(2), db.cluster.pool(2), db.cluster.pool(2), db.cluster.pool(2)];
    const results = await Promise.all(pools.map((p) => migrate(fromPgPool(p), schema)));
    const applied = results.flatMap((r) => r.applied).sort((a, b) => a - b);
    expect(applied).toEqual(Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1));
    for (const r of results) expect(r.version).toBe(LATEST_SCHEMA_VERSION);
    const { rows } = await db.pool.query(`SELECT version, count(*)::int AS n FROM ${schema}.migrations GROUP BY version ORDER BY version`);
    expect(rows).toEqual(applied.map((version) => ({ version, n: 1 })));
    // And again: nothing left to apply, no lock taken.
    expect((await migrate(fromPgPool(pools[0]!), schema)).applied).toEqual([]);
    for (const p of pools) await p.end();
  });

  it("four backends opening a new schema at once all load it and all write; for one user, only a write planned on its current version lands", async () => {
    const schema = `mig_open_${process.pid}`;
    const backends = [0, 1, 2, 3].map(() => new PostgresBackend({ pool: db.pool, schema }));
    const states = await Promise.all(backends.map((b) => b.load()));
    for (const state of states) expect(state.entries).toEqual([]);
    // Four users: every write lands (many writers, no takeover).
    await Promise.all(backends.map((b, i) => b.append([{ entries: [makeEntry(`own${i}`, i + 1, { userId: `own-${i}` })] }])));
    // One user, each planned on version 0 of it: the first to take the user's lock writes, the others are refused.
    const results = await Promise.allSettled(backends.map((b, i) => b.append([{ entries: [makeEntry(`o${i}`, i + 11)] }])));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(WriteConflict);
    const { rows } = await db.pool.query(`SELECT user_id, count(*)::int AS n FROM ${schema}.entries GROUP BY user_id ORDER BY user_id`);
    expect(rows).toEqual([0, 1, 2, 3].map((i) => ({ user_id: `own-${i}`, n: 1 })).concat([{ user_id: "user-1", n: 1 }]));
    for (const b of backends) await b.close();
  });

  it("refuses a schema migrated by a newer moomem, naming what to do", async () => {
    const backend = fresh();
    await backend.setup();
    await db.pool.query(`INSERT INTO ${backend.schema}.migrations (version, name) VALUES (${LATEST_SCHEMA_VERSION + 1}, 'from the future')`);
    const next = new PostgresBackend({ pool: db.pool, schema: backend.schema });
    const error = await rejection(next.load());
    expect(isMoomemError(error, "STORE_CORRUPTED")).toBe(true);
    expect((error as Error).message).toMatch(/newer.*upgrade moomem/);
  });

  it("with migrate: false, refuses an unmigrated schema for writing and opens it read-only as empty, creating nothing", async () => {
    const schema = `nomig_${process.pid}`;
    const writer = new PostgresBackend({ pool: db.pool, schema, migrate: false });
    const error = await rejection(writer.load());
    expect(isMoomemError(error, "IO_FAILURE")).toBe(true);
    expect((error as Error).message).toContain("run the migrations first");
    const reader = new PostgresBackend({ pool: db.pool, schema, readOnly: true });
    expect((await reader.load()).entries).toEqual([]);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1", [schema]);
    expect(rows[0].n).toBe(0);
    await reader.close();
  });

  it("setup() reports what it applied, once; with migrate: false it is the explicit way to migrate", async () => {
    const backend = fresh();
    expect(await backend.setup()).toEqual({ applied: Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1), version: LATEST_SCHEMA_VERSION });
    expect(await backend.setup()).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION });
    await backend.close();
    const schema = `setup_${process.pid}`;
    const deploy = new PostgresBackend({ pool: db.pool, schema, migrate: false, readOnly: true });
    expect((await deploy.setup()).applied).toHaveLength(LATEST_SCHEMA_VERSION);
    const app = new PostgresBackend({ pool: db.pool, schema, migrate: false });
    expect((await app.load()).entries).toEqual([]);
    await app.close();
  });

  it("validates its options with clear errors", async () => {
    expect(() => new PostgresBackend({} as PostgresBackendOptions)).toThrow(/exactly one of/);
    expect(() => new PostgresBackend({ pool: db.pool, connectionString: "postgres://x" })).toThrow(/exactly one of/);
    expect(() => new PostgresBackend({ pool: db.pool, schema: 'x"; DROP TABLE y; --' })).toThrow(/plain SQL identifier/);
    expect(() => new PostgresBackend({ pool: { query: () => undefined } as unknown as pg.Pool })).toThrow(/single pg.Client is not enough/);
    const { default: pgModule } = await import("pg");
    const single = new pgModule.Client({ connectionString: db.cluster.url });
    expect(() => new PostgresBackend({ pool: single as unknown as pg.Pool })).toThrow(/single pg.Client is not enough/);
    // Through fromPgPool directly, the first transaction refuses it, before any statement runs.
    const client = fromPgPool(single as unknown as pg.Pool);
    await expect(client.transaction(() => Promise.resolve(1))).rejects.toThrow(/needs a pg Pool/);
    await single.end().catch(() => undefined);
    expect(() => new PostgresBackend({ pool: db.pool, keepEvents: 0 })).toThrow(/keepEvents must be an integer/);
    expect(() => new PostgresBackend({ pool: db.pool, readOnly: "yes" as unknown as boolean })).toThrow(/readOnly must be true or false/);
  });
});

describe("PostgresBackend: many writers", () => {
  /** Every user's version and the number of events and entry rows of a schema: what a refused write must leave unchanged. */
  async function footprint(schema: string): Promise<unknown> {
    const users = await db.pool.query(`SELECT user_id, version FROM ${schema}.users ORDER BY user_id`);
    const counts = await db.pool.query(`SELECT (SELECT count(*) FROM ${schema}.events) AS events, (SELECT count(*) FROM ${schema}.entries) AS entries`);
    const meta = await db.pool.query(`SELECT xmin::text AS stamp, last_write_at FROM ${schema}.meta`);
    return { users: users.rows, counts: counts.rows, meta: meta.rows };
  }

  it("a write for several users, one of which moved, stores nothing for any of them (the other users' versions included)", async () => {
    const first = fresh();
    await first.openCatalog();
    await first.append([{ entries: [makeEntry("a", 1, { userId: "u1" })] }, { entries: [makeEntry("b", 2, { userId: "u2" })] }]);
    const second = new PostgresBackend({ pool: db.pool, schema: first.schema });
    await second.openCatalog();
    await second.loadUser("u2");
    await second.append([{ entries: [makeEntry("c", 3, { userId: "u2" })], userId: "u2" }]);
    const before = await footprint(first.schema);
    // u1 (listed first, so its version compare-and-set succeeds in the statement) is unchanged; u2 moved.
    const error = await rejection(
      first.append([
        { entries: [makeEntry("d", 4, { userId: "u1" })] },
        { entries: [makeEntry("e", 5, { userId: "u2" })] },
        { entries: [makeEntry("f", 6, { userId: "u3" })] },
      ]),
    );
    expect(error).toBeInstanceOf(WriteConflict);
    expect((error as WriteConflict).users).toEqual(["u2"]);
    expect(await footprint(first.schema)).toEqual(before);
    expect(await first.userMoved("u1")).toBe(false);
    await first.close();
    await second.close();
  });

  it("a write of one user (one statement, its own transaction) that finds, once its lock is granted, an id taken or a new embedder undoes itself whole", async () => {
    const backend = fresh();
    await backend.openCatalog();
    await backend.append([{ entries: [makeEntry("mine", 1, { userId: "racer" })] }]);
    await backend.compactStored({ id: "e", dim: 2 });
    /** Runs `append` while the user's lock is held elsewhere, and `meanwhile` commits before the lock is let go. */
    const racing = async (append: () => Promise<void>, meanwhile: string): Promise<unknown> => {
      const holder = await db.pool.connect();
      try {
        await holder.query("BEGIN");
        await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`moomem:${backend.schema}:racer`]);
        const outcome = rejection(append());
        // The statement has started (its snapshot is taken) once it waits for the lock.
        for (;;) {
          const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
          if (rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        await db.pool.query(meanwhile);
        await holder.query("COMMIT");
        return await outcome;
      } finally {
        holder.release();
      }
    };
    const before = await footprint(backend.schema);
    const taken = await racing(
      () => backend.append([{ entries: [makeEntry("taken", 2, { userId: "racer" })] }]),
      `INSERT INTO ${backend.schema}.entries (id, user_id, content, kind, status, created_at, updated_at, seq, metadata) VALUES ('taken', 'other', 'x', 'fact', 'active', 0, 0, 99, '{}')`,
    );
    expect(isMoomemError(taken, "STORE_CORRUPTED")).toBe(true);
    expect((await db.pool.query(`SELECT user_id FROM ${backend.schema}.entries WHERE id = 'taken'`)).rows).toEqual([{ user_id: "other" }]);
    await db.pool.query(`DELETE FROM ${backend.schema}.entries WHERE id = 'taken'`);
    expect(await footprint(backend.schema)).toEqual(before);
    const reembedded = await racing(
      () => backend.append([{ entries: [makeEntry("late", 3, { userId: "racer" })] }]),
      `UPDATE ${backend.schema}.meta SET embedder_id = 'new', embedder_dim = 3`,
    );
    expect(isMoomemError(reembedded, "EMBEDDER_MISMATCH")).toBe(true);
    const after = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM ${backend.schema}.events) AS events, (SELECT count(*)::int FROM ${backend.schema}.entries) AS entries`,
    );
    expect(after.rows).toEqual([{ events: 1, entries: 1 }]);
    expect(((await footprint(backend.schema)) as { users: unknown }).users).toEqual((before as { users: unknown }).users);
    await backend.close();
  });

  it("an entry id another user's entry holds refuses the whole write (STORE_CORRUPTED), storing nothing", async () => {
    const backend = fresh();
    await backend.openCatalog();
    await backend.append([{ entries: [makeEntry("shared-id", 1, { userId: "owner" })] }]);
    const before = await footprint(backend.schema);
    for (const batches of [
      [{ entries: [makeEntry("shared-id", 2, { userId: "intruder" })] }],
      [{ entries: [makeEntry("fine", 3, { userId: "intruder" }), makeEntry("shared-id", 4, { userId: "intruder" })] }],
    ]) {
      const error = await rejection(backend.append(batches));
      expect(isMoomemError(error, "STORE_CORRUPTED")).toBe(true);
      expect((error as Error).message).toContain('entry id "shared-id" is already stored for another user than "intruder"');
      expect(await footprint(backend.schema)).toEqual(before);
    }
    // The backend's own idea of the users' versions did not move either: its next write lands.
    await backend.append([{ entries: [makeEntry("fine", 5, { userId: "intruder" })] }]);
    const { rows } = await db.pool.query(`SELECT version FROM ${backend.schema}.users WHERE user_id = 'intruder'`);
    expect(rows.map((r: { version: string }) => Number(r.version))).toEqual([1]);
    await backend.close();
  });

  it("a write planned on an older version of its user is refused (WriteConflict) and changes nothing; caught up, it lands", async () => {
    const first = fresh();
    await first.openCatalog();
    await first.append([{ entries: [makeEntry("a", 1)], userId: "user-1" }]);
    const second = new PostgresBackend({ pool: db.pool, schema: first.schema });
    await second.openCatalog();
    expect((await second.loadUser("user-1")).map((e) => e.id)).toEqual(["a"]);
    await second.append([{ entries: [makeEntry("c", 3)], userId: "user-1" }]);
    // Another user is not held back by it.
    await first.append([{ entries: [makeEntry("x", 4, { userId: "user-2" })], userId: "user-2" }]);
    expect(await first.userMoved("user-1")).toBe(true);
    const error = await rejection(first.append([{ entries: [makeEntry("b", 2)], userId: "user-1" }]));
    expect(error).toBeInstanceOf(WriteConflict);
    expect(isMoomemError(error, "WRITE_CONFLICT")).toBe(true);
    expect((error as WriteConflict).users).toEqual(["user-1"]);
    expect((error as Error).message).toContain("nothing of it was stored");
    const caught = await first.catchUpUser("user-1");
    expect(caught).toMatchObject({ replace: false });
    expect(caught!.entries.map((e) => e.id)).toEqual(["c"]);
    expect(await first.userMoved("user-1")).toBe(false);
    expect(await first.catchUpUser("user-1")).toBeNull();
    await first.append([{ entries: [makeEntry("b", 2)], userId: "user-1" }]);
    const { rows } = await db.pool.query(`SELECT id FROM ${first.schema}.entries ORDER BY seq`);
    expect(rows.map((r: { id: string }) => r.id)).toEqual(["a", "b", "c", "x"]);
    const events = await db.pool.query(`SELECT version FROM ${first.schema}.events WHERE user_id = 'user-1' ORDER BY version`);
    expect(events.rows.map((r: { version: string }) => Number(r.version))).toEqual([1, 2, 3]);
    // Both compact (record the embedder, trim) without stepping on each other.
    await Promise.all([first.compactStored({ id: "e", dim: 2 }), second.compactStored({ id: "e", dim: 2 })]);
    await first.close();
    await second.close();
  });

  it("seqs from the database: blocks never overlap, and the unused end of the last block is given back", async () => {
    const a = fresh();
    await a.openCatalog();
    const b = new PostgresBackend({ pool: db.pool, schema: a.schema });
    await b.openCatalog();
    const firsts = await Promise.all([a.reserveSeqs(10), b.reserveSeqs(10), a.reserveSeqs(5, 100)]);
    const ranges = [
      [firsts[0]!, firsts[0]! + 10],
      [firsts[1]!, firsts[1]! + 10],
      [firsts[2]!, firsts[2]! + 5],
    ].sort((x, y) => x[0]! - y[0]!);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBeGreaterThanOrEqual(ranges[i - 1]![1]!);
    expect(firsts[2]).toBeGreaterThan(100);
    const last = Math.max(...firsts);
    const lastEnd = last === firsts[2] ? last + 5 : last + 10;
    // Not the last block: nothing is given back.
    await a.releaseSeqs(ranges[0]![0]! + 1, ranges[0]![1]!);
    expect(await b.reserveSeqs(1)).toBe(lastEnd);
    await b.releaseSeqs(lastEnd, lastEnd + 1);
    expect(await a.reserveSeqs(1)).toBe(lastEnd);
    await a.close();
    await b.close();
  });

  it("a reembed is refused (WRITE_CONFLICT) when another process wrote meanwhile; after a reembed, an older process's writes get EMBEDDER_MISMATCH", async () => {
    const first = fresh();
    await first.openCatalog();
    const a = makeEntry("a", 1, { embedding: Float32Array.from([1, 0]) });
    await first.append([{ entries: [a] }]);
    await first.compactStored({ id: "old", dim: 2 });
    const second = new PostgresBackend({ pool: db.pool, schema: first.schema });
    await second.openCatalog();
    await second.loadUser("user-1");
    await second.append([{ entries: [makeEntry("b", 2, { embedding: Float32Array.from([0, 1]) })] }]);
    const error = await rejection(first.compact({ embedder: { id: "new", dim: 3 }, count: 1, entries: [{ ...a, embedding: Float32Array.from([0, 0, 1]) }] }));
    expect(isMoomemError(error, "WRITE_CONFLICT")).toBe(true);
    expect((error as Error).message).toContain("Stop the other processes");
    expect(Array.from((await second.readUser("user-1")).entries[0]!.embedding!)).toEqual([1, 0]);
    // The reembed, once nobody else wrote: the other process's next write and compaction are refused.
    const third = new PostgresBackend({ pool: db.pool, schema: first.schema });
    await third.openCatalog();
    const all = await third.loadUser("user-1");
    const rewritten = all.map((e) => ({ ...e, embedding: Float32Array.from([0, 0, 1]) }));
    await third.compact({ embedder: { id: "new", dim: 3 }, count: rewritten.length, entries: rewritten });
    await second.catchUpUser("user-1");
    expect(
      isMoomemError(await rejection(second.append([{ entries: [makeEntry("c", 3, { embedding: Float32Array.from([1, 1]) })] }])), "EMBEDDER_MISMATCH"),
    ).toBe(true);
    expect(isMoomemError(await rejection(second.compactStored({ id: "old", dim: 2 })), "EMBEDDER_MISMATCH")).toBe(true);
    const [meta] = (await db.pool.query(`SELECT embedder_id FROM ${first.schema}.meta`)).rows;
    expect(meta.embedder_id).toBe("new");
    for (const b of [first, second, third]) await b.close();
  });

  it("a read-only backend never takes over and never writes", async () => {
    const writer = fresh();
    await writer.load();
    await writer.append([{ entries: [makeEntry("a", 1)] }]);
    const reader = new PostgresBackend({ pool: db.pool, schema: writer.schema, readOnly: true });
    expect((await reader.load()).entries.map((e) => e.id)).toEqual(["a"]);
    expect(isMoomemError(await rejection(reader.append([{ entries: [makeEntry("r", 9)] }])), "READ_ONLY")).toBe(true);
    await writer.append([{ entries: [makeEntry("b", 2)] }]);
    await writer.close();
    await reader.close();
  });

  it("refuses an append whose last batch continues, writing nothing", async () => {
    const backend = fresh();
    await backend.load();
    const error = await rejection(backend.append([{ entries: [makeEntry("a", 1)], continues: true }]));
    expect(isMoomemError(error, "INVALID_ARGUMENT")).toBe(true);
    expect(await backend.readUser("user-1")).toEqual({ version: 0, entries: [] });
    await backend.close();
  });

  it("a write that fails inside the transaction keeps nothing of the group (a seq clash with a stored entry)", async () => {
    const backend = fresh();
    await backend.load();
    await backend.append([{ entries: [makeEntry("a", 1)] }]);
    // Two different entries with one seq: the unique index refuses the second, and the whole group rolls back.
    const error = await rejection(backend.append([{ entries: [makeEntry("b", 2)] }, { entries: [makeEntry("clash", 1)] }]));
    expect(isMoomemError(error, "IO_FAILURE")).toBe(true);
    expect((error as Error).message).toMatch(/nothing of it was stored.*SQLSTATE 23505/);
    const user = await backend.readUser("user-1");
    expect(user.entries.map((e) => e.id)).toEqual(["a"]);
    expect(user.version).toBe(1);
    await backend.close();
  });
  it("never moves an entry to another user: an id stored for one user refuses the whole write for another", async () => {
    const backend = fresh();
    await backend.load();
    await backend.append([{ entries: [makeEntry("same-id", 1, { userId: "alice", content: "alice's" })] }]);
    const error = await rejection(
      backend.append([{ entries: [makeEntry("other", 2, { userId: "bob" }), makeEntry("same-id", 3, { userId: "bob", content: "bob's" })] }]),
    );
    expect(isMoomemError(error, "STORE_CORRUPTED")).toBe(true);
    expect((error as Error).message).toContain("nothing of this write was stored");
    expect((await backend.readUser("alice")).entries.map((e) => e.content)).toEqual(["alice's"]);
    expect(await backend.readUser("bob")).toEqual({ version: 0, entries: [] });
    await backend.close();
  });

  it("asks for compaction once keepEvents events were written, and compaction trims and resets", async () => {
    const backend = fresh({ keepEvents: 3 });
    await backend.load();
    await backend.append([{ entries: [makeEntry("a", 1, { userId: "x" }), makeEntry("b", 2, { userId: "y" })] }]);
    expect(backend.wantsCompaction()).toBe(false);
    await backend.append([{ entries: [makeEntry("c", 3, { userId: "x" })] }]);
    expect(backend.wantsCompaction()).toBe(true);
    await backend.compact({ embedder: { id: "e", dim: 2 }, count: 3, entries: [] });
    expect(backend.wantsCompaction()).toBe(false);
    await backend.close();
  });
});

describe("PostgresBackend: per-user reads", () => {
  it("readUser gives one user's entries in seq order and the user's version; nobody else's", async () => {
    const backend = fresh();
    await backend.load();
    await backend.append([{ entries: [makeEntry("a1", 1, { userId: "alice" }), makeEntry("b1", 2, { userId: "bob" })] }]);
    await backend.append([{ entries: [makeEntry("a2", 3, { userId: "alice" })] }, { entries: [makeEntry("a1", 1, { userId: "alice", status: "deleted" })] }]);
    const alice = await backend.readUser("alice");
    expect(alice.version).toBe(3); // three operations touched alice
    expect(alice.entries.map((e) => [e.id, e.status])).toEqual([
      ["a1", "deleted"],
      ["a2", "active"],
    ]);
    expect((await backend.readUser("bob")).entries.map((e) => e.id)).toEqual(["b1"]);
    expect(await backend.readUser("nobody")).toEqual({ version: 0, entries: [] });
    expect(await backend.userVersion("alice")).toBe(3);
    expect(await backend.userVersion("bob")).toBe(1);
    expect(await backend.userVersion("nobody")).toBe(0);
    await backend.close();
  });

  it("readUser streams a large user in pages and keeps seq order", async () => {
    const backend = fresh();
    await backend.load();
    const entries = Array.from({ length: 2500 }, (_, i) => makeEntry(`p${i}`, 2500 - i, { userId: i % 2 === 0 ? "big" : "other" }));
    await backend.append([{ entries }]);
    const big = await backend.readUser("big");
    expect(big.entries).toHaveLength(1250);
    expect(big.entries.map((e) => e.seq)).toEqual([...big.entries.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(big.entries.map((e) => e.userId))).toEqual(new Set(["big"]));
    await backend.close();
  });

  it("eventsSince gives the writes after a version, one event per operation and user, with the current entries and no content", async () => {
    const backend = fresh();
    await backend.load();
    await backend.append([{ entries: [makeEntry("a1", 1, { userId: "alice", content: "secret one" })] }]);
    const v1 = await backend.userVersion("alice");
    await backend.append([
      { entries: [makeEntry("a2", 2, { userId: "alice" }), makeEntry("b1", 3, { userId: "bob" })], continues: true },
      { entries: [makeEntry("a1", 1, { userId: "alice", status: "superseded", supersededBy: "a2" })] },
      { entries: [makeEntry("a3", 4, { userId: "alice" })] },
    ]);
    const changes = await backend.eventsSince("alice", v1);
    expect(changes.reloadNeeded).toBe(false);
    expect(changes.version).toBe(3);
    expect(changes.events.map((e) => e.version)).toEqual([2, 3]);
    expect(changes.events[0]!.changes).toEqual([
      { id: "a2", seq: 2, status: "active" },
      { id: "a1", seq: 1, status: "superseded" },
    ]);
    expect(changes.events[1]!.changes).toEqual([{ id: "a3", seq: 4, status: "active" }]);
    // One append call is one write: the same write id on every event it made.
    expect(changes.events[0]!.writeId).toBe(changes.events[1]!.writeId);
    expect(changes.entries.map((e) => [e.id, e.status])).toEqual([
      ["a1", "superseded"],
      ["a2", "active"],
      ["a3", "active"],
    ]);
    const { rows } = await db.pool.query(`SELECT changes::text AS t FROM ${backend.schema}.events`);
    for (const row of rows) expect(row.t).not.toContain("secret");
    expect(await backend.eventsSince("alice", 3)).toEqual({ version: 3, reloadNeeded: false, events: [], entries: [] });
    expect((await backend.eventsSince("alice", 9)).reloadNeeded).toBe(true);
    expect((await backend.eventsSince("bob", 0)).entries.map((e) => e.id)).toEqual(["b1"]);
    await backend.close();
  });

  it("compaction trims each written user's log to keepEvents; a reader behind the trim is told to reload", async () => {
    const backend = fresh({ keepEvents: 2 });
    await backend.load();
    for (let i = 1; i <= 5; i++) await backend.append([{ entries: [makeEntry(`k${i}`, i, { userId: "u" })] }]);
    await backend.compact({ embedder: { id: "e", dim: 2 }, count: 5, entries: [] });
    const { rows } = await db.pool.query(`SELECT version FROM ${backend.schema}.events WHERE user_id = 'u' ORDER BY version`);
    expect(rows.map((r: { version: string }) => Number(r.version))).toEqual([4, 5]);
    expect((await backend.eventsSince("u", 2)).reloadNeeded).toBe(true);
    const recent = await backend.eventsSince("u", 3);
    expect(recent.reloadNeeded).toBe(false);
    expect(recent.entries.map((e) => e.id)).toEqual(["k4", "k5"]);
    await backend.close();
  });

  it("listUsers streams every user with counts by status, in pages", async () => {
    const backend = fresh();
    await backend.load();
    const entries = [];
    for (let u = 0; u < 7; u++)
      for (let k = 0; k <= u; k++) entries.push(makeEntry(`u${u}-${k}`, u * 10 + k + 1, { userId: `user-${u}`, status: k === 0 ? "deleted" : "active" }));
    await backend.append([{ entries }]);
    const listed = [];
    for await (const user of backend.listUsers({ pageSize: 3 })) listed.push(user);
    expect(listed.map((u) => u.userId)).toEqual(Array.from({ length: 7 }, (_, u) => `user-${u}`));
    expect(listed[3]).toMatchObject({ userId: "user-3", version: 1, entries: 4, byStatus: { active: 3, deleted: 1, superseded: 0, unstructured: 0 } });
    const after = [];
    for await (const user of backend.listUsers({ after: "user-4" })) after.push(user.userId);
    expect(after).toEqual(["user-5", "user-6"]);
    await backend.close();
  });

  it("reserveSeqs hands out disjoint blocks to concurrent callers, beyond every stored seq", async () => {
    const backend = fresh();
    await backend.load();
    await backend.append([{ entries: [makeEntry("s", 41)] }]);
    const others = [0, 1, 2].map(() => new PostgresBackend({ pool: db.pool, schema: backend.schema }));
    const blocks = await Promise.all([...others, backend].flatMap((b) => [b.reserveSeqs(10), b.reserveSeqs(5)]));
    const seqs = blocks.flatMap((first, i) => Array.from({ length: i % 2 === 0 ? 10 : 5 }, (_, k) => first + k));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(Math.min(...seqs)).toBeGreaterThan(41);
    for (const b of [...others, backend]) await b.close();
  });

  it("per-user reads validate their arguments and refuse after close", async () => {
    const backend = fresh();
    await backend.load();
    await expect(backend.readUser("")).rejects.toThrow(/userId must be a non-empty string/);
    await expect(backend.eventsSince("u", -1)).rejects.toThrow(/version must be an integer/);
    await expect(backend.reserveSeqs(0)).rejects.toThrow(/count must be an integer/);
    await backend.close();
    const error = await rejection(backend.userVersion("u"));
    expect(isMoomemError(error, "STORE_CLOSED")).toBe(true);
  });
});
