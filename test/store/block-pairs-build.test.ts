// A user built from a format-6 section adds the vectors that are unit length as stored straight from the block's pairs
// (VectorIndex.addSparseRows: whole inverted blocks at once) and the others the general way. Whatever goes which way,
// the built user answers as one built from records holding their own vectors: every vector bit for bit, every search
// and its score moments, and the same after changes that dissolve blocks.

import { describe, it, expect, vi } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import { VectorIndex } from "../../src/indexes/vector-index.ts";
import { dot, normalize, sparseSelfDot, storedSelfDot, unitAsStored } from "../../src/embedding/vector-math.ts";
import { entryRecord } from "../helpers/entry-record.ts";
import { normalizeForDedup } from "../../src/text/tokenizer.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { decodePlain, decodeWithBlock } from "../helpers/section-decode.ts";

function bits(vector: Float32Array | null | undefined): number[] | null {
  return vector == null ? null : [...new Uint32Array(vector.buffer, vector.byteOffset, vector.length)];
}

/** A vector of `dim` with about `set` random components, made unit length in float32 as an embedder does. */
function sparseUnit(random: () => number, dim: number, set: number): Float32Array {
  const v = new Float32Array(dim);
  for (let k = 0; k < set; k++) v[Math.floor(random() * dim)] = random() - 0.5;
  return normalize(v);
}

/** Entries of one user, most with sparse unit vectors (the fast path), the rest of every other shape. */
function entries(seed: number, count: number, dim: number): EntryRecord[] {
  const random = seededRandom(seed);
  const out: EntryRecord[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const shape = random();
    let vector: Float32Array | null;
    if (shape < 0.8) vector = sparseUnit(random, dim, 1 + Math.floor(random() * (dim / 3)));
    else if (shape < 0.84)
      vector = sparseUnit(random, dim, 3).map((x) => 2 * x); // sparse, not unit length
    else if (shape < 0.87) {
      vector = sparseUnit(random, dim, 3);
      vector[vector.findIndex((x) => x === 0)] = -0; // kept as +0 by a sparse layout: not held as stored
    } else if (shape < 0.9)
      vector = normalize(Float32Array.from({ length: dim }, () => random() - 0.5)); // dense
    else if (shape < 0.93) {
      // Stored sparse (under two thirds set) yet more than half set: the index keeps it dense.
      vector = new Float32Array(dim);
      for (let i = 0; i < Math.floor((dim * 3) / 5); i++) vector[i] = random() + 0.1;
      vector = normalize(vector);
    } else if (shape < 0.95) vector = new Float32Array(dim);
    else if (shape < 0.97) vector = null;
    else vector = sparseUnit(random, dim + 2, 3); // another dimension: decoded with its own copy
    const status = random() < 0.08 ? "superseded" : random() < 0.05 ? "deleted" : "active";
    out.push(
      entryRecord({
        id: `e${seq}`,
        userId: "ann",
        seq,
        // Some texts repeat (in other case too): dedup forms held by several entries, the first the original.
        content: seq > 10 && seq % 17 === 0 ? `Fact ${seq - 10} COFFEE ${(seq - 10) % 7}` : `fact ${seq} coffee ${seq % 7}`,
        status,
        embedding: vector,
        ...(status === "superseded" ? { supersededBy: "e1" } : {}),
      }),
    );
  }
  return out;
}

function loaded(dim: number, records: readonly EntryRecord[]): EntryState {
  const state = new EntryState(dim);
  for (const record of records) state.load(record);
  return state;
}

function sameAnswers(a: EntryState, b: EntryState, source: readonly EntryRecord[], dim: number, random: () => number): void {
  const x = a.shard("ann")!;
  const y = b.shard("ann")!;
  expect(x.vectors.size).toBe(y.vectors.size);
  const queries = Array.from({ length: 6 }, (_, q) =>
    q % 2 === 0 ? sparseUnit(random, dim, 4) : normalize(Float32Array.from({ length: dim }, () => random() - 0.5)),
  );
  for (const original of source) {
    const record = a.get(original.id);
    expect(record === undefined).toBe(b.get(original.id) === undefined);
    if (record === undefined) continue;
    expect(bits(record.embedding)).toEqual(bits(b.get(original.id)!.embedding));
    // Deferred vectors are scored where they are stored: to the bit what the index gives once it holds them.
    for (const query of queries) expect(x.vectors.score(original.seq, query)).toBe(y.vectors.score(original.seq, query));
    if (!x.vectors.deferring) expect(bits(x.vectors.vector(original.seq))).toEqual(bits(y.vectors.vector(original.seq)));
  }
  // The dedup index (filled when first read, for a user read from a section) and the slots.
  expect([...x.dedup]).toEqual([...y.dedup]);
  for (const original of source.slice(0, 60)) {
    const norm = normalizeForDedup(original.content);
    expect(x.dedup.get(norm)).toEqual(y.dedup.get(norm));
  }
  for (const query of queries) {
    const ma = { count: 0, sum: 0, sumSquares: 0 };
    const mb = { count: 0, sum: 0, sumSquares: 0 };
    expect(x.vectors.search(query, 50, ma)).toEqual(y.vectors.search(query, 50, mb));
    expect(ma).toEqual(mb);
  }
}

