// IndexedDbBackend: the conformance suite plus IndexedDB-specific rules (fake-indexeddb off-browser, the real one in Chromium).

import { describe, it, expect, afterEach } from "vitest";
import {
  IndexedDbBackend,
  INDEXEDDB_NAME_PREFIX,
  INDEXEDDB_SCHEMA_VERSION,
  INDEXEDDB_FORMAT_VERSION,
} from "../../src/persistence/indexeddb/indexeddb-backend.ts";
import { isMoomemError } from "../../src/errors.ts";
import type { MoomemErrorCode } from "../../src/errors.ts";
import type { EntryRecord, Metadata } from "../../src/types.ts";
import { makeEntry, testBackend } from "../backend-conformance.ts";
import { MemoryStore } from "../../src/index.ts";

let counter = 0;
/** Fresh database name per test: Chromium keeps databases for the whole run. */
function uniqueName(label: string): string {
  counter += 1;
  return `test-${label}-${Date.now().toString(36)}-${counter}`;
}

const names = new WeakMap<IndexedDbBackend, string>();

function backendFor(name: string, options: ConstructorParameters<typeof IndexedDbBackend>[1] = {}): IndexedDbBackend {
  const backend = new IndexedDbBackend(name, options);
  names.set(backend, name);
  return backend;
}

function nameOf(backend: IndexedDbBackend): string {
  const name = names.get(backend);
  if (name === undefined) throw new Error("backend not made by backendFor");
  return name;
}

async function expectCode(promise: Promise<unknown>, code: MoomemErrorCode, pattern?: RegExp): Promise<Error> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).not.toBeNull();
  expect(isMoomemError(caught) ? caught.code : String(caught)).toBe(code);
  if (pattern !== undefined) expect((caught as Error).message).toMatch(pattern);
  return caught as Error;
}

// Raw IndexedDB access, to plant what an older/newer moomem or a foreign app could have left.

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("request failed"));
  });
}

function openRaw(dbName: string, version: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(dbName, version);
    req.onupgradeneeded = () => upgrade?.(req.result);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("open failed"));
  });
}

async function rawPut(name: string, store: string, value: unknown, key?: string): Promise<void> {
  const db = await openRaw(INDEXEDDB_NAME_PREFIX + name, INDEXEDDB_SCHEMA_VERSION);
  try {
    const tx = db.transaction(store, "readwrite");
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error("tx failed"));
    });
    if (key === undefined) tx.objectStore(store).put(value);
    else tx.objectStore(store).put(value, key);
    await done;
  } finally {
    db.close();
  }
}

async function databaseExists(dbName: string): Promise<boolean> {
  const list = await indexedDB.databases();
  return list.some((info) => info.name === dbName);
}

