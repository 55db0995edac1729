// close() compacts only when there is something to fold (docs/design.md, "Compaction"): a store opened, read and
// closed leaves every file as it was (a CLI call or a serverless function on a large store rewrites nothing), while
// a store whose journal holds operations (this process's, or those of one that never closed), or whose snapshot is
// in an older format, is still compacted at close.

import { createHash } from "node:crypto";
import { cpSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { FaultyFileSystem } from "./helpers/faulty-file-system.ts";
import { SNAPSHOT_FORMAT_VERSION, encodeSnapshot } from "../../src/persistence/file/snapshot-format.ts";
import { entryFromJson } from "../../src/persistence/record-codec.ts";
import type { EntryRecord } from "../../src/types.ts";
import { filesOf, isLockFile, makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("close-without-writes");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** Every data file of the store (lock files left out) with a hash of its bytes, its size and mtime: "nothing was rewritten" checked exactly. */
function dataFiles(dir: string): Record<string, { sha256: string; size: number; mtimeMs: number }> {
  const out: Record<string, { sha256: string; size: number; mtimeMs: number }> = {};
  for (const [name, bytes] of Object.entries(filesOf(dir))) {
    if (isLockFile(name)) continue;
    const st = statSync(join(dir, name));
    out[name] = { sha256: createHash("sha256").update(bytes).digest("hex"), size: st.size, mtimeMs: st.mtimeMs };
  }
  return out;
}

function head(dir: string): string {
  return readFileSync(join(dir, "moomem", "head"), "utf8");
}

function slotPath(dir: string): string {
  return join(dir, "moomem", `slot${head(dir).trim()}.jsonl`);
}

/** A store of three users, closed (so compacted: its journal is empty). */
async function builtStore(dir: string): Promise<void> {
  const mem = await MemoryStore.open(dir);
  for (let u = 0; u < 3; u++) {
    await mem.add(`user-${u}`, `I live in city ${u}`);
    await mem.add(`user-${u}`, `I like tea number ${u}`);
  }
  await mem.forget("user-2", { all: true });
  await mem.close();
}

/** Every read the store has, for one user and for all. */
async function readEverything(mem: MemoryStore): Promise<void> {
  expect((await mem.recall("user-1", "where do I live")).map((h) => h.content)).toContain("I live in city 1");
  await mem.list("user-0");
  await mem.profile("user-0");
  await mem.history("user-0", (await mem.list("user-0"))[0]!.id);
  expect((await mem.users()).map((u) => u.userId)).toEqual(["user-0", "user-1", "user-2"]);
  expect((await mem.stats()).total).toBe(6);
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  expect(lines).toHaveLength(7);
}

const OPENS: [string, Parameters<typeof MemoryStore.open>[1]][] = [
  ["every user loaded at open", {}],
  ["users loaded when asked (maxLoadedUsers)", { maxLoadedUsers: 1 }],
  ["sync: none", { sync: "none" }],
];

describe("close without writes", () => {
  for (const [name, options] of OPENS) {
    it(`${name}: open → reads → close leaves every file (names, bytes, mtimes) and head as they were`, async () => {
      const dir = freshDir();
      await builtStore(dir);
      const before = dataFiles(dir);
      const mem = await MemoryStore.open(dir, options);
      await readEverything(mem);
      await mem.close();
      expect(dataFiles(dir)).toEqual(before);
      // And again: a reopened store reads the same.
      const again = await MemoryStore.open(dir, options);
      await readEverything(again);
      await again.close();
      expect(dataFiles(dir)).toEqual(before);
    });

    it(`${name}: open → add → close still compacts (the journal is folded into the other slot)`, async () => {
      const dir = freshDir();
      await builtStore(dir);
      const headBefore = head(dir);
      const mem = await MemoryStore.open(dir, options);
      await mem.add("user-1", "I like coffee now");
      await mem.close();
      expect(head(dir)).not.toBe(headBefore);
      const journals = Object.keys(filesOf(dir)).filter((f) => /journal\.\d+\.jsonl$/.test(f));
      expect(journals).toHaveLength(1);
      // The new journal holds its header only: every operation is in the snapshot.
      expect(readFileSync(join(dir, journals[0]!), "utf8").trim().split("\n")).toHaveLength(1);
      const reopened = await MemoryStore.open(dir, options);
      expect((await reopened.list("user-1")).map((e) => e.content)).toContain("I like coffee now");
      await reopened.close();
    });
  }

  it("a write rolled back by the store (an op that throws) leaves nothing to fold: close rewrites nothing", async () => {
    const dir = freshDir();
    await builtStore(dir);
    const before = dataFiles(dir);
    const mem = await MemoryStore.open(dir);
    // Forgetting an id of no entry changes nothing: no journal line.
    expect(await mem.forget("user-0", { id: "no-such-id" })).toBe(0);
    await mem.close();
    expect(dataFiles(dir)).toEqual(before);
  });

  it("a store whose journal holds operations of a process that never closed is compacted at the next close, even without writes", async () => {
    const dir = freshDir();
    await builtStore(dir);
    const writer = await MemoryStore.open(dir);
    await writer.add("user-0", "I moved to Shenzhen");
    // A copy of the folder as the writer left it (sync "always": the add is on disk): a crash after the add.
    const crashed = freshDir();
    cpSync(dir, crashed, { recursive: true, filter: (from) => !isLockFile(basename(from)) });
    await writer.close();
    const headBefore = head(crashed);
    const mem = await MemoryStore.open(crashed);
    expect((await mem.list("user-0")).map((e) => e.content)).toContain("I moved to Shenzhen");
    await mem.close();
    expect(head(crashed)).not.toBe(headBefore);
    const reopened = await MemoryStore.open(crashed);
    expect((await reopened.list("user-0")).map((e) => e.content)).toContain("I moved to Shenzhen");
    await reopened.close();
  });

  it("a store with an older snapshot format (v4) is still upgraded by the close that follows a read-only session of calls", async () => {
    const dir = freshDir();
    await builtStore(dir);
    // Rewrite the slot in force as a v4 moomem wrote it: one line per entry in seq order, same gen, same entries.
    const path = slotPath(dir);
    const text = readFileSync(path, "utf8");
    const header = JSON.parse(text.split("\n")[0]!) as { gen: number; clock: number | null; embedder: { id: string; dim: number } };
    // The entries as the store holds them (a v6 section keeps vectors in its block line, so read them through an export).
    const entries: EntryRecord[] = [];
    const reader = await MemoryStore.open(dir, { readOnly: true });
    for await (const line of reader.export()) if (line.startsWith('{"id":')) entries.push(entryFromJson(JSON.parse(line)));
    await reader.close();
    entries.sort((a, b) => a.seq - b.seq);
    writeFileSync(
      path,
      Buffer.concat([...encodeSnapshot({ gen: header.gen, clock: header.clock }, { embedder: header.embedder, count: entries.length, entries })]),
    );
    expect(readFileSync(path, "utf8")).toMatch(/^\{"v":4,/);

    const mem = await MemoryStore.open(dir, { maxLoadedUsers: 1 });
    expect((await mem.stats()).formatVersion).toBe(4);
    await readEverything(mem);
    await mem.close();
    expect(JSON.parse(readFileSync(slotPath(dir), "utf8").split("\n")[0]!)).toMatchObject({ v: SNAPSHOT_FORMAT_VERSION });
    const reopened = await MemoryStore.open(dir);
    expect((await reopened.stats()).formatVersion).toBe(SNAPSHOT_FORMAT_VERSION);
    await readEverything(reopened);
    await reopened.close();
  });

  it("a read-only store never writes; the writer's close after its reader's reads rewrites nothing", async () => {
    const dir = freshDir();
    await builtStore(dir);
    const before = dataFiles(dir);
    const writer = await MemoryStore.open(dir);
    const reader = await MemoryStore.open(dir, { readOnly: true, follow: true });
    await readEverything(reader);
    await readEverything(writer);
    await reader.close();
    await writer.close();
    expect(dataFiles(dir)).toEqual(before);
  });

  it("a store whose disk failed a sync (poisoned) still reports the failure at close, as before", async () => {
    const dir = freshDir();
    await builtStore(dir);
    const fs = new FaultyFileSystem(new NodeFileSystem());
    const mem = await MemoryStore.open(dir, { backend: new FileBackend(dir, { fs }) });
    fs.armFailure(/^datasync journal/, "EIO");
    await expect(mem.add("user-0", "I like jazz")).rejects.toMatchObject({ code: "IO_FAILURE" });
    await expect(mem.close()).rejects.toMatchObject({ code: "IO_FAILURE" });
    const reopened = await MemoryStore.open(dir);
    expect((await reopened.stats()).total).toBe(6);
    await reopened.close();
  });

  it("FileBackend.hasUncompacted(): false after a compaction, true once a line is appended or for an older snapshot", async () => {
    const dir = freshDir();
    await builtStore(dir);
    const backend = new FileBackend(dir);
    const mem = await MemoryStore.open(dir, { backend });
    expect(backend.hasUncompacted()).toBe(false);
    await mem.add("user-0", "I like jazz");
    expect(backend.hasUncompacted()).toBe(true);
    await mem.close();
  });
});
