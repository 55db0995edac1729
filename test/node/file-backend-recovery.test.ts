// FileBackend recovery on real files: torn tails at every byte, damage refused with no file changed, damaged head, seed v1 stores.

import { existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync, appendFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Batch } from "../../src/persistence/backend.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { encodeJournalRecord } from "../../src/persistence/file/journal-format.ts";
import { encodeSnapshot } from "../../src/persistence/file/snapshot-format.ts";
import { MoomemError } from "../../src/errors.ts";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { EMBEDDER, copyDir, dataFilesOf, entry, filesOf, lastLineStart, makeTempDir, plain, removeDir, stateAfter } from "./helpers/store-files.ts";

const SEED_FIXTURE = fileURLToPath(new URL("../fixtures/seed-v1", import.meta.url));

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("recovery");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** One batch per record, each written as its own group. */
function batches(from: number, to: number): Batch[] {
  const out: Batch[] = [];
  for (let seq = from; seq <= to; seq++) out.push({ entries: [entry(`e${seq}`, seq)] });
  return out;
}

/** Writes `groups` through a real backend, compacting where a group is the string "compact". */
async function build(dir: string, steps: (Batch[] | "compact")[], earlier: Batch[] = []): Promise<Batch[]> {
  const backend = new FileBackend(dir);
  await backend.load();
  const written: Batch[] = [];
  for (const step of steps) {
    if (step === "compact") {
      const state = stateAfter([...earlier, ...written]);
      await backend.compact({ embedder: EMBEDDER, count: state.length, entries: state });
    } else {
      for (const batch of step) {
        await backend.append([batch]);
        written.push(batch);
      }
    }
  }
  await backend.close();
  return written;
}

/** Opens as MemoryStore does: load, then (writable) accept, which is when recovery repairs the files. */
async function open(dir: string, options: { readOnly?: boolean } = {}): Promise<{ backend: FileBackend; state: Awaited<ReturnType<FileBackend["load"]>> }> {
  const backend = new FileBackend(dir, options);
  const state = await backend.load();
  await backend.accept();
  return { backend, state };
}

