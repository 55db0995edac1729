// Each vector held once in memory (lean records reading the vector index's copy, sparse rows for mostly-zero
// vectors: docs/design.md, "Memory per loaded entry") answers exactly as the layout of before, where every
// record kept its own vector and the index a dense copy: recall scores and order, list, history, export bytes.

import { describe, it, expect } from "vitest";
import { MemoryStore, HashingEmbedder } from "../../src/index.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { isLean, vectorLayout } from "../../src/state/lean-record.ts";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import { entryRecord } from "../helpers/entry-record.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { T0, comparable, comparableExport, randomOp, type Op } from "../helpers/random-ops.ts";

async function exported(mem: MemoryStore): Promise<unknown> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  return comparableExport(lines);
}

/** Opens with the layout of before (`compact` false) or the current one. */
async function open(compact: boolean, backend: UserLoadingMemoryBackend, options: Parameters<typeof MemoryStore.open>[1]): Promise<MemoryStore> {
  vectorLayout.compact = compact;
  try {
    return await MemoryStore.open("layout", { backend, ...options });
  } finally {
    vectorLayout.compact = true;
  }
}

/** A purge of one of the user's entries (or of them all): the vector goes with the content. */
function purgeOp(random: () => number): { name: string; run: Op } {
  const user = ["ann", "bob", "cy", "dee", "eve"][Math.floor(random() * 5)]!;
  const k = Math.floor(random() * 8);
  const all = random() < 0.2;
  return {
    name: `purge ${user}`,
    run: async (mem) => {
      try {
        if (all) return { ok: await mem.forget(user, { all: true }, { purge: true }) };
        const entries = await mem.list(user, k % 2 === 0 ? { status: "superseded" } : undefined);
        if (entries.length === 0) return { ok: null };
        return { ok: comparable(await mem.forget(user, { id: entries[k % entries.length]!.id }, { purge: true })) };
      } catch (error) {
        return { error: (error as { code?: string }).code ?? String(error) };
      }
    },
  };
}

describe("vectors held once", () => {
  it("answer as the layout of before over random adds, supersedes, forgets, purges, restores, reembeds and unloads (1 user loaded)", async () => {
    for (let run = 0; run < 8; run++) {
      const random = seededRandom(9100 + run);
      let now = T0;
      let purged = 0;
      const clock = { now: () => now };
      const oldBackend = new UserLoadingMemoryBackend();
      const newBackend = new UserLoadingMemoryBackend();
      let embedder = new HashingEmbedder();
      // Both under the same tiny bound, so users are unloaded and loaded again as often in both: the layout is
      // the only difference (reembed-bounded.test.ts compares a bound store with an unbound one).
      let before = await open(false, oldBackend, { clock, embedder, maxLoadedUsers: 1 });
      let after = await open(true, newBackend, { clock, embedder, maxLoadedUsers: 1 });
      for (let step = 0; step < 90; step++) {
        now += 1000;
        if (step === 45) {
          // Reopen with another embedder: every vector is made again (reembed), then the calls go on.
          await before.close();
          await after.close();
          embedder = new HashingEmbedder({ dim: 64 + 64 * (run % 3) });
          before = await open(false, oldBackend, { clock, embedder, reembed: true, maxLoadedUsers: 1 });
          after = await open(true, newBackend, { clock, embedder, reembed: true, maxLoadedUsers: 1 });
        }
        const op = random() < 0.1 ? purgeOp(random) : randomOp(random);
        const expected = await op.run(before);
        expect(await op.run(after), `run ${run} step ${step}: ${op.name}`).toEqual(expected);
        if (op.name.startsWith("purge")) purged += (expected as { ok?: unknown }).ok === undefined ? 0 : 1;
      }
      expect(await exported(after)).toEqual(await exported(before));
      expect(purged, "purges that went through").toBeGreaterThan(0);
      await before.close();
      await after.close();
    }
  });
});

describe("lean records", () => {
  const unit = (...values: number[]): Float32Array => {
    const v = new Float32Array(8);
    values.forEach((x, i) => (v[i] = x));
    return v;
  };

  it("read the index's vector while live, and keep it after leaving the index (supersede, undo, remove)", () => {
    const state = new EntryState(8);
    const vector = unit(0.6, 0.8);
    state.insert(entryRecord({ id: "a", userId: "ann", seq: 1 }));
    state.shard("ann");
    const change = new Change(state, "ann");
    change.insert(entryRecord({ id: "b", userId: "ann", seq: 2, embedding: vector }));
    const lean = state.get("b")!;
    expect(isLean(lean)).toBe(true);
    expect(lean.embedding).toEqual(vector);
    expect(lean.embedding).not.toBe(lean.embedding); // a copy each time: changing it changes nothing of the store's
    expect({ ...lean }.embedding).toEqual(vector);
    expect(JSON.stringify(lean)).toBe(JSON.stringify({ ...lean }));
    expect(Object.keys(lean).sort()).toEqual(Object.keys(entryRecord({ id: "b", userId: "ann", seq: 2, embedding: vector })).sort());
    expect(structuredClone(lean)).toEqual({ ...entryRecord({ id: "b", userId: "ann", seq: 2 }), embedding: vector });
    expect(() => ((lean as { embedding: Float32Array | null }).embedding = null)).toThrow(TypeError);

    // Superseded: the index drops the vector; the lean record, still held here (as an undo log or an export would), keeps it.
    const supersede = new Change(state, "ann");
    supersede.put({ ...lean, status: "superseded", supersededBy: "a" });
    expect(state.shard("ann")!.vectors.has(2)).toBe(false);
    expect(lean.embedding).toEqual(vector);
    // Undone: the entry is live again, with its vector in the index and its record lean again.
    supersede.undo();
    expect(state.shard("ann")!.vectors.vector(2)).toEqual(vector);
    expect(isLean(state.get("b")!)).toBe(true);
    expect(state.get("b")!.embedding).toEqual(vector);
    const again = state.get("b")!;
    // Removed (an insert undone): the record keeps its vector.
    change.undo();
    expect(state.get("b")).toBeUndefined();
    expect(again.embedding).toEqual(vector);
  });

  it("are made only when the index holds the vector bit for bit (not for a vector that is not unit length, nor for one not live)", () => {
    const state = new EntryState(8);
    state.insert(entryRecord({ id: "a", userId: "ann", seq: 1, embedding: unit(3, 4) }));
    state.insert(entryRecord({ id: "b", userId: "ann", seq: 2, embedding: unit(1), status: "deleted" }));
    state.insert(entryRecord({ id: "c", userId: "ann", seq: 3, embedding: unit(0, 1) }));
    state.shard("ann");
    expect(isLean(state.get("a")!)).toBe(false);
    expect(state.get("a")!.embedding).toEqual(unit(3, 4));
    expect(isLean(state.get("b")!)).toBe(false);
    expect(isLean(state.get("c")!)).toBe(true);
    // Unloading drops the user's records; one still held reads the vector from the index it was made with.
    const held = state.get("c")!;
    state.unloadUser("ann");
    expect(held.embedding).toEqual(unit(0, 1));
  });
});
