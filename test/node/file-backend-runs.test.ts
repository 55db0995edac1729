// FileBackend on real files: an operation written as a run of "c" lines is replayed whole or cut off whole, at every byte.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Batch } from "../../src/persistence/backend.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { MoomemError } from "../../src/errors.ts";
import { encodeJournalRecord } from "../../src/persistence/file/journal-format.ts";
import { entry, filesOf, makeTempDir, plain, removeDir, stateAfter } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("runs");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** One operation: its batches, every one but the last chained to the next. */
function operation(...batches: Batch[]): Batch[] {
  return batches.map((b, i) => (i < batches.length - 1 ? { ...b, continues: true } : { entries: b.entries }));
}

/** Writes each group with one append and closes without compacting (close never compacts a FileBackend). */
async function build(dir: string, groups: Batch[][]): Promise<void> {
  const backend = new FileBackend(dir);
  await backend.load();
  for (const group of groups) await backend.append(group);
  await backend.close();
}

/** Opens and closes as MemoryStore would (a writable open is accepted, which is when a torn tail is cut). */
async function load(dir: string, readOnly = false): Promise<Awaited<ReturnType<FileBackend["load"]>>> {
  const backend = new FileBackend(dir, { readOnly });
  try {
    const state = await backend.load();
    await backend.accept();
    return state;
  } finally {
    await backend.close();
  }
}

function lineEnds(bytes: Uint8Array, from: number): number[] {
  const ends: number[] = [];
  for (let i = from; i < bytes.length; i++) if (bytes[i] === 10) ends.push(i + 1);
  return ends;
}

const EARLIER: Batch[][] = [[{ entries: [entry("e1", 1)] }], [{ entries: [entry("e2", 2), entry("e1", 1, { status: "deleted", updatedAt: 9 })] }]];

