// MemoryStore end to end on a real PostgreSQL server: every public operation, reopening, purge, isolation, secrets.

import { describe, it, expect, beforeAll } from "vitest";
import fc from "fast-check";
import { MemoryStore, FixedClock, RawExtractor, type ConflictJudge } from "../../../src/index.ts";
import { PostgresBackend, type PostgresBackendOptions } from "../../../src/persistence/postgres/postgres-backend.ts";
import { RuleExtractor, rejectsWith } from "../../helpers/scripted.ts";
import { PASSWORD_ROLE, clusterPerFile } from "./cluster.ts";

const db = clusterPerFile("s");
const { freshSchema } = db;

function backend(schema: string, options: Partial<PostgresBackendOptions> = {}): PostgresBackend {
  return new PostgresBackend({ pool: db.pool, schema, ...options });
}

const extractor = (): RuleExtractor =>
  new RuleExtractor([
    { pattern: /live in/, key: "home_city" },
    { pattern: /allergic/, key: "allergy" },
  ]);

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** Every row of every table of the schema, as text (whatever the column types). */
async function everyRow(schema: string): Promise<string[]> {
  const { rows: tables } = await db.pool.query("SELECT tablename FROM pg_tables WHERE schemaname = $1", [schema]);
  expect(tables.map((t: { tablename: string }) => t.tablename).sort()).toEqual(["counters", "entries", "events", "meta", "migrations", "users"]);
  const out: string[] = [];
  for (const { tablename } of tables as Array<{ tablename: string }>) {
    const { rows } = await db.pool.query(`SELECT t::text AS row FROM "${schema}"."${tablename}" t`);
    for (const row of rows as Array<{ row: string }>) out.push(row.row);
  }
  return out;
}

