// MemoryStore.refresh() and `follow` on any backend that reports what another writer committed (store side, every runtime).

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.ts";
import type { LoadedState, PersistenceBackend, RefreshedState } from "../../src/persistence/backend.ts";
import type { EntryRecord } from "../../src/types.ts";
import { entryRecord } from "../helpers/entry-record.ts";

const hashing = new HashingEmbedder();
const EMBEDDER = { id: hashing.id ?? "", dim: hashing.dim };

function record(id: string, seq: number, content: string, overrides: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({ id, userId: "user-1", seq, content, ...overrides });
}

/** A read-only backend whose refresh() answers from a script. */
class ScriptedReader implements PersistenceBackend {
  readonly location = "scripted";
  next: RefreshedState | null = null;
  refreshes = 0;
  constructor(private readonly initial: EntryRecord[]) {}
  load(): Promise<LoadedState> {
    return Promise.resolve({ entries: this.initial, embedder: EMBEDDER, truncatedRecovered: 0, formatVersion: 3, lastWriteAt: null });
  }
  refresh(): Promise<RefreshedState | null> {
    this.refreshes++;
    const next = this.next;
    this.next = null;
    return Promise.resolve(next);
  }
  append(): Promise<void> {
    return Promise.reject(new Error("read-only"));
  }
  wantsCompaction(): boolean {
    return false;
  }
  compact(): Promise<void> {
    return Promise.reject(new Error("read-only"));
  }
  stats(): { bytesOnDisk: number; lastWriteAt: number | null } {
    return { bytesOnDisk: 0, lastWriteAt: null };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const contents = async (mem: MemoryStore): Promise<string[]> => (await mem.list("user-1")).map((e) => `${e.id}:${e.status}:${e.content}`);

describe("MemoryStore.refresh()", () => {
  it("applies new versions on top, or a whole new state (entries gone, seqs moved), and reports whether anything changed", async () => {
    const backend = new ScriptedReader([record("a", 1, "I live in Beijing"), record("b", 2, "I work at a bakery")]);
    const mem = await MemoryStore.open("scripted", { backend, readOnly: true });
    expect(await mem.refresh()).toBe(false);

    backend.next = {
      replace: false,
      entries: [record("c", 3, "I have a cat named Mochi"), record("a", 1, "I live in Beijing", { status: "superseded", supersededBy: "c" })],
      embedder: EMBEDDER,
      formatVersion: 3,
      lastWriteAt: 1,
    };
    expect(await mem.refresh()).toBe(true);
    expect(await contents(mem)).toEqual(["a:superseded:I live in Beijing", "b:active:I work at a bakery", "c:active:I have a cat named Mochi"]);
    expect((await mem.recall("user-1", "cat Mochi"))[0]?.id).toBe("c");

    // After a compaction: b is gone, a came back under a new seq, and d took seq 1, which a had.
    backend.next = {
      replace: true,
      entries: [record("d", 1, "I moved to Shenzhen"), record("c", 3, "I have a cat named Mochi"), record("a", 7, "I live in Beijing again")],
      embedder: EMBEDDER,
      formatVersion: 3,
      lastWriteAt: 2,
    };
    expect(await mem.refresh()).toBe(true);
    expect(await contents(mem)).toEqual(["d:active:I moved to Shenzhen", "c:active:I have a cat named Mochi", "a:active:I live in Beijing again"]);
    expect((await mem.recall("user-1", "bakery")).map((h) => h.id)).toEqual([]);

    // The same state again changes nothing.
    backend.next = {
      replace: true,
      entries: [record("d", 1, "I moved to Shenzhen"), record("c", 3, "I have a cat named Mochi"), record("a", 7, "I live in Beijing again")],
      embedder: EMBEDDER,
      formatVersion: 3,
      lastWriteAt: 2,
    };
    expect(await mem.refresh()).toBe(false);
    await mem.close();
  });

  it("with follow: true, checks before every call; without it, only when asked", async () => {
    const backend = new ScriptedReader([record("a", 1, "I live in Beijing")]);
    const still = await MemoryStore.open("scripted", { backend, readOnly: true });
    await still.list("user-1");
    await still.stats();
    expect(backend.refreshes).toBe(0);
    await still.close();

    const following = new ScriptedReader([record("a", 1, "I live in Beijing")]);
    const mem = await MemoryStore.open("scripted", { backend: following, readOnly: true, follow: true });
    following.next = { replace: false, entries: [record("b", 2, "I work at a bakery")], embedder: EMBEDDER, formatVersion: 3, lastWriteAt: 1 };
    expect(await contents(mem)).toEqual(["a:active:I live in Beijing", "b:active:I work at a bakery"]);
    const lines: string[] = [];
    for await (const line of mem.export()) lines.push(line);
    expect(lines).toHaveLength(3);
    expect(following.refreshes).toBe(2);
    await mem.close();
  });

  it("refuses a state whose vectors come from another embedder (EMBEDDER_MISMATCH), keeping what it had", async () => {
    const backend = new ScriptedReader([record("a", 1, "I live in Beijing")]);
    const mem = await MemoryStore.open("scripted", { backend, readOnly: true });
    backend.next = { replace: true, entries: [record("a", 1, "I live in Beijing")], embedder: { id: "other", dim: 8 }, formatVersion: 3, lastWriteAt: 1 };
    await expect(mem.refresh()).rejects.toMatchObject({
      code: "EMBEDDER_MISMATCH",
      message: expect.stringMatching(/open the store again with that embedder/) as unknown,
    });
    expect(await contents(mem)).toEqual(["a:active:I live in Beijing"]);
    await mem.close();
  });

  it("concurrent calls share reads that start after each call began (one read at a time)", async () => {
    const backend = new ScriptedReader([record("a", 1, "I live in Beijing")]);
    const mem = await MemoryStore.open("scripted", { backend, readOnly: true });
    backend.next = { replace: false, entries: [record("b", 2, "I work at a bakery")], embedder: EMBEDDER, formatVersion: 3, lastWriteAt: 1 };
    const results = await Promise.all([mem.refresh(), mem.refresh(), mem.refresh()]);
    // The first call reads b; the two that came while it ran share one more read, which finds nothing new.
    expect(results).toEqual([true, false, false]);
    expect(backend.refreshes).toBe(2);
    await mem.close();
  });
});
