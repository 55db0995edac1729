// A large import or forget-all is several journal lines; a crash that keeps only some of them leaves none of the operation.

import { cpSync, readFileSync, readdirSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { MemoryStore } from "../../src/node.ts";
import { entryLine, headerLine } from "../../src/transfer/jsonl-transfer.ts";
import { MAX_BATCH_ENTRIES } from "../../src/store/write-queue.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

type Store = Awaited<ReturnType<typeof MemoryStore.open>>;

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("large-ops");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** Keeps the journal from being compacted away while the test looks at it. */
const NO_COMPACTION = { compactAfterBytes: Number.MAX_SAFE_INTEGER };

function importLines(userId: string, count: number): string[] {
  const lines: string[] = [
    headerLine({ moomem_export: 1, entry_format: 4, embedder: { id: "test/none", dim: 4 }, user_id: userId, exported_at: 1_700_000_000_000, count }),
  ];
  for (let i = 1; i <= count; i++) {
    const record: EntryRecord = {
      id: `imp-${userId}-${i}`,
      userId,
      content: `imported fact number ${i} about ${userId}`,
      kind: "fact",
      status: "active",
      createdAt: 1_700_000_000_000 + i,
      updatedAt: 1_700_000_000_000 + i,
      seq: i,
      metadata: { n: i },
      lifecycle: {},
      embedding: null,
    };
    lines.push(entryLine(record));
  }
  return lines;
}

/** The store's entries as export lines (without the header, whose export time differs). */
async function contentOf(store: Store): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of store.export()) lines.push(line);
  return lines.slice(1);
}

function journalPath(dir: string): string {
  const names = readdirSync(join(dir, "moomem")).filter((n) => /^journal\.\d+\.jsonl$/.test(n));
  expect(names).toHaveLength(1);
  return join(dir, "moomem", names[0]!);
}

/** Byte offsets of the line ends of `bytes` after `from`. */
function lineEnds(bytes: Uint8Array, from: number): number[] {
  const ends: number[] = [];
  for (let i = from; i < bytes.length; i++) if (bytes[i] === 10) ends.push(i + 1);
  return ends;
}

/**
 * What a crash leaves: a copy of the folder as it is now (the writer still
 * runs, so its lock files go, as a dead holder's would be dead) with the journal cut at `length`.
 */
function crashCopy(dir: string, length: number | null): string {
  const copy = freshDir();
  // The running writer's lock files stay behind (its socket cannot be copied), as a dead holder's lock would be dead.
  cpSync(dir, copy, { recursive: true, filter: (source) => !/[\\/]LOCK(\.|$)/.test(source) });
  if (length !== null) truncateSync(journalPath(copy), length);
  return copy;
}

/**
 * Runs `operation` on a store holding `setup`, then checks that a crash
 * which kept only some lines of it reopens to the state before, and one that
 * kept all of them to the state after.
 */
async function checkAllOrNothing(
  setup: (store: Store) => Promise<void>,
  operation: (store: Store) => Promise<unknown>,
  expectedLines: number,
): Promise<{ before: string[]; after: string[] }> {
  const dir = freshDir();
  const store = await MemoryStore.open(dir, NO_COMPACTION);
  try {
    await setup(store);
    const before = await contentOf(store);
    const path = journalPath(dir);
    const start = statSync(path).size;
    await operation(store);
    const after = await contentOf(store);
    expect(after).not.toEqual(before);

    const journal = readFileSync(path);
    const ends = lineEnds(journal, start);
    expect(ends).toHaveLength(expectedLines);
    const runLines = journal.subarray(start).toString("utf8").split("\n").slice(0, -1);
    // Every line but the last says the operation goes on.
    expect(runLines.map((l) => l.includes('"c":1,'))).toEqual(runLines.map((_, i) => i < runLines.length - 1));

    // Cut at each line boundary inside the run, and in the middle of each of its lines.
    const cuts = [...ends.slice(0, -1), ...ends.map((end, i) => Math.floor(((i === 0 ? start : ends[i - 1]!) + end) / 2))];
    for (const cut of cuts) {
      const copy = crashCopy(dir, cut);
      const reopened = await MemoryStore.open(copy, NO_COMPACTION);
      expect(await contentOf(reopened), `cut at ${cut - start} of ${journal.length - start}`).toEqual(before);
      expect((await reopened.stats()).truncatedRecovered, `cut at ${cut - start}`).toBe(1);
      await reopened.close();
      const again = await MemoryStore.open(copy, NO_COMPACTION);
      expect((await again.stats()).truncatedRecovered).toBe(0);
      expect(await contentOf(again)).toEqual(before);
      await again.close();
    }

    // A crash after the whole run was written keeps the whole operation.
    const whole = crashCopy(dir, null);
    const reopened = await MemoryStore.open(whole, NO_COMPACTION);
    expect(await contentOf(reopened)).toEqual(after);
    expect((await reopened.stats()).truncatedRecovered).toBe(0);
    await reopened.close();
    return { before, after };
  } finally {
    await store.close();
  }
}

describe("large operations survive a crash whole or not at all", () => {
  it("an import of 1,500 entries (3 journal lines) cut after its first line leaves none of it", async () => {
    const { before, after } = await checkAllOrNothing(
      async (store) => {
        await store.add("user-a", "I like green tea");
        await store.add("user-a", "My sister lives in Lyon");
      },
      async (store) => {
        const summary = await store.import(importLines("user-b", 1_500));
        expect(summary.entries).toBe(1_500);
      },
      Math.ceil(1_500 / MAX_BATCH_ENTRIES),
    );
    expect(before).toHaveLength(2);
    expect(after).toHaveLength(1_502);
  });

  it("a forget-all of 1,200 entries (3 journal lines) cut after its first line forgets none of them", async () => {
    const { before, after } = await checkAllOrNothing(
      async (store) => {
        await store.import(importLines("user-c", 1_200));
        await store.add("user-d", "I am allergic to peanuts");
      },
      async (store) => {
        expect(await store.forget("user-c", { all: true })).toBe(1_200);
      },
      Math.ceil(1_200 / MAX_BATCH_ENTRIES),
    );
    expect(before.filter((l) => l.includes('"status":"active"'))).toHaveLength(1_201);
    expect(after.filter((l) => l.includes('"status":"deleted"'))).toHaveLength(1_200);
  });

  it("a cut right after the first line of the import: truncatedRecovered is 1 and the journal is cut back", async () => {
    const dir = freshDir();
    const store = await MemoryStore.open(dir, NO_COMPACTION);
    await store.add("user-a", "I like green tea");
    const path = journalPath(dir);
    const start = statSync(path).size;
    await store.import(importLines("user-b", 1_500));
    const firstEnd = lineEnds(readFileSync(path), start)[0]!;
    const copy = crashCopy(dir, firstEnd);
    await store.close();
    const reopened = await MemoryStore.open(copy, NO_COMPACTION);
    const stats = await reopened.stats();
    expect(stats.truncatedRecovered).toBe(1);
    expect(stats.total).toBe(1);
    expect(await reopened.list("user-b")).toEqual([]);
    expect(statSync(journalPath(copy)).size).toBe(start);
    // The store goes on: a new import lands on the cut journal and survives a reopen.
    expect((await reopened.import(importLines("user-b", 600))).entries).toBe(600);
    await reopened.close();
    const again = await MemoryStore.open(copy);
    expect((await again.stats()).total).toBe(601);
    await again.close();
  });
});