describe("MemoryStore on PostgreSQL", () => {
  it("add, recall, list, forget, restore, history, export and import work, and a second store object sees it all", async () => {
    const schema = freshSchema();
    const clock = new FixedClock(1_700_000_000_000);
    const mem = await MemoryStore.open("pg", { backend: backend(schema), clock, extractor: extractor() });
    await mem.add("alice", "I live in Beijing");
    clock.advance(1000);
    const moved = await mem.add("alice", "I live in Shenzhen");
    expect(moved.superseded).toBe(1);
    clock.advance(1000);
    await mem.add("alice", "I am allergic to peanuts");
    await mem.add("bob", "I live in Paris");
    const hits = await mem.recall("alice", "where do I live?", { topK: 5 });
    expect(hits[0]!.content).toBe("I live in Shenzhen");
    const shenzhen = hits[0]!.id;
    const history = await mem.history("alice", shenzhen);
    expect(history.map((e) => [e.content, e.status])).toEqual([
      ["I live in Beijing", "superseded"],
      ["I live in Shenzhen", "active"],
    ]);
    const peanuts = (await mem.list("alice")).find((e) => e.content.includes("peanuts"))!.id;
    expect(await mem.forget("alice", { id: peanuts })).toBe(1);
    const beijing = history[0]!.id;
    await mem.restore("alice", beijing);
    const exported = await collect(mem.export({ userId: "alice" }));
    const listed = await mem.list("alice");
    const recallBefore = await mem.recall("alice", "where do I live?", { topK: 5 });
    const statsBefore = await mem.stats();
    await mem.close();

    const again = await MemoryStore.open("pg", { backend: backend(schema), clock, extractor: extractor() });
    expect(await again.recall("alice", "where do I live?", { topK: 5 })).toEqual(recallBefore);
    expect(await again.list("alice")).toEqual(listed);
    expect((await again.history("alice", shenzhen)).map((e) => e.content)).toEqual(["I live in Beijing", "I live in Shenzhen"]);
    expect((await again.list("alice")).find((e) => e.id === beijing)?.status).toBe("active");
    expect((await again.stats()).total).toBe(statsBefore.total);
    expect(await collect(again.export({ userId: "alice" }))).toEqual(exported);
    await again.close();

    // Export from PostgreSQL into a memory store and back into another PostgreSQL schema: the same entries.
    const copy = await MemoryStore.open(":memory:");
    expect((await copy.import(exported)).entries).toBe(3);
    const target = freshSchema();
    const imported = await MemoryStore.open("pg", { backend: backend(target) });
    const summary = await imported.import(await collect(copy.export()));
    expect(summary).toMatchObject({ entries: 3, users: 1 });
    const strip = (entries: Awaited<ReturnType<MemoryStore["list"]>>): unknown[] => entries.map(({ seq: _seq, ...rest }) => rest);
    expect(strip(await imported.list("alice"))).toEqual(strip(await copy.list("alice")));
    await imported.close();
    const reread = await MemoryStore.open("pg", { backend: backend(target) });
    expect(strip(await reread.list("alice"))).toEqual(strip(await copy.list("alice")));
    await reread.close();
    await copy.close();
  });

  it("forget with purge leaves the content in no table", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: backend(schema), extractor: extractor() });
    await mem.add("carol", "I live in Zanzibar-7731");
    await mem.add("carol", "I am allergic to Quokka-5512");
    await mem.add("dave", "I live in Oslo");
    const [first] = await mem.list("carol");
    expect(await mem.forget("carol", { id: first!.id })).toBe(1); // a plain forget first: deleted, content kept
    expect((await everyRow(schema)).some((row) => row.includes("Zanzibar-7731"))).toBe(true);
    expect(await mem.forget("carol", { all: true }, { purge: true })).toBe(2);
    await mem.close(); // compaction too: no table may have kept it
    const rows = await everyRow(schema);
    for (const secret of ["Zanzibar-7731", "Quokka-5512", "home_city", "allergy"]) {
      expect(rows.filter((row) => row.includes(secret) && !row.includes("Oslo"))).toEqual([]);
    }
    expect(rows.some((row) => row.includes("Oslo"))).toBe(true);
    const again = await MemoryStore.open("pg", { backend: backend(schema) });
    const purged = await again.list("carol");
    expect(purged).toHaveLength(2);
    for (const entry of purged) expect(entry.content).toBe("");
    await again.close();
  });

  it("forget with purge leaves the content in no planner statistic either (pg_statistic samples column values on ANALYZE)", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: backend(schema), extractor: new RawExtractor() });
    await mem.add("carol", "I live in Zanzibar-7731");
    await mem.add("carol", "my note Quokka-5512", { metadata: { tag: "Quokka-5512" } });
    for (let i = 0; i < 30; i++) await mem.add(`u${i}`, `note ${i} of another user`);
    // What autovacuum does on its own after enough writes; done here so the test does not wait for it.
    await db.pool.query(`ANALYZE "${schema}".entries`);
    await mem.forget("carol", { all: true }, { purge: true });
    await mem.close();
    // pg_stats shows a table owner (here: the superuser) the sampled values; none may be purged text.
    const { rows } = await db.pool.query(`SELECT s::text AS row FROM pg_stats s WHERE schemaname = $1`, [schema]);
    expect(rows.length).toBeGreaterThan(0);
    for (const { row } of rows as Array<{ row: string }>) {
      expect(row).not.toContain("Zanzibar-7731");
      expect(row).not.toContain("Quokka-5512");
    }
  });

  it("the migration that turns the statistics off also drops the ones an older schema already collected", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: backend(schema), extractor: new RawExtractor() });
    for (let i = 0; i < 30; i++) await mem.add(`u${i}`, `Walrus-${i} lives here`);
    await mem.close();
    // An older schema: statistics on, collected, and the migration not yet recorded.
    for (const column of ["content", "key", "metadata", "lifecycle", "embedding"]) {
      await db.pool.query(`ALTER TABLE "${schema}".entries ALTER COLUMN ${column} SET STATISTICS -1`);
    }
    await db.pool.query(`ANALYZE "${schema}".entries`);
    const sampled = async (): Promise<boolean> =>
      (await db.pool.query(`SELECT s::text AS row FROM pg_stats s WHERE schemaname = $1`, [schema])).rows.some((r: { row: string }) =>
        r.row.includes("Walrus-"),
      );
    expect(await sampled()).toBe(true);
    await db.pool.query(`DELETE FROM "${schema}".migrations WHERE version >= 3`);
    const again = await MemoryStore.open("pg", { backend: backend(schema) });
    expect((await again.list("u1")).map((e) => e.content)).toEqual(["Walrus-1 lives here"]);
    await again.close();
    expect(await sampled()).toBe(false);
    await db.pool.query(`ANALYZE "${schema}".entries`);
    expect(await sampled()).toBe(false);
  });

  it("a schema at version 2 (before the statistics migration, same columns) opens read-only and with migrate: false, migrating nothing", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: backend(schema) });
    await mem.add("u", "I like tea");
    await mem.close();
    await db.pool.query(`DELETE FROM "${schema}".migrations WHERE version >= 3`);
    const reader = await MemoryStore.open("pg", { backend: backend(schema, { readOnly: true }), readOnly: true });
    expect((await reader.list("u")).map((e) => e.content)).toEqual(["I like tea"]);
    await reader.close();
    const writer = await MemoryStore.open("pg", { backend: backend(schema, { migrate: false }) });
    await writer.add("u", "I like coffee");
    await writer.close();
    const { rows } = await db.pool.query(`SELECT max(version) AS v FROM "${schema}".migrations`);
    expect(rows[0].v).toBe(2);
    // Version 1 lacks a column this moomem reads: still refused, with what to do.
    await db.pool.query(`DELETE FROM "${schema}".migrations WHERE version >= 2`);
    const error = await rejectsWith(MemoryStore.open("pg", { backend: backend(schema, { readOnly: true }), readOnly: true }), "IO_FAILURE");
    expect(error.message).toContain("run the migrations");
  });

  it("never returns another user's memory, for random users, texts and queries, after a reopen from PostgreSQL", async () => {
    const words = ["peanut", "allergy", "beijing", "shenzhen", "cat", "dog", "salary", "password", "花生", "北京"];
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((w) => w.join(" "));
    const user = fc.constantFrom("alice", "bob", "carol");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(user, text), { minLength: 1, maxLength: 15 }),
        fc.array(fc.tuple(user, text), { minLength: 1, maxLength: 5 }),
        async (writes, queries) => {
          const schema = freshSchema();
          const writer = await MemoryStore.open("pg", { backend: backend(schema) });
          for (const [u, t] of writes) await writer.add(u, `${u} secret ${t}`);
          await writer.close();
          const mem = await MemoryStore.open("pg", { backend: backend(schema) });
          for (const [u, q] of queries) {
            for (const mode of ["hybrid", "vector", "keyword"] as const) {
              for (const h of await mem.recall(u, q, { topK: 100, mode })) {
                expect(h.userId).toBe(u);
                expect(h.content.startsWith(`${u} secret`)).toBe(true);
              }
            }
            for (const e of await mem.list(u)) expect(e.userId).toBe(u);
          }
          await mem.close();
          await db.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        },
      ),
      { numRuns: 8 },
    );
  });

  it("two store objects on one schema both write; each sees the other's writes on its next call for the user", async () => {
    const schema = freshSchema();
    const first = await MemoryStore.open("pg", { backend: backend(schema) });
    await first.add("u", "I like tea");
    const second = await MemoryStore.open("pg", { backend: backend(schema) });
    expect((await second.add("u", "I play the cello")).inserted).toBe(1);
    // The first store catches up before the call (the user's version moved), then writes on top.
    expect((await first.add("u", "I speak Greek")).inserted).toBe(1);
    expect((await first.list("u")).map((e) => e.content).sort()).toEqual(["I like tea", "I play the cello", "I speak Greek"]);
    expect((await second.recall("u", "Greek")).map((h) => h.content)).toContain("I speak Greek");
    const ids = (await second.list("u")).map((e) => e.id);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(3);
    await second.close();
    await first.close();
    const reread = await MemoryStore.open("pg", { backend: backend(schema) });
    expect((await reread.list("u")).map((e) => e.content).sort()).toEqual(["I like tea", "I play the cello", "I speak Greek"]);
    await reread.close();
  });

  it("export and import of every user see the users another store created after this one opened (bounded or not)", async () => {
    const schema = freshSchema();
    for (const maxLoadedUsers of [undefined, 1]) {
      const mine = await MemoryStore.open("pg", { backend: backend(schema), ...(maxLoadedUsers === undefined ? {} : { maxLoadedUsers }) });
      const other = await MemoryStore.open("pg", { backend: backend(schema) });
      await other.add(`late-${maxLoadedUsers ?? "all"}`, "I keep bees on the roof");
      await other.close();
      const lines = await collect(mine.export());
      const header = JSON.parse(lines[0]!) as { count: number };
      const users = lines.slice(1).map((l) => (JSON.parse(l) as { user_id: string }).user_id);
      expect(users).toContain(`late-${maxLoadedUsers ?? "all"}`);
      expect(header.count).toBe(lines.length - 1);
      // Importing the export into a fresh schema gives every entry back.
      const copy = await MemoryStore.open("pg", { backend: backend(freshSchema()) });
      expect((await copy.import(lines)).entries).toBe(lines.length - 1);
      await copy.close();
      await mine.close();
    }
  });
  it("a write that lost the race is judged again on what the other writer stored, with no transaction open during the judge calls", async () => {
    const schema = freshSchema();
    const a = await MemoryStore.open("pg", { backend: backend(schema) });
    await a.add("u", "I live in Paris");
    const seen: string[][] = [];
    let duringFirstJudge: (() => Promise<void>) | null = null;
    const judge: ConflictJudge = {
      name: "scripted",
      async judge(_fact, candidates) {
        seen.push(candidates.map((c) => c.content));
        const race = duringFirstJudge;
        duringFirstJudge = null;
        if (race !== null) await race();
        return candidates.map((c) => ({ id: c.id, decision: "replace" as const }));
      },
    };
    const b = await MemoryStore.open("pg", { backend: backend(schema), judge });
    expect(await b.list("u")).toHaveLength(1);
    duringFirstJudge = async () => {
      // While b judges (its plan made on Paris), a stores Rome: a waits for no lock b holds, and no transaction is open.
      expect((await a.add("u", "I live in Rome")).superseded).toBe(1);
      const open = await db.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`);
      expect(open.rows[0].n).toBe(0);
    };
    const summary = await b.add("u", "I live in Lisbon");
    // Refused at its transaction (the user's version moved), caught up, planned and judged again: against Rome this time.
    expect(seen).toEqual([["I live in Paris"], ["I live in Rome"]]);
    expect(summary).toMatchObject({ inserted: 1, superseded: 1 });
    const listed = await b.list("u");
    const byContent = new Map(listed.map((e) => [e.content, e]));
    expect(listed.map((e) => [e.content, e.status])).toEqual(
      [
        ["I live in Paris", "superseded"],
        ["I live in Rome", "superseded"],
        ["I live in Lisbon", "active"],
      ].sort((x, y) => byContent.get(x[0]!)!.seq - byContent.get(y[0]!)!.seq),
    );
    expect(byContent.get("I live in Rome")!.supersededBy).toBe(byContent.get("I live in Lisbon")!.id);
    expect((await a.history("u", byContent.get("I live in Lisbon")!.id)).map((e) => e.content)).toEqual([
      "I live in Paris",
      "I live in Rome",
      "I live in Lisbon",
    ]);
    await a.close();
    await b.close();
  });

  it("an add looks the user's version up first only once another writer of the user was seen, so a judge is not asked twice per add", async () => {
    const schema = freshSchema();
    const seen: string[][] = [];
    const judge: ConflictJudge = {
      name: "scripted",
      judge(_fact, candidates) {
        seen.push(candidates.map((c) => c.content));
        return Promise.resolve(candidates.map((c) => ({ id: c.id, decision: "replace" as const })));
      },
    };
    const mine = backend(schema);
    let lookups = 0;
    const userMoved = mine.userMoved.bind(mine);
    mine.userMoved = (userId: string) => {
      lookups++;
      return userMoved(userId);
    };
    const a = await MemoryStore.open("pg", { backend: mine, judge });
    const b = await MemoryStore.open("pg", { backend: backend(schema) });
    await a.add("u", "I live in Paris");
    await a.add("u", "I live in Rome");
    // Nobody else writes u yet: a's adds plan on its copy without a lookup (their own write checks the version).
    expect(lookups).toBe(0);
    expect(seen).toEqual([["I live in Paris"]]);
    await b.add("u", "I live in Lisbon");
    // a's copy is behind: its add is refused at the write, caught up and judged again (the one wasted plan).
    seen.length = 0;
    expect(await a.add("u", "I live in Oslo")).toMatchObject({ inserted: 1, superseded: 1 });
    expect(seen).toEqual([["I live in Rome"], ["I live in Lisbon"]]);
    await b.add("u", "I live in Madrid");
    // From now on a knows another process writes u: it looks first, catches up, and judges once, on Madrid.
    seen.length = 0;
    expect(await a.add("u", "I live in Quito")).toMatchObject({ inserted: 1, superseded: 1 });
    expect(seen).toEqual([["I live in Madrid"]]);
    expect(lookups).toBe(1);
    // Reads look every time, as before.
    await a.recall("u", "where do I live?");
    expect(lookups).toBe(2);
    expect((await a.list("u")).filter((e) => e.status === "active").map((e) => e.content)).toEqual(["I live in Quito"]);
    await a.close();
    await b.close();
  });

  it("catch-up before a call: another process's purge, supersede and adds reach a store holding the user, also once the log was trimmed past it", async () => {
    const schema = freshSchema();
    const holder = await MemoryStore.open("pg", { backend: backend(schema) });
    await holder.add("u", "I live in Paris");
    await holder.add("u", "my secret is 1234");
    expect(await holder.list("u")).toHaveLength(2);
    // Another process (keeping one event per user, so its close trims the log past what the holder read).
    const other = await MemoryStore.open("pg", { backend: backend(schema, { keepEvents: 1 }) });
    const secret = (await other.list("u")).find((e) => e.content.includes("secret"))!;
    await other.forget("u", { id: secret.id }, { purge: true });
    await other.add("u", "I live in Rome");
    await other.add("u", "I like tea");
    const expected = (await other.list("u")).map((e) => [e.id, e.status, e.content]);
    await other.close();
    const { rows } = await db.pool.query(`SELECT version::int, trimmed_to::int FROM "${schema}".users WHERE user_id = 'u'`);
    expect(rows[0].trimmed_to).toBeGreaterThan(2); // behind the trim: the holder reads the user whole again
    expect((await holder.list("u")).map((e) => [e.id, e.status, e.content])).toEqual(expected);
    expect((await holder.recall("u", "secret 1234")).map((h) => h.content)).not.toContain("my secret is 1234");
    expect((await holder.profile("u")).slots["home_city"]?.value).toBe("I live in Rome");
    // And the holder writes on top of it: its add supersedes Rome, judged against what the other process wrote.
    expect((await holder.add("u", "I live in Oslo")).superseded).toBe(1);
    await holder.close();
  });

  it("a store opened read-only on a read-only backend reads while a writer works, and writes nothing", async () => {
    const schema = freshSchema();
    const writer = await MemoryStore.open("pg", { backend: backend(schema) });
    await writer.add("u", "I like tea");
    const reader = await MemoryStore.open("pg", { backend: backend(schema, { readOnly: true }), readOnly: true });
    expect((await reader.recall("u", "tea")).map((h) => h.content)).toEqual(["I like tea"]);
    await rejectsWith(reader.add("u", "nope"), "READ_ONLY");
    await writer.add("u", "I like coffee"); // the writer was not fenced by the reader
    await reader.close();
    await writer.close();
  });

  it("content PostgreSQL text cannot hold (U+0000, an unpaired surrogate) fails that add with IO_FAILURE; nothing is stored and the store goes on", async () => {
    const schema = freshSchema();
    // The raw extractor hands the text to the backend as it is (the default one may split or drop it).
    const mem = await MemoryStore.open("pg", { backend: backend(schema), extractor: new RawExtractor() });
    await mem.add("u", "before");
    for (const bad of ["nul \u0000 inside", "lone \ud800 surrogate"]) {
      const error = await rejectsWith(mem.add("u", bad), "IO_FAILURE");
      expect(error.message).toContain("nothing of it was stored");
    }
    expect((await rejectsWith(mem.add("u", "fine", { metadata: { note: "nul \u0000" } }), "IO_FAILURE")).message).toContain("U+0000");
    await mem.add("u", "after");
    await mem.close();
    const again = await MemoryStore.open("pg", { backend: backend(schema) });
    expect((await again.list("u")).map((e) => e.content).sort()).toEqual(["after", "before"]);
    await again.close();
  });
});

describe("PostgreSQL credentials are never printed", () => {
  const password = "Sup3r-Secret_pw%21";
  const decoded = decodeURIComponent(password);

  beforeAll(async () => {
    await db.pool.query(`CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${decoded}'`);
    await db.pool.query(`GRANT CREATE ON DATABASE postgres TO ${PASSWORD_ROLE}`);
  });

  function expectNoSecret(text: string): void {
    expect(text).not.toContain(password);
    expect(text).not.toContain(decoded);
    expect(text).not.toContain("Sup3r");
  }

  it("works with the right password, and the location shows no password", async () => {
    const b = new PostgresBackend({ connectionString: `postgres://${PASSWORD_ROLE}:${password}@127.0.0.1:${db.cluster.port}/postgres`, schema: freshSchema() });
    expectNoSecret(b.location);
    expect(b.location).toContain(`${PASSWORD_ROLE}@127.0.0.1:${db.cluster.port}/postgres`);
    const mem = await MemoryStore.open("pg", { backend: b });
    await mem.add("u", "hello");
    expectNoSecret(JSON.stringify(await mem.stats()));
    await mem.close(); // ends the pool it made
  });

  it("a wrong password, a refused connection and a bad key=value string give IO_FAILURE without the password", async () => {
    const cases = [
      `postgres://${PASSWORD_ROLE}:${password}x@127.0.0.1:${db.cluster.port}/postgres`,
      `postgres://${PASSWORD_ROLE}:${password}@127.0.0.1:1/postgres`,
      `postgres://${PASSWORD_ROLE}@127.0.0.1:${db.cluster.port}/postgres?password=${password}x`,
      `host=127.0.0.1 port=${db.cluster.port} user=${PASSWORD_ROLE} password=${decoded}x dbname=postgres`,
    ];
    for (const connectionString of cases) {
      const b = new PostgresBackend({ connectionString, schema: freshSchema() });
      expectNoSecret(b.location);
      const error = await rejectsWith(MemoryStore.open("pg", { backend: b }), "IO_FAILURE");
      expectNoSecret(error.message);
      expectNoSecret(String(error.stack));
      expectNoSecret(JSON.stringify(error, Object.getOwnPropertyNames(error)));
    }
  });

  it("the pool a host passes keeps its password out of messages too", async () => {
    const { default: pgModule } = await import("pg");
    const hostPool = new pgModule.Pool({ host: "127.0.0.1", port: db.cluster.port, user: PASSWORD_ROLE, password: `${decoded}x`, database: "postgres" });
    hostPool.on("error", () => undefined);
    const b = new PostgresBackend({ pool: hostPool, schema: freshSchema() });
    expectNoSecret(b.location);
    const error = await rejectsWith(MemoryStore.open("pg", { backend: b }), "IO_FAILURE");
    expectNoSecret(error.message);
    await hostPool.end();
  });
});
