// Read-only stores that follow a writer: refresh() (and `follow: true`) catch up with what another process committed,
// through appends, compactions, purges, the writer's close and a new writer.

import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { encodeJournalRecord } from "../../src/persistence/file/journal-format.ts";
import { entry, makeTempDir, removeDir } from "./helpers/store-files.ts";
import { bundleFixture } from "./helpers/script-runner.ts";
import { LockClient } from "./helpers/lock-clients.ts";

type Store = Awaited<ReturnType<typeof MemoryStore.open>>;

const WRITER = fileURLToPath(new URL("./fixtures/follow-writer.ts", import.meta.url));

let root: string;
let writerBundle: string;
let counter = 0;
const running: LockClient[] = [];

beforeAll(() => {
  root = makeTempDir("follow");
  writerBundle = bundleFixture(WRITER, root);
});
afterAll(async () => {
  for (const c of running) c.kill();
  await Promise.all(running.map((c) => c.exited));
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

async function startWriter(dir: string, compactAfterBytes?: number): Promise<LockClient> {
  const writer = LockClient.process(writerBundle, compactAfterBytes === undefined ? { dir } : { dir, compactAfterBytes });
  running.push(writer);
  expect(await writer.next()).toEqual({ event: "opened" });
  return writer;
}

async function add(writer: LockClient, user: string, text: string): Promise<string> {
  const answer = await writer.ask(`add ${user}|${text}`);
  expect(answer).toMatchObject({ event: "added" });
  return answer.id!;
}

/** Everything a store holds, as export lines without the header (which carries the export time). */
async function contentOf(store: Store): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of store.export()) lines.push(line);
  return lines.slice(1);
}

/** What a reader opened right now would hold. */
async function freshView(dir: string): Promise<string[]> {
  const mem = await MemoryStore.open(dir, { readOnly: true });
  try {
    return await contentOf(mem);
  } finally {
    await mem.close();
  }
}

function generation(dir: string): number {
  const names = readdirSync(join(dir, "moomem")).filter((n) => /^journal\.\d+\.jsonl$/.test(n));
  return Math.max(...names.map((n) => Number(n.split(".")[1])));
}

describe("a read-only store following a writer in another process", () => {
  it("refresh() applies new adds, the writer's compactions, a purge, its close and a new writer's adds", async () => {
    const dir = freshDir();
    const writer = await startWriter(dir, 4000);
    await add(writer, "user-1", "I live in Beijing");
    const reader = await MemoryStore.open(dir, { readOnly: true });
    expect((await reader.list("user-1")).map((e) => e.content)).toEqual(["I live in Beijing"]);

    const mochi = await add(writer, "user-1", "I have a cat named Mochi");
    // Without refresh the reader keeps what it read.
    expect((await reader.list("user-1")).map((e) => e.content)).toEqual(["I live in Beijing"]);
    expect(await reader.refresh()).toBe(true);
    expect((await reader.recall("user-1", "what is my cat called?"))[0]?.content).toBe("I have a cat named Mochi");
    expect(await reader.refresh()).toBe(false);

    // Enough adds for the writer to compact several times (the reader then reads the new snapshot whole).
    const before = generation(dir);
    for (let i = 0; i < 30; i++) await add(writer, "user-2", `fact number ${i} about the garden, the roses and the shed`);
    expect(generation(dir)).toBeGreaterThan(before);
    expect(await reader.refresh()).toBe(true);
    expect(await contentOf(reader)).toEqual(await freshView(dir));
    expect((await reader.stats()).total).toBe(32);

    expect(await writer.ask(`forget user-1|${mochi}`)).toEqual({ event: "forgot", count: 1 });
    expect(await reader.refresh()).toBe(true);
    expect((await reader.list("user-1", { status: "deleted" })).map((e) => e.content)).toEqual([""]);

    expect(await writer.ask("close")).toEqual({ event: "closed" });
    await reader.refresh();
    expect(await contentOf(reader)).toEqual(await freshView(dir));

    const next = await startWriter(dir);
    await add(next, "user-3", "I started learning the cello");
    expect(await reader.refresh()).toBe(true);
    expect((await reader.list("user-3")).map((e) => e.content)).toEqual(["I started learning the cello"]);
    expect(await next.ask("close")).toEqual({ event: "closed" });
    await reader.close();
    await expect(reader.refresh()).rejects.toMatchObject({ code: "STORE_CLOSED" });
  }, 120_000);

  it("with follow: true, every call sees each write acknowledged before the call began", async () => {
    const dir = freshDir();
    const writer = await startWriter(dir, 3000);
    await add(writer, "user-1", "I live in Beijing");
    const reader = await MemoryStore.open(dir, { readOnly: true, follow: true });
    for (let i = 0; i < 15; i++) {
      const text = `I watered the plants on day ${i}`;
      await add(writer, "user-1", text);
      const listed = (await reader.list("user-1")).map((e) => e.content);
      expect(listed).toContain(text);
      expect(listed).toHaveLength(i + 2);
    }
    expect((await reader.stats()).total).toBe(16);
    expect(await writer.ask("close")).toEqual({ event: "closed" });
    expect(await contentOf(reader)).toEqual(await freshView(dir));
    await reader.close();
  }, 120_000);
});