testBackend(
  "IndexedDbBackend",
  () => backendFor(uniqueName("conf")),
  (previous) => backendFor(nameOf(previous)),
  {
    persistent: true,
    additionalTests: ({ make, reopen }) => {
      it("stores one database named moomem:<name> with entries and meta object stores", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("a", 1, { embedding: Float32Array.from([0.25, -1]) })] }]);
        await backend.close();
        const db = await openRaw(INDEXEDDB_NAME_PREFIX + nameOf(backend), INDEXEDDB_SCHEMA_VERSION);
        try {
          expect([...db.objectStoreNames].sort()).toEqual(["entries", "meta"]);
          const tx = db.transaction(["entries", "meta"], "readonly");
          const stored = await request(tx.objectStore("entries").get("a"));
          // The record codec's JSON object: snake_case, vector as base64 of little-endian float32.
          expect(stored).toMatchObject({ id: "a", user_id: "user-1", superseded_by: null, seq: 1, embedding: "AACAPgAAgL8=" });
          const meta = await request(tx.objectStore("meta").get("store"));
          expect(meta).toMatchObject({ format: INDEXEDDB_FORMAT_VERSION });
        } finally {
          db.close();
        }
        expect(backend.location).toBe(`IndexedDB "moomem:${nameOf(backend)}"`);
      });

      it("keeps none of a group whose transaction fails", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("kept", 1)] }]);
        // A function cannot be structured-cloned: the put throws inside the transaction.
        const unclonable = { callback: () => 1 } as unknown as Metadata;
        const group = [
          { entries: [makeEntry("lost-1", 2), makeEntry("kept", 1, { content: "changed", updatedAt: 5 })] },
          { entries: [makeEntry("lost-2", 3, { metadata: unclonable })] },
        ];
        await expectCode(backend.append(group), "IO_FAILURE", /nothing of it was stored/);
        expect(backend.stats().lastWriteAt).not.toBeNull();
        await backend.close();
        const next = await reopen(backend);
        const state = await next.load();
        expect(state.entries.map((e) => [e.id, e.content])).toEqual([["kept", "fact number 1"]]);
      });

      it("replaces the entries with the compaction source when the caller dropped some", async () => {
        const backend = await make();
        await backend.load();
        const all = [makeEntry("a", 1), makeEntry("b", 2), makeEntry("c", 3)];
        await backend.append([{ entries: all }]);
        const kept = [all[0]!, all[2]!];
        await backend.compact({ embedder: { id: "e", dim: 1 }, count: kept.length, entries: kept });
        const sizeAfter = backend.stats().bytesOnDisk;
        await backend.close();
        const next = await reopen(backend);
        const state = await next.load();
        expect(state.entries.map((e) => e.id)).toEqual(["a", "c"]);
        expect(next.stats().bytesOnDisk).toBe(sizeAfter);
      });

      it("refuses a database with a newer schema version", async () => {
        const name = uniqueName("future-schema");
        const db = await openRaw(INDEXEDDB_NAME_PREFIX + name, INDEXEDDB_SCHEMA_VERSION + 1, (raw) => {
          raw.createObjectStore("entries", { keyPath: "id" });
          raw.createObjectStore("meta");
          raw.createObjectStore("journal");
        });
        db.close();
        const backend = backendFor(name);
        await expectCode(backend.load(), "STORE_CORRUPTED", /newer moomem/);
        await backend.close();
        // The failed open changed nothing: the newer database is still there, at its version.
        const again = await openRaw(INDEXEDDB_NAME_PREFIX + name, INDEXEDDB_SCHEMA_VERSION + 1);
        expect(again.version).toBe(INDEXEDDB_SCHEMA_VERSION + 1);
        again.close();
      });

      it("refuses a newer record format", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("a", 1)] }]);
        await backend.close();
        await rawPut(nameOf(backend), "meta", { format: INDEXEDDB_FORMAT_VERSION + 1, embedder: null, lastWriteAt: 1 }, "store");
        const next = await reopen(backend);
        await expectCode(next.load(), "STORE_CORRUPTED", new RegExp(`format version ${INDEXEDDB_FORMAT_VERSION + 1}.*upgrade moomem`));
      });

      it("reads a v2 database (bookkeeping in metadata) as it is, and writes v3 records (lifecycle) from then on", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("a", 1)] }]);
        await backend.close();
        // As moomem 0.1 wrote them: format 2, the store's bookkeeping inside metadata, beside the caller's keys.
        await rawPut(nameOf(backend), "meta", { format: 2, embedder: null, lastWriteAt: 1 }, "store");
        const legacy = {
          id: "old",
          user_id: "user-1",
          content: "",
          kind: "fact",
          status: "deleted",
          created_at: 1,
          updated_at: 2,
          superseded_by: null,
          seq: 2,
          embedding: null,
          metadata: { purged: true, purged_at: 2 },
        };
        await rawPut(nameOf(backend), "entries", legacy);
        await rawPut(nameOf(backend), "entries", {
          ...legacy,
          id: "mine",
          content: "I like tea",
          status: "active",
          seq: 3,
          metadata: { channel: "chat", extractor: "raw", purged: true },
        });
        const next = await reopen(backend);
        const state = await next.load();
        expect(state.formatVersion).toBe(2);
        const byId = new Map(state.entries.map((e) => [e.id, e]));
        expect(byId.get("old")).toMatchObject({ metadata: {}, lifecycle: { purgedAt: 2 } });
        // "purged" on an entry that still has its content was the caller's own key.
        expect(byId.get("mine")).toMatchObject({ metadata: { channel: "chat", purged: true }, lifecycle: { extractor: "raw" } });
        await next.append([{ entries: [makeEntry("b", 4, { lifecycle: { judge: "similarity" } })] }]);
        expect(next.stats().formatVersion).toBe(INDEXEDDB_FORMAT_VERSION);
        await next.close();
        const db = await openRaw(INDEXEDDB_NAME_PREFIX + nameOf(backend), INDEXEDDB_SCHEMA_VERSION);
        try {
          const tx = db.transaction(["entries", "meta"], "readonly");
          expect(await request(tx.objectStore("entries").get("b"))).toMatchObject({ metadata: {}, lifecycle: { judge: "similarity" } });
          expect(await request(tx.objectStore("meta").get("store"))).toMatchObject({ format: INDEXEDDB_FORMAT_VERSION });
        } finally {
          db.close();
        }
        const third = await reopen(backend);
        expect((await third.load()).entries.map((e) => [e.id, e.lifecycle])).toEqual([
          ["a", {}],
          ["old", { purgedAt: 2 }],
          ["mine", { extractor: "raw" }],
          ["b", { judge: "similarity" }],
        ]);
        await third.close();
      });

      it("refuses an unreadable entry, naming it", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("good", 1)] }]);
        await backend.close();
        await rawPut(nameOf(backend), "entries", { id: "broken", user_id: "u", content: "x", kind: "fact", status: "weird", created_at: 1, seq: 2 });
        const next = await reopen(backend);
        await expectCode(next.load(), "STORE_CORRUPTED", /"broken".*status/);
      });

      it("refuses a stored vector holding NaN or Infinity, naming the entry", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("good", 1)] }]);
        await backend.close();
        const nan = new Uint8Array(Float32Array.of(1, Number.NaN, 0, 0).buffer);
        const embedding = btoa(String.fromCharCode(...nan));
        await rawPut(nameOf(backend), "entries", {
          id: "nan",
          user_id: "u",
          content: "x",
          kind: "fact",
          status: "active",
          created_at: 1,
          updated_at: 1,
          superseded_by: null,
          seq: 2,
          embedding,
          metadata: {},
        });
        const next = await reopen(backend);
        await expectCode(next.load(), "STORE_CORRUPTED", /"nan".*embedding/);
      });

      it("refuses a database without its meta record", async () => {
        const name = uniqueName("no-meta");
        const db = await openRaw(INDEXEDDB_NAME_PREFIX + name, INDEXEDDB_SCHEMA_VERSION, (raw) => {
          raw.createObjectStore("entries", { keyPath: "id" });
          raw.createObjectStore("meta");
        });
        db.close();
        await expectCode(backendFor(name).load(), "STORE_CORRUPTED", /meta record is missing/);
      });

      it("refuses a second writer and lets readers in", async () => {
        const writer = await make();
        await writer.load();
        await writer.append([{ entries: [makeEntry("w", 1)] }]);
        const second = backendFor(nameOf(writer));
        await expectCode(second.load(), "STORE_LOCKED", /already open|another tab/);
        const reader = backendFor(nameOf(writer), { readOnly: true });
        const seen = await reader.load();
        expect(seen.entries.map((e) => e.id)).toEqual(["w"]);
        await expectCode(reader.append([{ entries: [makeEntry("r", 2)] }]), "INVALID_ARGUMENT", /readOnly/);
        await expectCode(reader.compact({ embedder: { id: "x", dim: 1 }, count: 0, entries: [] }), "INVALID_ARGUMENT", /readOnly/);
        await reader.close();
        await writer.close();
        // Closing released the lock.
        const third = await reopen(writer);
        expect((await third.load()).entries.map((e) => e.id)).toEqual(["w"]);
      });

      it("refuses a read-only open of a missing database (STORE_NOT_FOUND) without creating it", async () => {
        const name = uniqueName("absent");
        const reader = backendFor(name, { readOnly: true });
        await expectCode(reader.load(), "STORE_NOT_FOUND", /there is no store in IndexedDB "moomem:test-absent-.*check the name/);
        await reader.close();
        expect(await databaseExists(INDEXEDDB_NAME_PREFIX + name)).toBe(false);
      });

      it("lets a reader follow the writer with refresh(), which reads the database again", async () => {
        const writer = await make();
        await writer.load();
        await writer.append([{ entries: [makeEntry("a", 1)] }]);
        const reader = backendFor(nameOf(writer), { readOnly: true });
        expect((await reader.load()).entries.map((e) => e.id)).toEqual(["a"]);
        await writer.append([{ entries: [makeEntry("b", 2)] }, { entries: [makeEntry("a", 1, { status: "deleted" })] }]);
        const found = await reader.refresh();
        expect(found?.replace).toBe(true);
        expect(found?.entries.map((e) => [e.id, e.status])).toEqual([
          ["a", "deleted"],
          ["b", "active"],
        ]);
        // A writer has nothing to follow.
        expect(await writer.refresh()).toBeNull();
        await reader.close();
        await expectCode(reader.refresh(), "STORE_CLOSED");
        await writer.close();
      });

      it("rejects calls in the wrong lifecycle state", async () => {
        const backend = await make();
        await expectCode(backend.append([{ entries: [makeEntry("a", 1)] }]), "STORE_CLOSED", /before load/);
        await backend.load();
        await expectCode(backend.load(), "STORE_CLOSED", /already called/);
        await backend.close();
        await expectCode(backend.append([{ entries: [makeEntry("a", 1)] }]), "STORE_CLOSED", /after close/);
      });

      it("steps aside when another connection deletes the database", async () => {
        const backend = await make();
        await backend.load();
        await backend.append([{ entries: [makeEntry("a", 1)] }]);
        // Would hang (blocked) if the backend kept its connection open against a versionchange.
        await request(indexedDB.deleteDatabase(INDEXEDDB_NAME_PREFIX + nameOf(backend)));
        await expectCode(backend.append([{ entries: [makeEntry("b", 2)] }]), "IO_FAILURE");
      });
    },
  },
);

