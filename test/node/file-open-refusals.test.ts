// An open that is refused changes nothing: every byte and every file of the folder stays as it was, for each reason to refuse.
//
// The store under test has everything a writable open would repair: a torn journal tail, a temp file left by
// a crash, a stale journal and the lock point a clean close leaves. Refusals are checked through MemoryStore,
// where the embedder and the entries are checked after the backend read the files.

import { appendFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore, type OpenOptions } from "../../src/node.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { encodeJournalRecord } from "../../src/persistence/file/journal-format.ts";
import type { Embedder } from "../../src/types.ts";
import { copyDir, entry, filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
let base: string;
let counter = 0;

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** An embedder of another space than the store's (8 dims instead of the default 256). */
const otherEmbedder: Embedder = {
  id: "other/8",
  dim: 8,
  embed: (texts: string[]) => Promise.resolve(texts.map(() => Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]))),
};

/** The store's journal (the one of the generation in force). */
function journalOf(dir: string): string {
  const names = readdirSync(join(dir, "moomem")).filter((n) => /^journal\.\d+\.jsonl$/.test(n));
  const gens = names.map((n) => Number(n.split(".")[1]));
  return join(dir, "moomem", `journal.${Math.max(...gens)}.jsonl`);
}

beforeAll(async () => {
  root = makeTempDir("refusals");
  base = freshDir();
  const mem = await MemoryStore.open(base, { backend: new FileBackend(base) });
  await mem.add("user-1", "I live in Beijing");
  await mem.add("user-1", "I work at a bakery");
  await mem.close();
  // What a crash leaves for the next writable open to repair: a torn write, a temp file, a stale journal.
  appendFileSync(journalOf(base), '{"n":1,"s":0,"t":5,"crc":1,"entries":[{"id":"torn');
  writeFileSync(join(base, "moomem", "slot1.jsonl.tmp"), "half a snapshot");
  writeFileSync(join(base, "moomem", "journal.0.jsonl"), "a stale journal of an old generation\n");
});
afterAll(() => {
  removeDir(root);
});

async function expectRefusedAndUnchanged(dir: string, open: () => Promise<unknown>, code: string): Promise<void> {
  const before = filesOf(dir);
  const error = await open().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toMatchObject({ code });
  expect(filesOf(dir)).toEqual(before);
  // Nothing was left holding the lock either: the next writable open is not refused for that.
  if (code !== "STORE_LOCKED") {
    const next = new FileBackend(dir);
    const again = await next.load().then(
      () => null,
      (e: unknown) => e,
    );
    await next.close();
    expect((again as { code?: string } | null)?.code).not.toBe("STORE_LOCKED");
    expect(filesOf(dir)).toEqual(before);
  }
}

describe("a refused open changes no file", () => {
  it("the base store has what a writable open repairs", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const names = Object.keys(filesOf(dir)).sort();
    expect(names).toContain("moomem/slot1.jsonl.tmp");
    expect(names).toContain("moomem/journal.0.jsonl");
    expect(names.filter((n) => /LOCK\.\d+$/.test(n))).toHaveLength(1);
    const mem = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    expect((await mem.stats()).truncatedRecovered).toBe(1);
    await mem.close();
    const repaired = Object.keys(filesOf(dir));
    expect(repaired).not.toContain("moomem/slot1.jsonl.tmp");
    expect(repaired).not.toContain("moomem/journal.0.jsonl");
  });

  it("EMBEDDER_MISMATCH (another embedder)", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, { backend: new FileBackend(dir), embedder: otherEmbedder }), "EMBEDDER_MISMATCH");
  });

  it("EMBEDDING_FAILURE (reembed with an embedder that fails)", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const failing: Embedder = { id: "failing/8", dim: 8, embed: () => Promise.reject(new Error("the model is down")) };
    await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, { backend: new FileBackend(dir), embedder: failing, reembed: true }), "EMBEDDING_FAILURE");
  });

  it("STORE_CORRUPTED (damage in the journal)", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const path = journalOf(dir);
    const gen = Number(path.split(".").at(-2));
    const text = readFileSync(path, "utf8");
    // A good record after the torn one that vouches for it: damage, not a torn write.
    const vouching = new TextDecoder().decode(encodeJournalRecord(gen, { n: 2, synced: 1, time: 6, entries: [entry("late", 99)] }));
    writeFileSync(path, `${text}\n${vouching}`);
    await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, { backend: new FileBackend(dir) }), "STORE_CORRUPTED");
  });

  it("STORE_CORRUPTED (two entries with one seq, found when the store loads them)", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const path = journalOf(dir);
    const gen = Number(path.split(".").at(-2));
    const lines = readFileSync(path, "utf8").split("\n");
    // Replace the torn tail by a good record whose entry takes seq 1, which the snapshot's first entry has.
    const clash = new TextDecoder().decode(encodeJournalRecord(gen, { n: 1, synced: 0, time: 6, entries: [entry("clash", 1, { userId: "user-1" })] }));
    writeFileSync(path, `${lines[0]}\n${clash}`);
    await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, { backend: new FileBackend(dir) }), "STORE_CORRUPTED");
  });

  it("STORE_LOCKED (another writer holds it)", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const holder = new FileBackend(dir);
    await holder.load();
    try {
      await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, { backend: new FileBackend(dir) }), "STORE_LOCKED");
    } finally {
      await holder.close();
    }
  });

  it("INVALID_ARGUMENT (bad options), for the store and for the file backend", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const bad: OpenOptions[] = [{ rrfK: -1 }, { follow: true }, { readOnly: "yes" as unknown as boolean }, { reembed: true, readOnly: true }];
    for (const options of bad) await expectRefusedAndUnchanged(dir, () => MemoryStore.open(dir, options), "INVALID_ARGUMENT");
    await expectRefusedAndUnchanged(dir, () => Promise.resolve().then(() => new FileBackend(dir, { lockLeaseMs: 1 })), "INVALID_ARGUMENT");
  });
});
