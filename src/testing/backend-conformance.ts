// One behaviour suite every PersistenceBackend must pass (memory, files, IndexedDB, PostgreSQL, a host's own),
// shipped as `moomem/testing`; it takes the test runner's functions, so it needs no test framework of its own.

import type { Batch, CatalogUser, EmbedderIdentity, LoadedState, PersistenceBackend } from "../persistence/backend.ts";
import { loadsUsers } from "../persistence/backend.ts";
import type { EntryRecord } from "../types.ts";

/** The matchers the suite uses, as vitest, Jest and Bun's test runner name them. */
export interface Matchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toBeInstanceOf(expected: unknown): void;
  toBeGreaterThan(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  toBeLessThanOrEqual(expected: number): void;
  toHaveLength(expected: number): void;
  readonly not: Matchers;
}

/**
 * The test runner's functions the suite is written with. vitest's (and Jest's, and `bun:test`'s) fit as
 * they are: `testBackend({ describe, it, expect, afterEach }, …)`.
 */
export interface TestRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  afterEach(hook: () => Promise<void>): void;
  expect(actual: unknown): Matchers;
}

/** What a backend's own test file may add to the suite. */
export interface BackendTestOptions<B extends PersistenceBackend> {
  /**
   * True when the backend keeps data outside the process (files, IndexedDB):
   * then `bytesOnDisk` must grow with what was written.
   */
  persistent?: boolean;
  /** Extra tests that only make sense for this backend; they get the same make/reopen. */
  additionalTests?: (ctx: BackendTestContext<B>) => void;
}

/** Helpers handed to `additionalTests`. */
export interface BackendTestContext<B extends PersistenceBackend> {
  /** A loaded-ready backend on a new, empty store; closed after the test. */
  make: () => Promise<B>;
  /** A backend on the same storage as `previous` (close `previous` first); closed after the test. */
  reopen: (previous: B) => Promise<B>;
}

/** Fixed moment the fixture entries are created at. */
const T0 = 1_700_000_000_000;

/** Builds an entry with sensible defaults; `seq` doubles as the order it was created in. */
export function makeEntry(id: string, seq: number, overrides: Partial<EntryRecord> = {}): EntryRecord {
  return {
    id,
    userId: "user-1",
    content: `fact number ${seq}`,
    kind: "fact",
    status: "active",
    createdAt: T0 + seq,
    updatedAt: T0 + seq,
    seq,
    metadata: {},
    lifecycle: {},
    embedding: null,
    ...overrides,
  };
}

/** Plain-data view of an entry so `toEqual` compares vectors by value and type. */
function plain(entry: EntryRecord): Record<string, unknown> {
  return { ...entry, embedding: entry.embedding === null ? null : { f32: Array.from(entry.embedding) } };
}

function vector(values: number[]): Float32Array {
  return Float32Array.from(values);
}

/** The latest version of each id, in seq order: what `load` must return after these batches. */
function expectedState(batches: readonly Batch[]): Record<string, unknown>[] {
  const latest = new Map<string, EntryRecord>();
  for (const batch of batches) for (const entry of batch.entries) latest.set(entry.id, entry);
  return [...latest.values()].sort((a, b) => a.seq - b.seq).map(plain);
}

const EMBEDDER: EmbedderIdentity = { id: "hashing-v1:256", dim: 4 };

/** A varied set of entries: every kind and status, keys, supersede links, metadata, lifecycle fields, vectors or none. */
function richEntries(): EntryRecord[] {
  return [
    makeEntry("e1", 1, { content: "I live in Berlin", key: "home_city", embedding: vector([0.5, -0.25, 0.125, Math.fround(1 / 3)]) }),
    makeEntry("e2", 2, {
      content: "我对花生过敏 — allergic to peanuts 🥜",
      kind: "preference",
      embedding: null,
      metadata: { source: "chat", tags: ["food", "health"], nested: { score: 0.75, ok: true, none: null } },
    }),
    makeEntry("e3", 3, { userId: "user-2", content: "Meeting on Friday", kind: "event", embedding: vector([0, 1, -1, 2.5e-8]) }),
    makeEntry("e4", 4, {
      content: "raw text nobody extracted",
      kind: "unstructured",
      status: "unstructured",
      lifecycle: { extractor: "llm", extractionDegraded: "model timed out" },
    }),
    makeEntry("e5", 5, {
      content: "I live in Paris",
      key: "home_city",
      status: "superseded",
      supersededBy: "e1",
      updatedAt: T0 + 99,
      lifecycle: {
        extractor: "patterns",
        sourceSpan: "I live in Paris",
        judge: "similarity",
        conflictReason: 'new value for key "home_city"',
        conflict: ["e2", "e3"],
        truncated: { originalChars: 9000 },
      },
    }),
    makeEntry("e6", 6, {
      content: "forgotten",
      status: "deleted",
      embedding: vector([1, 0, 0, 0]),
      lifecycle: { deletedFrom: "active", deletedAt: T0 + 7, restoredAt: T0 + 5 },
    }),
    // A purged tombstone: no content, vector, key or metadata; only when it was erased.
    makeEntry("e8", 8, { content: "", status: "deleted", lifecycle: { purgedAt: T0 + 9 } }),
  ];
}

