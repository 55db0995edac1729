// The write queue over a backend several processes write (persistence/backend.ts, SharedWriting): seqs in blocks
// from the backend, planned again when a write needed more, and a write refused for a conflict caught up and retried.

import { describe, it, expect } from "vitest";
import { MAX_WRITE_ATTEMPTS, WriteQueue } from "../../src/store/write-queue.ts";
import { EntryState } from "../../src/state/entry-state.ts";
import { SEQ_BLOCK, SeqCounter, makeEntryId } from "../../src/state/ids.ts";
import { WriteConflict, type Batch, type PersistenceBackend } from "../../src/persistence/backend.ts";
import { isMoomemError } from "../../src/errors.ts";
import { entryRecord } from "../helpers/entry-record.ts";

/** A counter row, as the database keeps it: blocks handed out in order, beyond `after`. */
function counterRow(): { value: number; reserve: (count: number, after: number) => Promise<number>; release: (first: number, end: number) => Promise<void> } {
  const row = {
    value: 0,
    reserve: (count: number, after: number) => {
      row.value = Math.max(row.value, after) + count;
      return Promise.resolve(row.value - count + 1);
    },
    release: (first: number, end: number) => {
      if (row.value === end - 1) row.value = first - 1;
      return Promise.resolve();
    },
  };
  return row;
}

function backend(append: (batches: readonly Batch[]) => Promise<void>): PersistenceBackend {
  return {
    location: "test",
    load: () => Promise.reject(new Error("not used")),
    append,
    wantsCompaction: () => false,
    compact: () => Promise.resolve(),
    stats: () => ({ bytesOnDisk: 0, lastWriteAt: null }),
    close: () => Promise.resolve(),
  };
}

describe("SeqCounter with seqs from the backend", () => {
  it("hands out reserved blocks, reports an overrun, moves past imported ids and gives back the unused end", async () => {
    const row = counterRow();
    const seqs = new SeqCounter(1, row);
    await seqs.refill();
    expect([seqs.next(), seqs.next()]).toEqual([1, 2]);
    expect(row.value).toBe(SEQ_BLOCK);
    const start = seqs.position;
    for (let i = 0; i < SEQ_BLOCK; i++) seqs.next();
    expect(seqs.overran).toBe(true);
    await seqs.refill(seqs.needed(start));
    expect(seqs.overran).toBe(false);
    expect(seqs.next()).toBe(SEQ_BLOCK + 1);
    // An imported id naming a seq far beyond the block: the next block starts past it.
    seqs.passIds([{ id: makeEntryId(100_000) }]);
    await seqs.refill();
    expect(seqs.next()).toBe(100_001);
    await seqs.release();
    expect(row.value).toBe(100_001);
    // Without a source, the store numbers on its own, as before.
    const local = new SeqCounter(7);
    await local.refill(1000);
    expect([local.next(), local.overran]).toEqual([7, false]);
  });
});

