// One behaviour suite every PersistenceBackend must pass (memory, files, IndexedDB, PostgreSQL, a host's own),
// shipped as `moomem/testing`; it takes the test runner's functions, so it needs no test framework of its own.

import type { Batch, EmbedderIdentity, LoadedState, PersistenceBackend } from "../persistence/backend.ts";
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

    options.additionalTests?.(ctx);
  });
}