/**
 * Registers the conformance suite for one backend kind with the test runner (unstorage's `testDriver`
 * pattern): a `describe` block of tests that write, reopen, compact and check what comes back.
 *
 * @param runner the test runner's `describe`, `it`, `expect` and `afterEach`
 * @param name shown in the test names
 * @param makeBackend a backend on a new, empty store, not yet loaded
 * @param reopen a new backend (or the same instance, for memory) on the storage `previous` used; `previous` is closed
 *
 * @example
 * ```ts
 * // my-backend.test.ts, run by vitest
 * import { describe, it, expect, afterEach } from "vitest";
 * import { testBackend } from "moomem/testing";
 * import { MyBackend } from "./my-backend.ts";
 *
 * testBackend({ describe, it, expect, afterEach }, "MyBackend", () => new MyBackend(freshName()), (previous) => new MyBackend(previous.name), { persistent: true });
 * ```
 */
export function testBackend<B extends PersistenceBackend>(
  runner: TestRunner,
  name: string,
  makeBackend: () => B | Promise<B>,
  reopen: (previous: B) => B | Promise<B>,
  options: BackendTestOptions<B> = {},
): void {
  const { describe, it, expect, afterEach } = runner;
  describe(`backend conformance: ${name}`, () => {
    const opened: B[] = [];
    const ctx: BackendTestContext<B> = {
      make: async () => {
        const backend = await makeBackend();
        opened.push(backend);
        return backend;
      },
      reopen: async (previous) => {
        const backend = await reopen(previous);
        opened.push(backend);
        return backend;
      },
    };

    afterEach(async () => {
      for (const backend of opened.splice(0)) await backend.close();
    });

    /** Close `backend`, reopen its storage and load it. */
    async function reload(backend: B): Promise<{ backend: B; state: LoadedState }> {
      await backend.close();
      const next = await ctx.reopen(backend);
      const state = await next.load();
      return { backend: next, state };
    }

    it("loads a new store as empty", async () => {
      const backend = await ctx.make();
      expect(typeof backend.location).toBe("string");
      expect(backend.location.length).toBeGreaterThan(0);
      const state = await backend.load();
      expect(state.entries).toEqual([]);
      expect(state.embedder).toBeNull();
      expect(state.truncatedRecovered).toBe(0);
      expect(state.lastWriteAt).toBeNull();
      expect(Number.isSafeInteger(state.formatVersion)).toBe(true);
      expect(state.formatVersion).toBeGreaterThanOrEqual(1);
      expect(backend.wantsCompaction()).toBe(false);
      expect(backend.stats().lastWriteAt).toBeNull();
    });

    it("gives back every field of every entry after a reopen", async () => {
      const backend = await ctx.make();
      await backend.load();
      const batches: Batch[] = [{ entries: richEntries() }];
      await backend.append(batches);
      const { state } = await reload(backend);
      expect(state.entries.map(plain)).toEqual(expectedState(batches));
      for (const entry of state.entries) {
        if (entry.embedding !== null) expect(entry.embedding).toBeInstanceOf(Float32Array);
      }
      const e5 = state.entries.find((e) => e.id === "e5");
      expect(e5?.supersededBy).toBe("e1");
      expect(e5?.key).toBe("home_city");
      expect(state.entries.find((e) => e.id === "e2")?.key).toBeUndefined();
      expect(state.entries.find((e) => e.id === "e2")?.supersededBy).toBeUndefined();
    });

    it("writes the batches of a group in order, later versions of an id winning", async () => {
      const backend = await ctx.make();
      await backend.load();
      const batches: Batch[] = [
        { entries: [makeEntry("a", 1), makeEntry("b", 2)] },
        // The same id twice in one batch, then again in a later batch: the last one wins.
        {
          entries: [makeEntry("c", 3), makeEntry("a", 1, { content: "a v2", updatedAt: T0 + 10 }), makeEntry("a", 1, { content: "a v3", updatedAt: T0 + 11 })],
        },
        { entries: [makeEntry("b", 2, { status: "deleted", updatedAt: T0 + 12 })] },
      ];
      await backend.append(batches);
      const { state } = await reload(backend);
      expect(state.entries.map(plain)).toEqual(expectedState(batches));
      expect(state.entries.map((e) => [e.id, e.content, e.status])).toEqual([
        ["a", "a v3", "active"],
        ["b", "fact number 2", "deleted"],
        ["c", "fact number 3", "active"],
      ]);
    });

    it("accepts an operation chained over several batches by continues, and keeps it whole", async () => {
      const backend = await ctx.make();
      await backend.load();
      const first: Batch = { entries: [makeEntry("k1", 1)] };
      await backend.append([first]);
      const group: Batch[] = [
        { entries: [makeEntry("k2", 2)], continues: true },
        { entries: [makeEntry("k3", 3), makeEntry("k1", 1, { status: "deleted", updatedAt: T0 + 20 })], continues: true },
        { entries: [makeEntry("k4", 4)] },
        { entries: [makeEntry("k5", 5)], continues: false },
      ];
      await backend.append(group);
      const { state } = await reload(backend);
      expect(state.entries.map(plain)).toEqual(expectedState([first, ...group]));
      expect(state.entries.map((e) => [e.id, e.status])).toEqual([
        ["k1", "deleted"],
        ["k2", "active"],
        ["k3", "active"],
        ["k4", "active"],
        ["k5", "active"],
      ]);
      expect(state.truncatedRecovered).toBe(0);
    });

    it("keeps seq order, not write order, for entries changed later", async () => {
      const backend = await ctx.make();
      await backend.load();
      const all: Batch[] = [];
      for (let i = 1; i <= 5; i++) {
        const batch = { entries: [makeEntry(`s${i}`, i)] };
        all.push(batch);
        await backend.append([batch]);
      }
      // Supersede the oldest: its new version is written last but keeps seq 1.
      const change = { entries: [makeEntry("s1", 1, { status: "superseded", supersededBy: "s6" }), makeEntry("s6", 6)] };
      all.push(change);
      await backend.append([change]);
      const { state } = await reload(backend);
      expect(state.entries.map((e) => e.id)).toEqual(["s1", "s2", "s3", "s4", "s5", "s6"]);
      expect(state.entries.map(plain)).toEqual(expectedState(all));
    });

    it("accepts an empty group and an empty batch without changing anything", async () => {
      const backend = await ctx.make();
      await backend.load();
      const first = { entries: [makeEntry("x", 1)] };
      await backend.append([first]);
      await backend.append([]);
      await backend.append([{ entries: [] }]);
      const { state } = await reload(backend);
      expect(state.entries.map(plain)).toEqual(expectedState([first]));
    });

    it("holds many entries across many groups", async () => {
      const backend = await ctx.make();
      await backend.load();
      const all: Batch[] = [];
      for (let g = 0; g < 10; g++) {
        const group: Batch[] = [];
        for (let b = 0; b < 5; b++) {
          const entries: EntryRecord[] = [];
          for (let k = 0; k < 10; k++) {
            const seq = g * 50 + b * 10 + k + 1;
            entries.push(makeEntry(`m${seq}`, seq, { userId: `user-${seq % 7}`, embedding: vector([seq, -seq, 0.5, 0]) }));
          }
          group.push({ entries });
        }
        all.push(...group);
        await backend.append(group);
      }
      const { state } = await reload(backend);
      expect(state.entries).toHaveLength(500);
      expect(state.entries.map(plain)).toEqual(expectedState(all));
    });

    it("compaction keeps the state and persists the embedder identity", async () => {
      const backend = await ctx.make();
      await backend.load();
      const before: Batch[] = [{ entries: richEntries() }];
      await backend.append(before);
      const latest = richEntries();
      await backend.compact({ embedder: EMBEDDER, count: latest.length, entries: latest });
      // Writes after a compaction land on top of it.
      const after: Batch = { entries: [makeEntry("e7", 7, { content: "after compaction" }), makeEntry("e1", 1, { status: "deleted", updatedAt: T0 + 50 })] };
      await backend.append([after]);
      const { backend: second, state } = await reload(backend);
      expect(state.embedder).toEqual(EMBEDDER);
      expect(state.entries.map(plain)).toEqual(expectedState([...before, after]));

      // Compacting the reloaded state again changes nothing either.
      await second.compact({ embedder: EMBEDDER, count: state.entries.length, entries: state.entries });
      const { state: third } = await reload(second);
      expect(third.embedder).toEqual(EMBEDDER);
      expect(third.entries.map(plain)).toEqual(state.entries.map(plain));
    });

    it("persists a changed embedder identity", async () => {
      const backend = await ctx.make();
      await backend.load();
      await backend.append([{ entries: [makeEntry("x", 1)] }]);
      await backend.compact({ embedder: EMBEDDER, count: 1, entries: [makeEntry("x", 1)] });
      const other: EmbedderIdentity = { id: "openai:text-embedding-3-small", dim: 1536 };
      await backend.compact({ embedder: other, count: 1, entries: [makeEntry("x", 1)] });
      const { state } = await reload(backend);
      expect(state.embedder).toEqual(other);
    });

    it("a compaction stores its snapshot as given: vectors recomputed for another embedder (a reembed) survive a reopen", async () => {
      const backend = await ctx.make();
      await backend.load();
      const unit = (dim: number, at: number): Float32Array => {
        const v = new Float32Array(dim);
        v[at] = 1;
        return v;
      };
      const first = [makeEntry("x", 1, { embedding: unit(8, 0) }), makeEntry("y", 2, { embedding: unit(8, 1), userId: "user-2" })];
      await backend.append([{ entries: first }]);
      await backend.compact({ embedder: { id: "test:first", dim: 8 }, count: 2, entries: first });
      // Same entries, same count, every vector made again with 4 dims.
      const again = [makeEntry("x", 1, { embedding: unit(4, 2) }), makeEntry("y", 2, { embedding: unit(4, 3), userId: "user-2" })];
      await backend.compact({ embedder: { id: "test:second", dim: 4 }, count: 2, entries: again });
      const { state } = await reload(backend);
      expect(state.embedder).toEqual({ id: "test:second", dim: 4 });
      expect(state.entries.map(plain)).toEqual(again.map(plain));
    });

    it("compacts an empty store", async () => {
      const backend = await ctx.make();
      await backend.load();
      await backend.compact({ embedder: EMBEDDER, count: 0, entries: [] });
      const { state } = await reload(backend);
      expect(state.entries).toEqual([]);
      expect(state.embedder).toEqual(EMBEDDER);
    });

    it("reports sane stats", async () => {
      const backend = await ctx.make();
      await backend.load();
      const empty = backend.stats();
      expect(empty.bytesOnDisk).toBeGreaterThanOrEqual(0);
      expect(empty.lastWriteAt).toBeNull();
      const t1 = Date.now();
      await backend.append([{ entries: richEntries() }]);
      const t2 = Date.now();
      const written = backend.stats();
      expect(written.lastWriteAt).not.toBeNull();
      expect(written.lastWriteAt ?? 0).toBeGreaterThanOrEqual(t1);
      expect(written.lastWriteAt ?? 0).toBeLessThanOrEqual(t2);
      expect(Number.isFinite(written.bytesOnDisk)).toBe(true);
      if (options.persistent === true) {
        expect(written.bytesOnDisk).toBeGreaterThan(empty.bytesOnDisk);
        await backend.append([{ entries: [makeEntry("big", 10, { content: "x".repeat(4000) })] }]);
        expect(backend.stats().bytesOnDisk).toBeGreaterThan(written.bytesOnDisk + 3000);
      }
      const { backend: reopened, state } = await reload(backend);
      expect(state.lastWriteAt).not.toBeNull();
      expect(state.lastWriteAt ?? 0).toBeGreaterThanOrEqual(t1);
      expect(reopened.stats().lastWriteAt).toBe(state.lastWriteAt);
      if (options.persistent === true) expect(reopened.stats().bytesOnDisk).toBeGreaterThan(3000);
    });

    it("closes idempotently", async () => {
      const backend = await ctx.make();
      await backend.load();
      await backend.append([{ entries: [makeEntry("x", 1)] }]);
      await backend.close();
      await backend.close();
      const next = await ctx.reopen(backend);
      const state = await next.load();
      expect(state.entries.map((e) => e.id)).toEqual(["x"]);
      await next.close();
      await next.close();
    });

    describe("per-user loading (backends with openCatalog, loadUser, scan, compactStored; skipped without them)", () => {
      /** Entries of three users over two groups, with updates, every status and an id naming a later seq. */
      function usersHistory(): Batch[] {
        const first: Batch = { entries: richEntries() };
        const second: Batch = {
          entries: [
            makeEntry("e2", 2, { status: "deleted", updatedAt: T0 + 60, lifecycle: { deletedFrom: "active", deletedAt: T0 + 60 } }),
            makeEntry("e9", 9, { userId: "user-3", content: "a third user" }),
            makeEntry("00000000002a-beef", 10, { userId: "user-3", content: "imported: its id names seq 42" }),
            makeEntry("e11", 11, { userId: "user-2", status: "unstructured", kind: "unstructured", content: "raw" }),
          ],
        };
        return [first, second];
      }

      /** What a catalog must say of these batches' latest entries. */
      function expectedCatalog(batches: readonly Batch[]): CatalogUser[] {
        const users = new Map<string, CatalogUser>();
        const latest = new Map<string, EntryRecord>();
        for (const batch of batches) for (const entry of batch.entries) latest.set(entry.id, entry);
        for (const entry of latest.values()) {
          let u = users.get(entry.userId);
          if (u === undefined) {
            u = { userId: entry.userId, total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, lastWriteAt: 0, maxSeq: 0 };
            users.set(entry.userId, u);
          }
          u.total++;
          u[entry.status]++;
          u.lastWriteAt = Math.max(u.lastWriteAt, entry.updatedAt);
          const named = /^([0-9a-f]{12})-[0-9a-f]{4}$/.exec(entry.id);
          u.maxSeq = Math.max(u.maxSeq, entry.seq, named === null ? 0 : parseInt(named[1]!, 16));
        }
        return [...users.values()].sort((a, b) => (a.userId < b.userId ? -1 : 1));
      }

      const byUser = (users: CatalogUser[]): CatalogUser[] => [...users].sort((a, b) => (a.userId < b.userId ? -1 : 1));

      /** Each user's part of the expected state. */
      function expectedOf(batches: readonly Batch[], userId: string): Record<string, unknown>[] {
        return expectedState(batches).filter((e) => e["userId"] === userId);
      }

      async function collect(iterable: AsyncIterable<EntryRecord>): Promise<EntryRecord[]> {
        const out: EntryRecord[] = [];
        for await (const entry of iterable) out.push(entry);
        return out;
      }

      it("opens with a catalog of the users (counts, max seq) and loads each user's latest entries alone, in seq order", async () => {
        const backend = await ctx.make();
        if (!loadsUsers(backend)) return;
        const fresh = await backend.openCatalog();
        expect(fresh.users).toEqual([]);
        expect(fresh.embedder).toBeNull();
        expect(await backend.loadUser("user-1")).toEqual([]);
        const history = usersHistory();
        await backend.append([history[0]!]);
        await backend.compactStored(EMBEDDER);
        await backend.append([history[1]!]);
        // What was appended since the open is seen at once, before and after a compaction.
        for (const userId of ["user-1", "user-2", "user-3"]) expect((await backend.loadUser(userId)).map(plain)).toEqual(expectedOf(history, userId));
        await backend.close();
        const next = await ctx.reopen(backend);
        if (!loadsUsers(next)) return;
        const catalog = await next.openCatalog();
        expect(catalog.embedder).toEqual(EMBEDDER);
        expect(byUser(catalog.users)).toEqual(expectedCatalog(history));
        for (const userId of ["user-1", "user-2", "user-3"]) expect((await next.loadUser(userId)).map(plain)).toEqual(expectedOf(history, userId));
        expect(await next.loadUser("nobody")).toEqual([]);
        expect((await collect(next.scan())).map(plain)).toEqual(expectedState(history));
      });

      it("compacts from what it holds: the same entries after compactStored, after a reopen, and after more writes", async () => {
        const backend = await ctx.make();
        if (!loadsUsers(backend)) return;
        await backend.openCatalog();
        const history = usersHistory();
        await backend.append(history);
        await backend.compactStored(EMBEDDER);
        expect((await collect(backend.scan())).map(plain)).toEqual(expectedState(history));
        const later: Batch = { entries: [makeEntry("e12", 12, { userId: "user-3" }), makeEntry("e1", 1, { status: "deleted", updatedAt: T0 + 70 })] };
        await backend.append([later]);
        await backend.compactStored(EMBEDDER);
        const all = [...history, later];
        expect((await collect(backend.scan())).map(plain)).toEqual(expectedState(all));
        await backend.close();
        const next = await ctx.reopen(backend);
        if (!loadsUsers(next)) return;
        const catalog = await next.openCatalog();
        expect(byUser(catalog.users)).toEqual(expectedCatalog(all));
        for (const userId of ["user-1", "user-2", "user-3"]) expect((await next.loadUser(userId)).map(plain)).toEqual(expectedOf(all, userId));
        await next.close();
        // What the catalog path wrote, load() reads the same.
        const plainOpen = await ctx.reopen(next);
        expect((await plainOpen.load()).entries.map(plain)).toEqual(expectedState(all));
      });
    });

    options.additionalTests?.(ctx);
  });
}