describe('IndexedDbBackend: a close with nothing to fold writes nothing (docs/design.md, "Compaction")', () => {
  /** A backend whose `compact` calls are counted. */
  function counted(name: string): { backend: IndexedDbBackend; compactions: () => number } {
    const backend = backendFor(name);
    let n = 0;
    const compact = backend.compact.bind(backend);
    backend.compact = (source) => {
      n++;
      return compact(source);
    };
    return { backend, compactions: () => n };
  }

  it("open → recall → close does not compact; open → add → close does", async () => {
    const name = uniqueName("close-reads");
    const first = counted(name);
    const mem = await MemoryStore.open(name, { backend: first.backend });
    expect(first.compactions()).toBe(1); // a new store records its embedder at open
    await mem.add("ann", "I live in Berlin");
    await mem.close();
    expect(first.compactions()).toBe(2);

    const reader = counted(name);
    const again = await MemoryStore.open(name, { backend: reader.backend });
    expect(reader.backend.hasUncompacted()).toBe(false);
    expect((await again.recall("ann", "where do I live")).map((h) => h.content)).toEqual(["I live in Berlin"]);
    expect((await again.stats()).total).toBe(1);
    await again.close();
    expect(reader.compactions()).toBe(0);

    const writer = counted(name);
    const third = await MemoryStore.open(name, { backend: writer.backend });
    await third.add("ann", "I like tea");
    expect(writer.backend.hasUncompacted()).toBe(true);
    await third.close();
    expect(writer.compactions()).toBe(1);
    const last = await MemoryStore.open(name, { backend: backendFor(name) });
    expect((await last.list("ann")).map((e) => e.content).sort()).toEqual(["I like tea", "I live in Berlin"]);
    await last.close();
  });
});