async function expectCorrupted(dir: string, pattern: RegExp): Promise<MoomemError> {
  const before = filesOf(dir);
  const backend = new FileBackend(dir);
  let caught: unknown = null;
  try {
    await backend.load();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(MoomemError);
  const error = caught as MoomemError;
  expect(error.code).toBe("STORE_CORRUPTED");
  expect(error.message).toMatch(pattern);
  expect(error.message).toMatch(/changed no file|another version/);
  // A failed open changes no file (and leaves no LOCK behind).
  expect(filesOf(dir)).toEqual(before);
  await backend.close();
  return error;
}

describe("FileBackend torn journal tails", () => {
  // About 1,200 opens: the timeout is generous so a loaded machine never fails it (the verdict is the state, not the time).
  it("opens with exactly the earlier records for a cut at every byte of the last record", async () => {
    const dir = freshDir();
    const written = await build(dir, [batches(1, 5)]);
    const path = join(dir, "moomem", "journal.0.jsonl");
    const whole = readFileSync(path);
    const start = lastLineStart(whole);
    expect(whole.length - start).toBeGreaterThan(200);
    const expected = stateAfter(written.slice(0, 4)).map(plain);
    for (let cut = start; cut < whole.length; cut++) {
      writeFileSync(path, whole.subarray(0, cut));
      if (cut % 50 === 7) {
        // A read-only open sees the same and cuts nothing.
        const ro = await open(dir, { readOnly: true });
        expect(ro.state.entries.map(plain)).toEqual(expected);
        expect(ro.state.truncatedRecovered).toBe(cut === start ? 0 : 1);
        await ro.backend.close();
        expect(readFileSync(path).length).toBe(cut);
      }
      const { backend, state } = await open(dir);
      expect(state.entries.map(plain), `cut at ${cut}`).toEqual(expected);
      expect(state.truncatedRecovered).toBe(cut === start ? 0 : 1);
      await backend.close();
      expect(readFileSync(path).length).toBe(start);
    }
    // After the cut the journal takes new records and reopens cleanly.
    const { backend } = await open(dir);
    await backend.append([{ entries: [entry("after", 9)] }]);
    await backend.close();
    const again = await open(dir);
    expect(again.state.truncatedRecovered).toBe(0);
    expect(again.state.entries.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4", "after"]);
    await again.backend.close();
  }, 120_000);

  it("cuts garbage, NUL and fake-record tails", async () => {
    const base = freshDir();
    const written = await build(base, ["compact", batches(1, 3)]);
    const journal = readFileSync(join(base, "moomem", "journal.1.jsonl"));
    const lastLine = journal.subarray(lastLineStart(journal));
    const fakeCrc = Buffer.from(lastLine.toString("utf8").replace(/"crc":\d+/, '"crc":12345'));
    const tails: [string, Uint8Array][] = [
      ["NUL block", new Uint8Array(4096)],
      ["NUL block with newlines", Uint8Array.from({ length: 300 }, (_, i) => (i % 37 === 0 ? 10 : 0))],
      ["random bytes", Uint8Array.from({ length: 500 }, (_, i) => (i * 7919 + 13) % 256)],
      ["blank lines", Buffer.from("\n\n\n")],
      ["half of a record", lastLine.subarray(0, Math.floor(lastLine.length / 2))],
      ["a record with a bad CRC", fakeCrc],
      ["a repeated record", lastLine],
    ];
    for (const [name, tail] of tails) {
      const dir = freshDir();
      copyDir(base, dir);
      const path = join(dir, "moomem", "journal.1.jsonl");
      appendFileSync(path, tail);
      const { backend, state } = await open(dir);
      expect(state.entries.map(plain), name).toEqual(stateAfter(written).map(plain));
      expect(state.truncatedRecovered, name).toBe(1);
      expect(readFileSync(path).equals(journal), name).toBe(true);
      await backend.close();
    }
  });
});

describe("FileBackend refuses damage and changes no file", () => {
  let base: string;
  beforeAll(async () => {
    base = freshDir();
    // slot0 (gen 1) holds e1..e3; journal.1 holds e4..e6.
    await build(base, [batches(1, 3), "compact", batches(4, 6)]);
    // These cases check the rules of v4 (still read): slot0 is rewritten as a v4 moomem wrote it. v5's own
    // damage cases are in file-sectioned-snapshot.test.ts.
    const slot = join(base, "moomem", "slot0.jsonl");
    const clock = (JSON.parse(readFileSync(slot, "utf8").split("\n")[0]!) as { clock: number | null }).clock;
    const state = stateAfter(batches(1, 3));
    writeFileSync(slot, Buffer.concat([...encodeSnapshot({ gen: 1, clock }, { embedder: EMBEDDER, count: state.length, entries: state })]));
  });

  function damaged(change: (moomem: string) => void): string {
    const dir = freshDir();
    copyDir(base, dir);
    change(join(dir, "moomem"));
    return dir;
  }

  function editLines(path: string, edit: (lines: string[]) => void): void {
    const lines = readFileSync(path, "utf8").split("\n");
    edit(lines);
    writeFileSync(path, lines.join("\n"));
  }

  it("a damaged record followed by durable ones", async () => {
    const dir = damaged((m) => {
      const path = join(m, "journal.1.jsonl");
      const bytes = readFileSync(path);
      const second = bytes.indexOf(10) + 1;
      bytes[second + 120] = bytes[second + 120]! ^ 0x04;
      writeFileSync(path, bytes);
    });
    const error = await expectCorrupted(dir, /journal\.1\.jsonl line 2: CRC mismatch/);
    expect(error.message).toMatch(/damage, not a torn write/);
  });

  it("an empty line in the middle", async () => {
    const dir = damaged((m) => editLines(join(m, "journal.1.jsonl"), (lines) => lines.splice(2, 0, "")));
    await expectCorrupted(dir, /journal\.1\.jsonl line 3: empty line/);
  });

  it("a journal of an unknown version", async () => {
    const dir = damaged((m) => editLines(join(m, "journal.1.jsonl"), (lines) => (lines[0] = '{"journal":9,"gen":1}')));
    await expectCorrupted(dir, /journal\.1\.jsonl line 1: journal format version 9 is not supported/);
  });

  it("a snapshot of an unknown version", async () => {
    const dir = damaged((m) => editLines(join(m, "slot0.jsonl"), (lines) => (lines[0] = lines[0]!.replace('"v":4', '"v":7'))));
    await expectCorrupted(dir, /slot0\.jsonl line 1: snapshot format version 7 is not supported/);
  });

  it("a damaged entry in the slot head names", async () => {
    const dir = damaged((m) => editLines(join(m, "slot0.jsonl"), (lines) => (lines[2] = lines[2]!.replace('"fact 2', '"fact 9'))));
    await expectCorrupted(dir, /slot0\.jsonl line 5: CRC mismatch/);
  });

  it("an entry that cannot be read in the slot head names", async () => {
    const dir = damaged((m) => editLines(join(m, "slot0.jsonl"), (lines) => (lines[1] = lines[1]!.slice(0, 30))));
    await expectCorrupted(dir, /slot0\.jsonl line 2: not JSON/);
  });

  it("a slot without its footer", async () => {
    const dir = damaged((m) => {
      const path = join(m, "slot0.jsonl");
      const bytes = readFileSync(path);
      truncateSync(path, lastLineStart(bytes));
    });
    await expectCorrupted(dir, /slot0\.jsonl line 5: the footer is missing/);
  });

  it("a head naming a slot that does not exist", async () => {
    const dir = damaged((m) => writeFileSync(join(m, "head"), "1"));
    await expectCorrupted(dir, /head line 1: head names slot1\.jsonl, which does not exist/);
  });

  it("a missing journal", async () => {
    const dir = damaged((m) => unlinkSync(join(m, "journal.1.jsonl")));
    await expectCorrupted(dir, /journal\.1\.jsonl: the journal of snapshot gen 1 \(slot0\.jsonl\) is missing/);
  });

  it("the base store itself opens fine", async () => {
    const dir = damaged(() => undefined);
    const { backend, state } = await open(dir);
    expect(state.entries.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4", "e5", "e6"]);
    expect(state.formatVersion).toBe(4);
    expect(state.embedder).toEqual(EMBEDDER);
    await backend.close();
  });
});

describe("FileBackend with a damaged head", () => {
  let base: string;
  let written: Batch[];
  beforeAll(async () => {
    base = freshDir();
    // slot1 = gen 2 (head "1"), journal.2 holds e4; slot0 = gen 1 is put back as a crash after the commit would leave it.
    written = await build(base, [batches(1, 2), "compact"]);
    const slot0 = readFileSync(join(base, "moomem", "slot0.jsonl"));
    written.push(...(await build(base, [batches(3, 3), "compact", batches(4, 4)], written)));
    expect(existsSync(join(base, "moomem", "slot0.jsonl"))).toBe(false);
    writeFileSync(join(base, "moomem", "slot0.jsonl"), slot0);
    expect(readFileSync(join(base, "moomem", "head"), "utf8")).toBe("1");
  });

  for (const [name, damage] of [
    ["garbage", (m: string) => writeFileSync(join(m, "head"), "x!")],
    ["empty", (m: string) => writeFileSync(join(m, "head"), "")],
    ["missing", (m: string) => unlinkSync(join(m, "head"))],
  ] as const) {
    it(`picks the complete slot with the larger gen when head is ${name}`, async () => {
      const dir = freshDir();
      copyDir(base, dir);
      damage(join(dir, "moomem"));
      const { backend, state } = await open(dir);
      expect(state.entries.map(plain)).toEqual(stateAfter(written).map(plain));
      await backend.append([{ entries: [entry("e5", 5)] }]);
      const after = [...written, { entries: [entry("e5", 5)] }];
      await backend.compact({ embedder: EMBEDDER, count: 5, entries: stateAfter(after) });
      await backend.close();
      expect(readFileSync(join(dir, "moomem", "head"), "utf8")).toBe("0");
      const again = await open(dir);
      expect(again.state.entries.map(plain)).toEqual(stateAfter(after).map(plain));
      await again.backend.close();
    });
  }

  it("refuses to fall back to an older slot whose journal is gone", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    writeFileSync(join(dir, "moomem", "head"), "?");
    const slot1 = join(dir, "moomem", "slot1.jsonl");
    truncateSync(slot1, readFileSync(slot1).length - 5);
    await expectCorrupted(dir, /head: head is unreadable, and slot1\.jsonl cannot be trusted/);
  });
});

describe("FileBackend leftovers of a crash", () => {
  it("deletes temp files and stale journals on a writable open, and only then", async () => {
    const dir = freshDir();
    const written = await build(dir, [batches(1, 2), "compact", batches(3, 3)]);
    const m = join(dir, "moomem");
    writeFileSync(join(m, "slot1.jsonl.tmp"), "half a snapshot");
    writeFileSync(join(m, "journal.2.jsonl"), '{"journal":2,"gen":2}\n');
    writeFileSync(join(m, "journal.0.jsonl"), "old");
    writeFileSync(join(m, "head.tmp"), "1");
    const before = filesOf(dir);
    const ro = await open(dir, { readOnly: true });
    expect(ro.state.entries.map(plain)).toEqual(stateAfter(written).map(plain));
    await ro.backend.close();
    expect(filesOf(dir)).toEqual(before);
    const { backend, state } = await open(dir);
    expect(state.entries.map(plain)).toEqual(stateAfter(written).map(plain));
    await backend.close();
    expect(dataFilesOf(dir)).toEqual(["moomem/head", "moomem/journal.1.jsonl", "moomem/slot0.jsonl"]);
  });

  it("opens a store whose first compaction died before head was written (gen 0 stays the truth)", async () => {
    const dir = freshDir();
    const written = await build(dir, [batches(1, 3)]);
    const m = join(dir, "moomem");
    // What the first compaction leaves when killed after renaming the slot but before creating journal.1.
    const other = freshDir();
    await build(other, [batches(1, 1), "compact"]);
    writeFileSync(join(m, "slot0.jsonl"), readFileSync(join(other, "moomem", "slot0.jsonl")));
    const { backend, state } = await open(dir);
    expect(state.entries.map(plain)).toEqual(stateAfter(written).map(plain));
    expect(state.embedder).toBeNull();
    await backend.close();
  });

  it("refuses a read-only open of a store that does not exist, creating nothing", async () => {
    const dir = freshDir();
    for (const missing of [dir, join(dir, "sub")]) {
      if (missing !== dir) mkdirSync(dir);
      const backend = new FileBackend(missing, { readOnly: true });
      const error = await backend.load().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: "STORE_NOT_FOUND" });
      expect((error as Error).message).toContain(`there is no store at ${missing}`);
      await backend.close();
      expect(existsSync(missing)).toBe(false);
    }
  });

  it("opens a store folder that holds nothing yet (a writer is creating it) read-only, as empty", async () => {
    const dir = freshDir();
    mkdirSync(join(dir, "moomem"), { recursive: true });
    const { backend, state } = await open(dir, { readOnly: true });
    expect(state.entries).toEqual([]);
    expect(state.formatVersion).toBe(6);
    await expect(backend.append([{ entries: [entry("x", 1)] }])).rejects.toMatchObject({ code: "READ_ONLY" });
    await expect(backend.compact({ embedder: EMBEDDER, count: 0, entries: [] })).rejects.toMatchObject({ code: "READ_ONLY" });
    expect(backend.wantsCompaction()).toBe(false);
    await backend.close();
    expect(filesOf(dir)).toEqual({});
  });
});