describe("a user built from a section's block pairs", () => {
  for (const [seed, count, dim] of [
    [1, 1300, 16],
    [2, 2100, 18],
    [3, 900, 7],
  ] as const) {
    it(`answers as records holding their own vectors, before and after changes (seed ${seed}, ${count} entries, dim ${dim})`, () => {
      const source = entries(seed, count, dim);
      const viaBlock = loaded(dim, decodeWithBlock(source));
      const plain = loaded(dim, decodePlain(source));
      const random = seededRandom(seed + 50);
      // Built, with the block's vectors read where they are: the same answers.
      expect(viaBlock.shard("ann")!.vectors.deferring).toBe(true);
      sameAnswers(viaBlock, plain, source, dim, random);
      // A few more reads add them to the index, by the fast path, in batches large enough to make whole blocks.
      const spy = vi.spyOn(VectorIndex.prototype, "addSparseRows");
      try {
        for (let reads = 0; reads < 10 && viaBlock.shard("ann")!.vectors.deferring; reads++);
        expect(viaBlock.shard("ann")!.vectors.deferring).toBe(false);
        expect(spy).toHaveBeenCalled();
        expect(Math.max(...spy.mock.calls.map((call) => call[1]))).toBeGreaterThan(512);
      } finally {
        spy.mockRestore();
      }
      sameAnswers(viaBlock, plain, source, dim, random);
      // Forget most live entries (blocks dissolve back into rows), then add new ones: still the same answers.
      for (const state of [viaBlock, plain]) {
        const change = new Change(state, "ann");
        for (const original of source) {
          const record = state.get(original.id)!;
          if (record.status === "active" && original.seq % 3 !== 0) change.put({ ...record, status: "deleted" });
        }
      }
      sameAnswers(viaBlock, plain, source, dim, random);
      // (A write refuses a vector of another dimension: those come without one.)
      const more = entries(seed + 7, 700, dim).map((r) => ({
        ...r,
        id: `n${r.seq}`,
        seq: r.seq + count,
        embedding: r.embedding?.length === dim ? r.embedding : null,
      }));
      for (const state of [viaBlock, plain]) {
        const change = new Change(state, "ann");
        for (const record of more) change.insert(record);
      }
      sameAnswers(viaBlock, plain, [...source, ...more], dim, random);
    });
  }
});

describe("a user whose first change meets its vectors still in the block", () => {
  it("adds them before the change, and answers as records holding their own vectors (forget, undo, new entries)", () => {
    const dim = 16;
    const source = entries(11, 1400, dim);
    const viaBlock = loaded(dim, decodeWithBlock(source));
    const plain = loaded(dim, decodePlain(source));
    const random = seededRandom(61);
    expect(viaBlock.shard("ann")!.vectors.deferring).toBe(true);
    for (const state of [viaBlock, plain]) {
      const change = new Change(state, "ann");
      const record = state.get("e5")!;
      change.put({ ...record, status: "deleted" });
      if (state === viaBlock) expect(state.shard("ann")!.vectors.deferring).toBe(false);
      change.undo();
    }
    sameAnswers(viaBlock, plain, source, dim, random);
    // Unloading a user whose vectors are deferred, then loading it again, answers the same too.
    const again = loaded(dim, decodeWithBlock(source));
    again.shard("ann");
    again.unloadUser("ann");
    expect(again.isLoaded("ann")).toBe(false);
  });
});

describe("unitAsStored, sparseSelfDot and storedSelfDot", () => {
  it("say true exactly when normalize leaves a well-formed sparse vector as it is, and dot's sum to the bit (seeded vectors of every kind)", () => {
    const random = seededRandom(99);
    let unitSeen = 0;
    for (let run = 0; run < 3000; run++) {
      const dim = 1 + Math.floor(random() * 40);
      const v = new Float32Array(dim);
      const set = Math.floor(random() * (dim + 1));
      for (let k = 0; k < set; k++) v[Math.floor(random() * dim)] = (random() - 0.5) * 10 ** Math.floor(random() * 6 - 3);
      const kind = random();
      if (kind < 0.6) normalize(v);
      else if (kind < 0.65 && dim > 1) v[0] = -0;
      else if (kind < 0.7) v[Math.floor(random() * dim)] = 1;
      const components: number[] = [];
      const values: number[] = [];
      v.forEach((x, i) => {
        if (x !== 0 || Object.is(x, -0)) {
          components.push(i);
          values.push(x);
        }
      });
      const copy = normalize(Float32Array.from(v));
      const expected = values.length > 0 && !values.some((x) => x === 0) && bits(copy)!.every((b, i) => b === bits(v)![i]);
      // Placed at offsets, as in a block holding other vectors first.
      const c = new Uint16Array([7, ...components]);
      const x = new Float32Array([0.5, 0.25, ...values]);
      expect(unitAsStored(c, 1, x, 2, components.length, dim)).toBe(expected);
      if (!values.some((y) => y === 0)) expect(sparseSelfDot(c, 1, x, 2, components.length, dim)).toBe(dot(v, v));
      // Stored pairs may hold −0; a dense vector is stored whole.
      expect(storedSelfDot(c, 1, x, 2, components.length, dim)).toBe(dot(v, v));
      expect(storedSelfDot(null, 0, Float32Array.from([9, ...v]), 1, dim, dim)).toBe(dot(v, v));
      if (expected) unitSeen++;
    }
    expect(unitSeen).toBeGreaterThan(1000);
  });

  it("say false for pairs out of order, repeated or past the dimension", () => {
    const v = normalize(new Float32Array([0, 3, 0, 4]));
    expect(unitAsStored(new Uint8Array([1, 3]), 0, new Float32Array([v[1]!, v[3]!]), 0, 2, 4)).toBe(true);
    expect(unitAsStored(new Uint8Array([3, 1]), 0, new Float32Array([v[3]!, v[1]!]), 0, 2, 4)).toBe(false);
    expect(unitAsStored(new Uint8Array([1, 1]), 0, new Float32Array([v[1]!, v[3]!]), 0, 2, 4)).toBe(false);
    expect(unitAsStored(new Uint8Array([1, 4]), 0, new Float32Array([v[1]!, v[3]!]), 0, 2, 4)).toBe(false);
  });
});