describe("refresh() elsewhere", () => {
  it('is false on a writable store and on ":memory:"; follow needs readOnly', async () => {
    const dir = freshDir();
    const writer = await MemoryStore.open(dir);
    await writer.add("user-1", "I live in Beijing");
    expect(await writer.refresh()).toBe(false);
    await writer.close();
    const memory = await MemoryStore.open(":memory:");
    expect(await memory.refresh()).toBe(false);
    await memory.close();
    await expect(MemoryStore.open(dir, { follow: true })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/follow is for readOnly stores/) as unknown,
    });
  });
});

describe("FileBackend.refresh()", () => {
  it("while a writer appends and compacts, the reader always holds exactly what was written up to some point", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir);
    await writer.load();
    await writer.accept();
    const reader = new FileBackend(dir, { readOnly: true });
    const held = new Map((await reader.load()).entries.map((e) => [e.id, e]));
    const written: ReturnType<typeof entry>[] = [];
    let refreshes = 0;
    let reloads = 0;
    for (let i = 1; i <= 400; i++) {
      const e = entry(`w${i}`, i);
      written.push(e);
      await writer.append([{ entries: [e] }]);
      if (i % 37 === 0) await writer.compact({ embedder: { id: "x", dim: 4 }, count: written.length, entries: written });
      if (i % 7 === 0 || i % 37 === 1) {
        const found = await reader.refresh();
        refreshes++;
        if (found !== null) {
          if (found.replace) {
            reloads++;
            held.clear();
          }
          for (const f of found.entries) held.set(f.id, f);
        }
        const ids = [...held.values()].sort((a, b) => a.seq - b.seq).map((e) => e.id);
        expect(ids).toEqual(written.map((e) => e.id));
      }
    }
    expect(refreshes).toBeGreaterThan(50);
    expect(reloads).toBeGreaterThan(5);
    await writer.close();
    await reader.close();
  });

  it("costs nothing when nothing changed, and ignores a write still being made until it is whole", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir);
    await writer.load();
    await writer.append([{ entries: [entry("a", 1)] }]);
    const reader = new FileBackend(dir, { readOnly: true });
    expect((await reader.load()).entries.map((e) => e.id)).toEqual(["a"]);
    expect(await reader.refresh()).toBeNull();
    await writer.append([{ entries: [entry("b", 2)] }, { entries: [entry("c", 3)] }]);
    const found = await reader.refresh();
    expect(found).toMatchObject({ replace: false });
    expect(found!.entries.map((e) => e.id)).toEqual(["b", "c"]);
    expect(await reader.refresh()).toBeNull();
    await writer.close();

    // A write being made: half of the next record is in the file, then the rest.
    const path = join(dir, "moomem", "journal.0.jsonl");
    const next = encodeJournalRecord(0, { n: 4, synced: 3, time: 1_800_000_000_000, entries: [entry("d", 4)] });
    appendFileSync(path, next.subarray(0, 40));
    expect(await reader.refresh()).toBeNull();
    expect(await reader.refresh()).toBeNull();
    appendFileSync(path, next.subarray(40));
    const whole = await reader.refresh();
    expect(whole!.entries.map((e) => e.id)).toEqual(["d"]);
    expect(reader.stats().lastWriteAt).toBe(1_800_000_000_000);
    await reader.close();
  });
});
