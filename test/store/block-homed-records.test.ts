// Records read from a format-6 section keep their vector in the section's block until their user is built
// (persistence/homed-record.ts); then each moves to the vector index or to its own copy. Everything reads the
// same as records decoded with their own vectors: the vectors bit for bit, copies, counts, the built indexes.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { blockOf, isLean, vectorLayout } from "../../src/state/lean-record.ts";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import { entryRecord } from "../helpers/entry-record.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { decodePlain, decodeWithBlock } from "../helpers/section-decode.ts";

const DIM = 16;

/** Bit patterns, so that -0, 0 and NaN-free values compare exactly. */
function bits(vector: Float32Array | null): number[] | null {
  return vector === null ? null : [...new Uint32Array(vector.buffer, vector.byteOffset, vector.length)];
}

function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return vector.map((x) => x / norm);
}

/** Entries of one user with every kind of vector: sparse unit, sparse with -0, dense unit, not unit length, zero, none, other dimension. */
function entries(): EntryRecord[] {
  const random = seededRandom(1717);
  const out: EntryRecord[] = [];
  for (let seq = 1; seq <= 60; seq++) {
    const shape = seq % 8;
    let vector: Float32Array | null = new Float32Array(DIM);
    if (shape === 0) for (let i = 0; i < DIM; i += 4) vector[i] = random() - 0.5;
    else if (shape === 1) vector = unit(Float32Array.from({ length: DIM }, () => random() - 0.5));
    else if (shape === 2) for (let i = 0; i < DIM; i++) vector[i] = 3 * random() + 1;
    else if (shape === 3) vector = null;
    else if (shape === 4) vector = new Float32Array(DIM);
    else if (shape === 5) {
      for (let i = 1; i < DIM; i += 5) vector[i] = random() - 0.5;
      vector = unit(vector);
      vector[0] = -0;
    } else if (shape === 6) vector = unit(Float32Array.from({ length: DIM / 2 }, () => random()));
    else {
      for (let i = 2; i < DIM; i += 3) vector[i] = random();
      vector = unit(vector);
    }
    const status = seq % 7 === 0 ? "superseded" : seq % 11 === 0 ? "deleted" : seq % 13 === 0 ? "unstructured" : "active";
    out.push(
      entryRecord({
        id: `e${seq}`,
        userId: "ann",
        seq,
        content: `fact ${seq} about coffee and ${seq % 3 === 0 ? "Berlin" : "tea"}`,
        status,
        embedding: vector,
        ...(status === "superseded" ? { supersededBy: "e1" } : {}),
        ...(seq % 5 === 0 ? { key: `slot-${seq % 4}` } : {}),
      }),
    );
  }
  return out;
}

function loaded(records: readonly EntryRecord[]): EntryState {
  const state = new EntryState(DIM);
  for (const record of records) state.load(record);
  return state;
}

describe("records read from a format-6 section", () => {
  it("read their vector from the block bit for bit, a new copy each time, and spread, clone and stringify as records with their own", () => {
    const source = entries();
    const read = decodeWithBlock(source);
    read.forEach((record, i) => {
      const original = source[i]!;
      expect(bits(record.embedding)).toEqual(bits(original.embedding));
      // Every vector of the store's dimension stays in the block; the one of another dimension is decoded as before.
      expect(blockOf(record) !== undefined).toBe(original.embedding !== null && original.embedding.length === DIM);
      if (blockOf(record) !== undefined) expect(record.embedding).not.toBe(record.embedding);
      expect(Object.keys(record)).toEqual(Object.keys(decodePlain([original])[0]!));
      expect(JSON.stringify(record)).toBe(JSON.stringify(decodePlain([original])[0]!));
      expect(bits({ ...record }.embedding)).toEqual(bits(original.embedding));
      expect(bits(structuredClone(record).embedding)).toEqual(bits(original.embedding));
      if (blockOf(record) !== undefined) expect(() => ((record as { embedding: Float32Array | null }).embedding = null)).toThrow(TypeError);
    });
  });

  for (const compact of [true, false]) {
    it(`leave the block when their user is built, with the indexes, vectors and counts of records read with their own (compact ${compact})`, () => {
      vectorLayout.compact = compact;
      try {
        const source = entries();
        const viaBlock = loaded(decodeWithBlock(source));
        const plain = loaded(decodePlain(source));
        // Before the build: counted alike (a block's vector counts as the record's own).
        expect(viaBlock.loadedCounts()).toEqual(plain.loadedCounts());
        const a = viaBlock.shard("ann")!;
        const b = plain.shard("ann")!;
        expect(viaBlock.loadedCounts()).toEqual(plain.loadedCounts());
        // Built with the block's vectors read where they are (added on the first change): the same searches and scores.
        const early = unit(Float32Array.from({ length: DIM }, (_, i) => (i % 5) - 2));
        expect(a.vectors.deferring).toBe(true);
        expect(a.vectors.search(early, 100)).toEqual(b.vectors.search(early, 100));
        for (const original of source) expect(a.vectors.score(original.seq, early)).toBe(b.vectors.score(original.seq, early));
        // The same change and undo on both (an undo puts the entry back last in the dedup index's order).
        for (const state of [viaBlock, plain]) {
          const touch = new Change(state, "ann");
          touch.put({ ...state.get("e1")!, status: "deleted" });
          touch.undo();
        }
        expect(a.vectors.deferring).toBe(false);
        expect(viaBlock.loadedCounts()).toEqual(plain.loadedCounts());
        for (const original of source) {
          const record = viaBlock.get(original.id)!;
          expect(blockOf(record)).toBeUndefined();
          expect(bits(record.embedding)).toEqual(bits(original.embedding));
          expect(bits(a.vectors.vector(original.seq) ?? null)).toEqual(bits(b.vectors.vector(original.seq) ?? null));
          expect(isLean(plain.get(original.id)!) && record.embedding !== null ? isLean(record) : true).toBe(true);
        }
        expect(a.vectors.size).toBe(b.vectors.size);
        expect([...a.dedup]).toEqual([...b.dedup]);
        expect([...a.keys]).toEqual([...b.keys]);
        const query = unit(Float32Array.from({ length: DIM }, (_, i) => (i % 3) + 1));
        expect(a.vectors.search(query, 10)).toEqual(b.vectors.search(query, 10));
        // A change and its undo, then unloading: counted out exactly as counted in.
        const record = viaBlock.get("e9")!;
        const change = new Change(viaBlock, "ann");
        change.put({ ...record, status: "deleted" });
        change.undo();
        expect(bits(viaBlock.get("e9")!.embedding)).toEqual(bits(source[8]!.embedding));
        viaBlock.unloadUser("ann");
        expect(viaBlock.loadedCounts()).toEqual({ total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, bytes: 0 });
      } finally {
        vectorLayout.compact = true;
      }
    });
  }

  it("loaded into a user already built, leave the block at once", () => {
    const source = entries();
    const state = loaded(decodeWithBlock(source.slice(0, 30)));
    state.shard("ann");
    for (const record of decodeWithBlock(source.slice(30))) state.load(record);
    for (const original of source) {
      expect(blockOf(state.get(original.id)!)).toBeUndefined();
      expect(bits(state.get(original.id)!.embedding)).toEqual(bits(original.embedding));
    }
  });
});