describe("IndexedDbBackend without IndexedDB", () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "indexedDB");

  afterEach(() => {
    if (saved !== undefined) Object.defineProperty(globalThis, "indexedDB", saved);
    else delete (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  });

  it("constructs without touching the global and fails load() with BACKEND_UNSUPPORTED", async () => {
    Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true, writable: true });
    const backend = new IndexedDbBackend("nowhere");
    await expectCode(backend.load(), "BACKEND_UNSUPPORTED", /IndexedDB is not available.*moomem\/node.*:memory:/);
    await backend.close();
  });

  it("uses an injected IndexedDB instead of the global", async () => {
    const factory = indexedDB;
    Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true, writable: true });
    const name = uniqueName("injected");
    const backend = new IndexedDbBackend(name, { indexedDB: factory });
    await backend.load();
    await backend.append([{ entries: [makeEntry("i", 1)] }]);
    await backend.close();
    const again = new IndexedDbBackend(name, { indexedDB: factory });
    expect((await again.load()).entries.map((e: EntryRecord) => e.id)).toEqual(["i"]);
    await again.close();
  });

  it("validates its arguments", () => {
    for (const bad of ["", 42, null]) {
      let caught: unknown = null;
      try {
        new IndexedDbBackend(bad as string);
      } catch (error) {
        caught = error;
      }
      expect(isMoomemError(caught, "INVALID_ARGUMENT")).toBe(true);
    }
    expect(() => new IndexedDbBackend("x", { durability: "eventually" as "strict" })).toThrow(/durability/);
  });
});