describe("FileBackend: an operation of several lines", () => {
  it("writes the flag on every line of a run but its last", async () => {
    const dir = freshDir();
    await build(dir, [
      [
        { entries: [entry("s1", 1)] },
        ...operation({ entries: [entry("r1", 2)] }, { entries: [entry("r2", 3)] }, { entries: [entry("r3", 4)] }),
        { entries: [entry("s2", 5)] },
      ],
    ]);
    const lines = readFileSync(join(dir, "moomem", "journal.0.jsonl"), "utf8")
      .split("\n")
      .slice(1, -1);
    expect(lines.map((l) => l.includes('"c":1,'))).toEqual([false, true, true, false, false]);
    const state = await load(dir);
    expect(state.entries.map((e) => e.id)).toEqual(["s1", "r1", "r2", "r3", "s2"]);
    expect(state.truncatedRecovered).toBe(0);
  });

  it("opens with exactly the state before the last operation, a 3-line run, for a cut at every byte of it", async () => {
    const dir = freshDir();
    // Small entries keep the lines short: every byte offset is an open.
    const small = { embedding: null, metadata: {} };
    const run = operation(
      { entries: [entry("r1", 3, small)] },
      { entries: [entry("e2", 2, { ...small, content: "changed by the run" })] },
      { entries: [entry("r2", 4, small)] },
    );
    await build(dir, [...EARLIER, run]);
    const path = join(dir, "moomem", "journal.0.jsonl");
    const whole = readFileSync(path);
    const ends = lineEnds(whole, 0);
    // Header, two earlier records, then the run's three lines.
    expect(ends).toHaveLength(6);
    const runStart = ends[2]!;
    const before = stateAfter(EARLIER.flat()).map(plain);
    expect((await load(dir)).entries.map(plain)).toEqual(stateAfter([...EARLIER.flat(), ...run]).map(plain));

    for (let cut = runStart; cut < whole.length; cut++) {
      writeFileSync(path, whole.subarray(0, cut));
      const boundary = ends.includes(cut);
      // A read-only open sees the same and cuts nothing.
      const ro = await load(dir, true);
      expect(ro.entries.map(plain), `read-only, cut at ${cut}${boundary ? " (a line boundary)" : ""}`).toEqual(before);
      expect(ro.truncatedRecovered, `read-only, cut at ${cut}`).toBe(cut === runStart ? 0 : 1);
      expect(readFileSync(path).length).toBe(cut);
      // A writable open (which takes the lock and syncs, so it costs more) at every line boundary and every third byte.
      if (!boundary && cut % 3 !== 0) continue;
      const state = await load(dir);
      expect(state.entries.map(plain), `cut at ${cut}${boundary ? " (a line boundary)" : ""}`).toEqual(before);
      expect(state.truncatedRecovered, `cut at ${cut}`).toBe(cut === runStart ? 0 : 1);
      expect(readFileSync(path).length, `cut at ${cut}`).toBe(runStart);
    }

    // After the cut, new records continue the numbering and the journal reopens cleanly.
    const backend = new FileBackend(dir);
    await backend.load();
    const again = operation({ entries: [entry("n1", 7)] }, { entries: [entry("n2", 8)] });
    await backend.append(again);
    await backend.close();
    const reopened = await load(dir);
    expect(reopened.truncatedRecovered).toBe(0);
    expect(reopened.entries.map(plain)).toEqual(stateAfter([...EARLIER.flat(), ...again]).map(plain));
  });

  it("keeps exactly the finished operations of a group cut anywhere", async () => {
    const dir = freshDir();
    const ops: Batch[][] = [
      operation({ entries: [entry("a", 3)] }),
      operation({ entries: [entry("b1", 4)] }, { entries: [entry("b2", 5)] }, { entries: [entry("b3", 6)] }),
      operation({ entries: [entry("c", 7)] }),
      operation({ entries: [entry("d1", 8)] }, { entries: [entry("d2", 9)] }),
    ];
    await build(dir, [...EARLIER, ops.flat()]);
    const path = join(dir, "moomem", "journal.0.jsonl");
    const whole = readFileSync(path);
    const ends = lineEnds(whole, 0);
    const groupStart = ends[2]!;
    // Where each operation's last line ends.
    const opEnds: number[] = [];
    let line = 3;
    for (const op of ops) {
      line += op.length;
      opEnds.push(ends[line - 1]!);
    }
    expect(opEnds.at(-1)).toBe(whole.length);
    // Every line boundary and the bytes next to it, plus a spread of offsets inside the lines.
    const cuts = new Set<number>();
    for (const end of ends.filter((e) => e >= groupStart)) for (const d of [-1, 0, 1]) cuts.add(end + d);
    for (let cut = groupStart; cut < whole.length; cut += 23) cuts.add(cut);
    for (const cut of [...cuts].filter((c) => c >= groupStart && c <= whole.length).sort((a, b) => a - b)) {
      writeFileSync(path, whole.subarray(0, cut));
      const kept = ops.filter((_, i) => opEnds[i]! <= cut);
      const goodEnd = kept.length === 0 ? groupStart : opEnds[kept.length - 1]!;
      const state = await load(dir);
      expect(
        state.entries.map((e) => e.id),
        `cut at ${cut}`,
      ).toEqual(stateAfter([...EARLIER.flat(), ...kept.flat()]).map((e) => e.id));
      expect(state.truncatedRecovered, `cut at ${cut}`).toBe(cut === goodEnd ? 0 : 1);
      expect(readFileSync(path).length).toBe(goodEnd);
    }
  });

  it("refuses, changing no file, a damaged run line that a later durable line vouches for", async () => {
    const dir = freshDir();
    const run = operation({ entries: [entry("r1", 3)] }, { entries: [entry("r2", 4)] }, { entries: [entry("r3", 5)] });
    // The run is synced with its group; the record after it says so (s = 5).
    await build(dir, [...EARLIER, run, [{ entries: [entry("z", 6)] }]]);
    const path = join(dir, "moomem", "journal.0.jsonl");
    const bytes = readFileSync(path);
    const ends = lineEnds(bytes, 0);
    bytes[ends[3]! + 15] = bytes[ends[3]! + 15]! ^ 0x01; // inside line 5, the run's middle line
    writeFileSync(path, bytes);
    const before = filesOf(dir);
    const backend = new FileBackend(dir);
    const error = await backend.load().then(
      () => null,
      (e: unknown) => e,
    );
    await backend.close();
    expect(error).toBeInstanceOf(MoomemError);
    expect((error as MoomemError).code).toBe("STORE_CORRUPTED");
    expect((error as MoomemError).message).toMatch(
      /journal\.0\.jsonl line 5: .*operation that began on line 4 is incomplete; line 7 was written after record 3 had been made durable/,
    );
    expect(filesOf(dir)).toEqual(before);
  });

  it("cuts an unfinished run followed by a line of another write that vouches for nothing, and refuses one that does", async () => {
    const dir = freshDir();
    const run = operation({ entries: [entry("r1", 3)] }, { entries: [entry("r2", 4)] }, { entries: [entry("r3", 5)] });
    await build(dir, [...EARLIER, run]);
    const path = join(dir, "moomem", "journal.0.jsonl");
    const whole = readFileSync(path);
    const ends = lineEnds(whole, 0);
    // Lines 4 and 5 (records 3, 4) say the operation goes on; record 5 comes from another append.
    const unfinished = whole.subarray(0, ends[4]!);
    for (const [synced, corrupt] of [
      [2, false],
      [4, true],
    ] as const) {
      const stranger = encodeJournalRecord(0, { n: 5, synced, time: 1_800_000_000_000, entries: [entry("q", 9)] });
      writeFileSync(path, Buffer.concat([unfinished, stranger]));
      if (corrupt) {
        const before = filesOf(dir);
        await expect(load(dir)).rejects.toMatchObject({
          code: "STORE_CORRUPTED",
          message: expect.stringMatching(/journal\.0\.jsonl line 6: record 5 was written by another write/) as unknown,
        });
        expect(filesOf(dir)).toEqual(before);
      } else {
        const state = await load(dir);
        expect(state.entries.map(plain)).toEqual(stateAfter(EARLIER.flat()).map(plain));
        expect(state.truncatedRecovered).toBe(1);
        expect(readFileSync(path).length).toBe(ends[2]!);
      }
    }
  });

  it("refuses an append whose last batch says it continues, and writes nothing", async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await backend.load();
    await backend.accept();
    const path = join(dir, "moomem", "journal.0.jsonl");
    const size = readFileSync(path).length;
    await expect(backend.append([{ entries: [entry("a", 1)] }, { entries: [entry("b", 2)], continues: true }])).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(backend.append([{ entries: [entry("a", 1)], continues: "yes" as unknown as boolean }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(readFileSync(path).length).toBe(size);
    await backend.append([{ entries: [entry("a", 1)], continues: false }]);
    await backend.close();
    expect((await load(dir)).entries.map((e) => e.id)).toEqual(["a"]);
  });
});