describe("FileBackend on v2 stores (dense vectors only)", () => {
  const mostlyZero = (seq: number): Batch => ({ entries: [entry(`e${seq}`, seq, { embedding: Float32Array.from([0, seq + 0.5, 0, 0]) })] });

  it("appends to a v2 journal in v2, then compacts to the current version with sparse vectors, losing no bit", async () => {
    const dir = freshDir();
    const m = join(dir, "moomem");
    mkdirSync(m, { recursive: true });
    // A store as a v2 moomem left it: no snapshot yet, a journal of gen 0 with two records.
    const old = [mostlyZero(1), mostlyZero(2)];
    const lines = old.map((batch, i) => encodeJournalRecord(0, { n: i + 1, synced: i, time: 1_700_000_000_000, entries: batch.entries }, 2));
    writeFileSync(join(m, "journal.0.jsonl"), Buffer.concat([Buffer.from('{"journal":2,"gen":0}\n'), ...lines]));

    const { backend, state } = await open(dir);
    expect(state.entries.map(plain)).toEqual(stateAfter(old).map(plain));
    expect(state.formatVersion).toBe(2);
    expect(state.outdated).toBe(true);
    expect(backend.stats().formatVersion).toBe(2);
    await backend.append([mostlyZero(3)]);
    const journal = readFileSync(join(m, "journal.0.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.length > 0);
    expect(journal[0]).toBe('{"journal":2,"gen":0}');
    expect(journal).toHaveLength(4);
    for (const line of journal.slice(1)) expect(line).not.toContain('"sparse"'); // a v2 reader can still read every line

    const all = [...old, mostlyZero(3)];
    const current = stateAfter(all);
    await backend.compact({ embedder: EMBEDDER, count: current.length, entries: current });
    expect(backend.stats().formatVersion).toBe(6);
    await backend.append([mostlyZero(4)]);
    await backend.close();
    const slot = readFileSync(join(m, "slot0.jsonl"), "utf8");
    expect(slot).toMatch(/^\{"v":6,"gen":1,/);
    // v6: the vector's components are in the section's block line (stored sparse), the entry line names its dimension.
    expect(slot).toContain('"embedding":4,');
    expect(slot).toMatch(/\{"blocks":"[^"]+","n":\d+,"forms":"[^"]+","values":\d+,"indices":[1-9]/);
    const next = readFileSync(join(m, "journal.1.jsonl"), "utf8");
    expect(next.startsWith('{"journal":4,"gen":1}\n')).toBe(true);
    expect(next).toContain('"sparse"');

    const reopened = await open(dir, { readOnly: true });
    expect(reopened.state.formatVersion).toBe(6);
    expect(reopened.state.entries.map(plain)).toEqual(stateAfter([...all, mostlyZero(4)]).map(plain));
    await reopened.backend.close();
  });
});

describe("FileBackend on the seed's v1 snapshots", () => {
  function seedCopy(): string {
    const dir = freshDir();
    copyDir(SEED_FIXTURE, dir);
    return dir;
  }

  it("loads the fixture as it is, then compacts it to the current version", async () => {
    const dir = seedCopy();
    const slot0 = readFileSync(join(dir, "moomem", "slot0.jsonl"));
    const { backend, state } = await open(dir);
    expect(state.formatVersion).toBe(1);
    expect(state.embedder).toBeNull();
    expect(state.truncatedRecovered).toBe(0);
    expect(state.lastWriteAt).toBeNull();
    // The seed kept the store's bookkeeping in metadata: it is read into the lifecycle.
    expect(
      state.entries.map((e) => [e.id, e.userId, e.content, e.kind, e.status, e.seq, e.createdAt, e.updatedAt, e.supersededBy, e.metadata, e.lifecycle]),
    ).toEqual([
      ["000000000001-6091", "user-42", "我对花生过敏", "unstructured", "active", 1, 1, 1, undefined, {}, { extractor: "raw" }],
      ["000000000002-a3f0", "user-7", "I moved to Berlin last spring", "unstructured", "deleted", 2, 2, 2, undefined, {}, { extractor: "raw" }],
    ]);
    const vector = state.entries[0]!.embedding!;
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector.length).toBe(256);
    expect(vector[17]).toBeCloseTo(0.35355339, 6);
    expect(vector[3]).toBeCloseTo(-0.35355339, 6);

    // Writes before the first compaction go to journal.4 next to the v1 snapshot, which is left alone.
    await backend.append([{ entries: [entry("e3", 3, { userId: "user-42" })] }]);
    await backend.close();
    expect(readFileSync(join(dir, "moomem", "slot0.jsonl")).equals(slot0)).toBe(true);
    const second = await open(dir);
    expect(second.state.formatVersion).toBe(1);
    expect(second.state.entries.map((e) => e.id)).toEqual(["000000000001-6091", "000000000002-a3f0", "e3"]);

    const seedEmbedder = { id: "seed-hashing", dim: 256 };
    const entries = second.state.entries;
    await second.backend.compact({ embedder: seedEmbedder, count: entries.length, entries });
    await second.backend.close();
    // The seed's snapshot is gone with the old journal: only the new v5 snapshot remains.
    expect(dataFilesOf(dir)).toEqual(["moomem/head", "moomem/journal.5.jsonl", "moomem/slot1.jsonl"]);
    expect(readFileSync(join(dir, "moomem", "slot1.jsonl"), "utf8")).toMatch(/^\{"v":6,"gen":5,/);

    const third = await open(dir);
    expect(third.state.formatVersion).toBe(6);
    expect(third.state.embedder).toEqual(seedEmbedder);
    expect(third.state.entries.map(plain)).toEqual(entries.map(plain));
    await third.backend.close();
  });

  it("ignores and counts a half-written last line of a seed snapshot, without cutting the file", async () => {
    const dir = seedCopy();
    const path = join(dir, "moomem", "slot0.jsonl");
    const bytes = readFileSync(path);
    truncateSync(path, bytes.length - 100);
    const { backend, state } = await open(dir);
    expect(state.truncatedRecovered).toBe(1);
    expect(state.entries.map((e) => e.id)).toEqual(["000000000001-6091"]);
    await backend.close();
    expect(readFileSync(path).length).toBe(bytes.length - 100);
  });

  it("refuses a seed snapshot with a bad middle line", async () => {
    const dir = seedCopy();
    const path = join(dir, "moomem", "slot0.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    lines.splice(1, 0, "");
    writeFileSync(path, lines.join("\n"));
    await expectCorrupted(dir, /slot0\.jsonl line 2: empty line, and it is not the last line/);
  });

  it("falls back to the seed slot with the larger gen when head is unreadable", async () => {
    const dir = seedCopy();
    const m = join(dir, "moomem");
    const older = readFileSync(join(m, "slot0.jsonl"), "utf8").replace('{"v":1,"gen":4,"clock":2}', '{"v":1,"gen":3,"clock":1}').split("\n");
    writeFileSync(join(m, "slot1.jsonl"), [older[0], older[1], ""].join("\n"));
    writeFileSync(join(m, "head"), "\u0000");
    const { backend, state } = await open(dir);
    expect(state.entries).toHaveLength(2);
    await backend.close();
  });

  it("opens through MemoryStore, which rewrites it in the current format", async () => {
    const dir = seedCopy();
    const store = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    const stats = await store.stats();
    expect(stats.formatVersion).toBe(6);
    expect(stats.total).toBe(2);
    const listed = await store.list("user-42");
    expect(listed.map((e) => e.content)).toEqual(["我对花生过敏"]);
    await store.close();
    // Compacted at open (to the current format); the close, after reads only, has nothing to fold: no v1 snapshot is left.
    const slots = Object.keys(filesOf(dir)).filter((f) => f.includes("slot"));
    expect(slots).toHaveLength(1);
    expect(readFileSync(join(dir, slots[0]!), "utf8")).toMatch(/^\{"v":6,"gen":5,/);
  });
});

describe("FileBackend and purge", () => {
  function filesContaining(dir: string, secret: string): string[] {
    const needle = Buffer.from(secret);
    return Object.entries(filesOf(dir))
      .filter(([, b64]) => Buffer.from(b64, "base64").includes(needle))
      .map(([name]) => name);
  }

  it("leaves no trace of purged content in any file after the next compaction", async () => {
    const dir = freshDir();
    const secret = "my password is hunter2-SECRET";
    const backend = new FileBackend(dir);
    await backend.load();
    const original = entry("p1", 1, { content: secret });
    await backend.append([{ entries: [original, entry("p2", 2)] }]);
    await backend.compact({ embedder: EMBEDDER, count: 2, entries: [original, entry("p2", 2)] });
    const purged = entry("p1", 1, { content: "", status: "deleted", embedding: null, metadata: { purged: true } });
    await backend.append([{ entries: [entry("p3", 3)] }, { entries: [purged] }]);
    // Before the compaction the old snapshot still holds it (that is what "after the next compaction" means).
    expect(filesContaining(dir, secret)).toEqual(["moomem/slot0.jsonl"]);
    const state = [purged, entry("p2", 2), entry("p3", 3)];
    await backend.compact({ embedder: EMBEDDER, count: 3, entries: state });
    await backend.close();
    expect(filesContaining(dir, secret)).toEqual([]);
    const again = await open(dir);
    expect(again.state.entries.map(plain)).toEqual(state.map(plain));
    await again.backend.close();
  });

  it("through MemoryStore: forget with purge removes the text from every file once the store closes", async () => {
    const dir = freshDir();
    const secret = "my card number is 4111-SECRET-1111";
    const first = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    const summary = await first.add("user-1", secret);
    await first.add("user-1", "I like green tea");
    await first.close();
    expect(filesContaining(dir, "4111-SECRET-1111").length).toBeGreaterThan(0);
    const second = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    expect(await second.forget("user-1", { id: summary.facts[0]!.id }, { purge: true })).toBe(1);
    await second.close();
    expect(filesContaining(dir, "4111-SECRET-1111")).toEqual([]);
    const third = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    const tombstone = (await third.list("user-1")).find((e) => e.id === summary.facts[0]!.id);
    expect(tombstone?.status).toBe("deleted");
    expect(tombstone?.content).toBe("");
    await third.close();
  });
});
