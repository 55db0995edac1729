// Import and crafted store files on real folders: a rejected import changes no byte; a file naming NaN
// vectors or cross-user links never makes another user's entry reachable.

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { MemoryStore } from "../../src/node.ts";
import type { EntryRecord } from "../../src/types.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { DENSE4, denseBase64, entryJson, header, toLines } from "../helpers/export-lines.ts";
import { dataFilesOf, filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";
import { entryRecord } from "../helpers/entry-record.ts";

const ID = { id: DENSE4.id!, dim: DENSE4.dim };

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("import-files");
});
afterAll(() => {
  removeDir(root);
});
const freshDir = (): string => join(root, `s${++counter}`);

function rec(id: string, seq: number, userId: string, content: string, extra: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({ id, userId, seq, content, embedding: Float32Array.of(1, seq, 0, 0), ...extra });
}

/** Writes these entries with the file backend itself (which stores what it is given), as a crafted file would hold them. */
async function craft(dir: string, entries: EntryRecord[], compact: boolean): Promise<void> {
  const backend = new FileBackend(dir);
  await backend.load();
  await backend.compact({ embedder: ID, count: 0, entries: [] });
  if (compact) await backend.compact({ embedder: ID, count: entries.length, entries });
  else await backend.append([{ entries }]);
  await backend.close();
}

describe("import on a file store", () => {
  it("a line with a NaN vector is refused, no file changes, and the store reopens", async () => {
    const dir = freshDir();
    const mem = await MemoryStore.open(dir, { embedder: DENSE4 });
    await mem.add("a", "I live in Beijing");
    const before = filesOf(dir);
    const lines = toLines([
      header(ID, 2),
      entryJson("000000000009-0001", "b", "I like tea"),
      entryJson("000000000009-0002", "b", "I like rice", { embedding: denseBase64([1, Number.NaN, 0, 0]) }),
    ]);
    expect((await rejectsWith(mem.import(lines), "INVALID_ARGUMENT")).message).toMatch(/line 3/);
    expect(filesOf(dir)).toEqual(before);
    await mem.close();
    const again = await MemoryStore.open(dir, { embedder: DENSE4 });
    expect((await again.list("a")).map((e) => e.content)).toEqual(["I live in Beijing"]);
    expect(await again.list("b")).toEqual([]);
    await again.close();
  });
});

describe("crafted store files", () => {
  for (const compact of [true, false]) {
    const where = compact ? "snapshot" : "journal";
    it(`a ${where} holding a NaN vector is refused as STORE_CORRUPTED (at open; a v5 snapshot's section when its user loads), naming the file`, async () => {
      const dir = freshDir();
      await craft(dir, [rec("a1", 1, "a", "fine"), rec("a2", 2, "a", "broken", { embedding: Float32Array.of(1, Number.NaN, 0, 0) })], compact);
      const before = filesOf(dir);
      // A v5 snapshot's open reads its table only (docs/decisions.md, "Snapshot v5"): user a's section is checked when a loads.
      const openAndLoad = async (): Promise<void> => {
        const mem = await MemoryStore.open(dir, { embedder: DENSE4 });
        try {
          await mem.list("a");
        } finally {
          await mem.close().catch(() => undefined);
        }
      };
      const error = await rejectsWith(compact ? openAndLoad() : MemoryStore.open(dir, { embedder: DENSE4 }), "STORE_CORRUPTED");
      expect(error.message).toMatch(compact ? /slot/ : /journal/);
      if (compact) expect(dataFilesOf(dir).map((f) => [f, filesOf(dir)[f]])).toEqual(dataFilesOf(dir).map((f) => [f, before[f]]));
      else expect(filesOf(dir)).toEqual(before);
    });

    it(`links in a ${where} that name another user's entry are never followed`, async () => {
      const dir = freshDir();
      await craft(
        dir,
        [rec("a1", 1, "a", "A's secret: the safe code is 4711"), rec("b1", 2, "b", "I live in Rome", { status: "superseded", supersededBy: "a1" })],
        compact,
      );
      const mem = await MemoryStore.open(dir, { embedder: DENSE4 });
      expect((await mem.history("b", "b1")).map((e) => e.content)).toEqual(["I live in Rome"]);
      const a = await mem.list("a");
      expect((await mem.restore("b", "b1")).status).toBe("active");
      expect(await mem.list("a")).toEqual(a);
      await mem.close();
      const again = await MemoryStore.open(dir, { embedder: DENSE4 });
      expect((await again.list("a")).map((e) => e.status)).toEqual(["active"]);
      await again.close();
    });
  }

  it("new ids start past the seq of every id on disk", async () => {
    const dir = freshDir();
    await craft(dir, [rec("00000000abcd-0001", 1, "a", "an entry whose id is ahead of its seq")], true);
    const mem = await MemoryStore.open(dir, { embedder: DENSE4 });
    const { facts } = await mem.add("a", "a new fact");
    expect(parseInt(facts[0]!.id.slice(0, 12), 16)).toBeGreaterThan(0xabcd);
    await mem.close();
  });
});