describe("WriteQueue over a shared backend", () => {
  it("a write that needs more seqs than the block holds is planned again with enough: every stored seq was reserved", async () => {
    const row = counterRow();
    const seqs = new SeqCounter(1, row);
    const state = new EntryState(4);
    const written: Batch[] = [];
    const queue = new WriteQueue(
      state,
      backend((b) => (written.push(...b), Promise.resolve())),
      () => {},
      { seqs, catchUp: () => Promise.resolve() },
    );
    let runs = 0;
    const n = SEQ_BLOCK + 50;
    await queue.write(async (change) => {
      runs++;
      for (let i = 0; i < n; i++) {
        const seq = seqs.next();
        change.insert(entryRecord({ id: makeEntryId(seq), userId: "ann", seq, content: `fact ${seq}` }));
      }
      return Promise.resolve();
    }, "ann");
    expect(runs).toBe(2);
    const stored = written.flatMap((b) => b.entries.map((e) => e.seq));
    expect(stored).toHaveLength(n);
    // The second plan used one block reserved for it, after the first block.
    expect(Math.min(...stored)).toBe(SEQ_BLOCK + 1);
    expect(Math.max(...stored)).toBeLessThanOrEqual(row.value);
  });

  it("a write refused for a conflict is caught up and planned again; after the last attempt the caller gets WRITE_CONFLICT and nothing stayed", async () => {
    const seqs = new SeqCounter(1, counterRow());
    const state = new EntryState(4);
    let refuse = 2;
    const caught: string[][] = [];
    const appended: Batch[] = [];
    const queue = new WriteQueue(
      state,
      backend((b) => {
        if (refuse-- > 0) return Promise.reject(new WriteConflict("test", ["ann"]));
        appended.push(...b);
        return Promise.resolve();
      }),
      () => {},
      {
        seqs,
        catchUp: (users) => {
          caught.push([...users]);
          return Promise.resolve();
        },
      },
    );
    let plans = 0;
    const op = async (change: Parameters<Parameters<typeof queue.write>[0]>[0]): Promise<string> => {
      plans++;
      const seq = seqs.next();
      change.insert(entryRecord({ id: makeEntryId(seq), userId: "ann", seq, content: "I live in Rome" }));
      return Promise.resolve("ok");
    };
    expect(await queue.write(op, "ann")).toBe("ok");
    expect(plans).toBe(3);
    expect(caught).toEqual([["ann"], ["ann"]]);
    expect(appended.flatMap((b) => b.entries)).toHaveLength(1);
    expect(state.entriesOf("ann")).toHaveLength(1);

    refuse = Infinity;
    plans = 0;
    const error = await queue.write(op, "ann").catch((e: unknown) => e);
    expect(isMoomemError(error, "WRITE_CONFLICT")).toBe(true);
    expect(error).not.toBeInstanceOf(WriteConflict);
    expect((error as Error).message).toContain(`${MAX_WRITE_ATTEMPTS} times`);
    expect(plans).toBe(MAX_WRITE_ATTEMPTS);
    expect(state.entriesOf("ann")).toHaveLength(1);
  }, 60_000);

  it("a conflict on one user plans again only that user's staged writes (and those planned on them); another user's staged write is kept and lands as planned", async () => {
    const seqs = new SeqCounter(1, counterRow());
    const state = new EntryState(4);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let appends = 0;
    const stored: string[] = [];
    const caught: string[][] = [];
    const queue = new WriteQueue(
      state,
      backend(async (b) => {
        if (appends++ === 0) {
          // The first group (ann's first write) waits until the others are staged, then is refused: ann moved.
          await gate;
          throw new WriteConflict("test", ["ann"]);
        }
        stored.push(...b.flatMap((x) => x.entries.map((e) => e.content)));
      }),
      () => {},
      { seqs, catchUp: (users) => (caught.push([...users]), Promise.resolve()) },
    );
    const plans = new Map<string, number>();
    const op =
      (userId: string, content: string) =>
      (change: Parameters<Parameters<typeof queue.write>[0]>[0]): Promise<string> => {
        plans.set(content, (plans.get(content) ?? 0) + 1);
        const seq = seqs.next();
        change.insert(entryRecord({ id: makeEntryId(seq), userId, seq, content }));
        return Promise.resolve(content);
      };
    const first = queue.write(op("ann", "ann 1"), "ann");
    await new Promise((r) => setTimeout(r, 0));
    const others = [queue.write(op("bob", "bob 1"), "bob"), queue.write(op("ann", "ann 2"), "ann"), queue.write(op("bob", "bob 2"), "bob")];
    await new Promise((r) => setTimeout(r, 0));
    expect([...plans.values()]).toEqual([1, 1, 1, 1]); // all four planned and staged while the first group is out
    release();
    expect(await Promise.all([first, ...others])).toEqual(["ann 1", "bob 1", "ann 2", "bob 2"]);
    // ann's two writes were planned again (the second was planned on the first); bob's were not.
    expect(Object.fromEntries(plans)).toEqual({ "ann 1": 2, "bob 1": 1, "ann 2": 2, "bob 2": 1 });
    expect(caught).toEqual([["ann"], ["ann"]]);
    expect(stored.sort()).toEqual(["ann 1", "ann 2", "bob 1", "bob 2"]);
    expect(
      state
        .entriesOf("ann")
        .map((e) => e.content)
        .sort(),
    ).toEqual(["ann 1", "ann 2"]);
    expect(state.entriesOf("bob").map((e) => e.content)).toEqual(["bob 1", "bob 2"]);
  });
});
