// Tests of the per-shard exact vector index, including a property test against brute force.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { VectorIndex, vectorBytes } from "./vector-index.ts";
import { roundHalfUp } from "./score-sink.ts";
import { dot, dotAt } from "../embedding/vector-math.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";

function vec(...values: number[]): Float32Array {
  return new Float32Array(values);
}

function expectInvalidArgument(run: () => unknown, message?: RegExp): void {
  throwsWith(run, "INVALID_ARGUMENT", message);
}

/** Reference model: every stored vector scored with `dot`, filtered, sorted, cut. */
function bruteForce(stored: Map<number, Float32Array>, query: Float32Array, k: number): Array<{ doc: number; score: number }> {
  const all: Array<{ doc: number; score: number }> = [];
  for (const [doc, vector] of stored) {
    const score = dot(vector, query);
    if (score > 0) all.push({ doc, score });
  }
  all.sort((a, b) => b.score - a.score || b.doc - a.doc);
  return all.slice(0, k);
}

/**
 * Reference model of the index's old row-major layout: one row per vector, each scored with `dotAt`,
 * filtered, sorted (higher score, then larger doc first), cut.
 */
function rowMajorScan(stored: Map<number, Float32Array>, dim: number, query: Float32Array, k: number): Array<{ doc: number; score: number }> {
  const rows = new Float32Array(stored.size * dim);
  const docs: number[] = [];
  for (const [doc, vector] of stored) {
    rows.set(vector, docs.length * dim);
    docs.push(doc);
  }
  const all: Array<{ doc: number; score: number }> = [];
  for (let row = 0; row < docs.length; row++) {
    const score = dotAt(rows, row * dim, query, dim);
    if (score > 0) all.push({ doc: docs[row] as number, score });
  }
  all.sort((a, b) => b.score - a.score || b.doc - a.doc);
  return all.slice(0, k);
}

/** Small seeded generator (mulberry32): fast-check picks the seed, so a failure replays and shrinks on it. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("VectorIndex", () => {
  it("returns docs by descending cosine, dropping scores ≤ 0", () => {
    const index = new VectorIndex(2);
    index.add(1, vec(1, 0));
    index.add(2, vec(0.6, 0.8));
    index.add(3, vec(0, 1));
    index.add(4, vec(-1, 0));
    const hits = index.search(vec(1, 0), 10);
    expect(hits.map((h) => h.doc)).toEqual([1, 2]);
    expect(hits[0]?.score).toBe(1);
    expect(hits[1]?.score).toBeCloseTo(0.6, 6);
  });

  it("breaks ties by the larger (newer) doc", () => {
    const index = new VectorIndex(2);
    for (const doc of [5, 9, 7]) index.add(doc, vec(1, 0));
    expect(index.search(vec(1, 0), 10).map((h) => h.doc)).toEqual([9, 7, 5]);
    expect(index.search(vec(1, 0), 2).map((h) => h.doc)).toEqual([9, 7]);
  });

  it("returns at most k hits, and none for k = 0 or an empty index", () => {
    const index = new VectorIndex(3);
    expect(index.search(vec(1, 0, 0), 5)).toEqual([]);
    for (let doc = 0; doc < 10; doc++) index.add(doc, vec(1, doc / 10, 0));
    expect(index.search(vec(1, 0, 0), 3).length).toBe(3);
    expect(index.search(vec(1, 0, 0), 0)).toEqual([]);
    expect(index.search(vec(1, 0, 0), 1000).length).toBe(10);
  });

  it("tracks size and membership through adds and removes", () => {
    const index = new VectorIndex(2);
    index.add(10, vec(1, 0));
    index.add(20, vec(0, 1));
    index.add(30, vec(1, 1));
    expect(index.size).toBe(3);
    expect(index.remove(10)).toBe(true);
    expect(index.remove(10)).toBe(false);
    expect(index.has(10)).toBe(false);
    expect(index.has(30)).toBe(true);
    expect(index.size).toBe(2);
    // doc 30 moved into doc 10's slot: it must still carry its own vector.
    expect(index.search(vec(1, 0), 5)).toEqual([{ doc: 30, score: 1 }]);
    index.add(10, vec(0.5, 0));
    expect(index.search(vec(1, 0), 5).map((h) => h.doc)).toEqual([30, 10]);
  });

  it("grows past its initial capacity without losing vectors", () => {
    const index = new VectorIndex(4);
    for (let doc = 0; doc < 100; doc++) index.add(doc, vec(doc + 1, 1, 0, 0));
    expect(index.size).toBe(100);
    expect(index.search(vec(1, 0, 0, 0), 3).map((h) => h.doc)).toEqual([99, 98, 97]);
    expect(index.search(vec(0, 1, 0, 0), 100).length).toBe(100);
  });

  it("copies the added vector (the caller may reuse its array)", () => {
    const index = new VectorIndex(2);
    const v = vec(1, 0);
    index.add(1, v);
    v[0] = -1;
    expect(index.search(vec(1, 0), 1)).toEqual([{ doc: 1, score: 1 }]);
  });

  it("rejects bad arguments with INVALID_ARGUMENT", () => {
    expectInvalidArgument(() => new VectorIndex(0), /dim/);
    expectInvalidArgument(() => new VectorIndex(2.5), /dim/);
    const index = new VectorIndex(2);
    index.add(1, vec(1, 0));
    expectInvalidArgument(() => index.add(1, vec(0, 1)), /doc 1 is already indexed/);
    expectInvalidArgument(() => index.add(2, vec(1, 0, 0)), /length 3, expected 2/);
    expectInvalidArgument(() => index.add(2, vec(Number.NaN, 0)), /non-finite/);
    expectInvalidArgument(() => index.add(-1, vec(1, 0)), /doc/);
    expectInvalidArgument(() => index.add(1.5, vec(1, 0)), /doc/);
    expectInvalidArgument(() => index.add(3, [1, 0] as unknown as Float32Array), /Float32Array/);
    expectInvalidArgument(() => index.search(vec(1), 1), /query vector/);
    expectInvalidArgument(() => index.search(vec(1, 0), -1), /k must be/);
    expectInvalidArgument(() => index.search(vec(1, 0), 1.5), /k must be/);
    expect(index.size).toBe(1);
  });

  it("matches a brute-force reference after any sequence of adds and removes", () => {
    // Small integer components make exact ties (and the tie rule) common.
    const dim = 5;
    const component = fc.integer({ min: -2, max: 2 });
    const vector = fc.array(component, { minLength: dim, maxLength: dim });
    // Mostly zeros: takes the index's sparse-query path.
    const sparse = fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.constant(0), component), { minLength: dim, maxLength: dim });
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), doc: fc.integer({ min: 0, max: 12 }), vector }),
      fc.record({ kind: fc.constant("remove" as const), doc: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80, size: "medium" }), fc.oneof(vector, sparse), fc.integer({ min: 1, max: 45 }), (ops, query, k) => {
        const index = new VectorIndex(dim);
        const model = new Map<number, Float32Array>();
        for (const step of ops) {
          if (step.kind === "add") {
            if (model.has(step.doc)) continue;
            const v = new Float32Array(step.vector);
            index.add(step.doc, v);
            model.set(step.doc, v);
          } else {
            expect(index.remove(step.doc)).toBe(model.delete(step.doc));
          }
        }
        expect(index.size).toBe(model.size);
        for (const doc of model.keys()) expect(index.has(doc)).toBe(true);
        const q = new Float32Array(query);
        expect(index.search(q, k)).toEqual(bruteForce(model, q, k));
      }),
      { numRuns: 200 },
    );
  });

  it("score(doc) is the scan's score bit for bit, and search's moments are the sums over every doc (≤ 0 as 0)", () => {
    const dim = 11;
    const value = fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true });
    const unit = fc.array(fc.oneof(value, value, fc.constant(0)), { minLength: dim, maxLength: dim }).map((values) => {
      const v = new Float32Array(values);
      const n = Math.sqrt(dot(v, v));
      if (n > 0) for (let i = 0; i < dim; i++) v[i] = (v[i] as number) / n;
      return v;
    });
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), unit, (vectors, query) => {
        const index = new VectorIndex(dim);
        vectors.forEach((v, doc) => index.add(doc, v));
        // Removing moves vectors between slots: score() must follow them.
        for (let doc = 0; doc < vectors.length; doc += 4) index.remove(doc);
        const moments = { count: -1, sum: -1, sumSquares: -1 };
        const hits = index.search(query, vectors.length + 1, moments);
        let sum = 0;
        let sumSquares = 0;
        for (const hit of hits) {
          expect(index.score(hit.doc, query)).toBe(hit.score);
          sum += hit.score;
          sumSquares += hit.score * hit.score;
        }
        vectors.forEach((v, doc) => {
          if (!index.has(doc)) return expect(index.score(doc, query)).toBeUndefined();
          const s = index.score(doc, query)!;
          expect(s).toBe(dot(v, query));
        });
        expect(moments.count).toBe(index.size);
        // Fixed-point sums: within half a unit of 2^-26 per doc of the plain sums…
        const slack = (hits.length + 1) * 2 ** -26;
        expect(Math.abs(moments.sum - sum)).toBeLessThanOrEqual(slack);
        expect(Math.abs(moments.sumSquares - sumSquares)).toBeLessThanOrEqual(slack);
        // …and bit for bit the same whatever order the docs were added in (a reopened store rebuilds
        // its index in seq order, while removals had shuffled the live one's slots).
        const rebuilt = new VectorIndex(dim);
        for (let doc = vectors.length - 1; doc >= 0; doc--) if (index.has(doc)) rebuilt.add(doc, vectors[doc]!);
        const again = { count: -1, sum: -1, sumSquares: -1 };
        rebuilt.search(query, vectors.length + 1, again);
        expect(again).toEqual(moments);
      }),
      { numRuns: 100 },
    );
    expectInvalidArgument(() => {
      const index = new VectorIndex(2);
      index.add(1, vec(1, 0));
      index.score(1, vec(1));
    }, /query vector/);
  });

  it("matches brute force bit for bit on float vectors, dense and sparse, of a dim not divisible by 4", () => {
    const dim = 11;
    const value = fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true });
    const unit = fc.array(fc.oneof(value, value, fc.constant(0)), { minLength: dim, maxLength: dim }).map((values) => {
      const v = new Float32Array(values);
      const n = Math.sqrt(dot(v, v));
      if (n > 0) for (let i = 0; i < dim; i++) v[i] = (v[i] as number) / n;
      return v;
    });
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 50 }), unit, fc.boolean(), fc.integer({ min: 1, max: 20 }), (vectors, dense, sparse, k) => {
        // 5 of 11 non-zero makes the query sparse, with terms in three partial sums and in the tail.
        const kept = new Set([0, 1, 4, 8, 10]);
        const query = sparse ? dense.map((x, i) => (kept.has(i) ? x : 0)) : dense;
        const index = new VectorIndex(dim);
        const model = new Map<number, Float32Array>();
        vectors.forEach((v, doc) => {
          index.add(doc, v);
          model.set(doc, v);
        });
        for (let doc = 0; doc < vectors.length; doc += 3) {
          index.remove(doc);
          model.delete(doc);
        }
        expect(index.search(query, k)).toEqual(bruteForce(model, query, k));
      }),
      { numRuns: 100 },
    );
  });

  it("scores bit for bit like a row-major dotAt scan, in the same order, across block boundaries", () => {
    // The index keeps vectors in blocks of 1024 docs (narrower while it holds fewer): counts around
    // 1024 and 2048 cross block boundaries, small counts cover the narrow single block and its growth.
    const count = fc.oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 1000, max: 1100 }), fc.integer({ min: 2030, max: 2110 }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 37 }), count, fc.integer(), fc.double({ min: 0, max: 0.3, noNaN: true }), (dim, target, seed, removeRate) => {
        const random = seeded(seed);
        const index = new VectorIndex(dim);
        const model = new Map<number, Float32Array>();
        const held: number[] = [];
        const added: Float32Array[] = [];
        const component = (zeroRate: number): number => {
          const x = random();
          if (x < zeroRate) return x < zeroRate / 8 ? -0 : 0;
          return Math.fround(random() * 2 - 1);
        };
        const vector = (): Float32Array => {
          // Some vectors repeat an earlier one, so equal scores (and the tie rule) occur.
          if (added.length > 0 && random() < 0.1) return (added[Math.floor(random() * added.length)] as Float32Array).slice();
          const zeroRate = random() < 0.5 ? 0 : random();
          return Float32Array.from({ length: dim }, () => component(zeroRate));
        };
        const query = (): Float32Array => {
          const kind = random();
          if (kind < 0.05) return new Float32Array(dim);
          if (kind < 0.1 && added.length > 0) return (added[Math.floor(random() * added.length)] as Float32Array).slice();
          // dense (every component non-zero) or sparse (1 to about half the components non-zero)
          const q = Float32Array.from({ length: dim }, () => Math.fround(random() * 2 - 1) || 0.5);
          if (kind < 0.4) return q;
          const keep = 1 + Math.floor(random() * Math.max(1, dim / 2));
          for (let i = 0; i < dim; i++) if (random() * dim >= keep) q[i] = 0;
          return q;
        };
        const check = (): void => {
          const q = query();
          const k = random() < 0.2 ? model.size + 3 : 1 + Math.floor(random() * 12);
          const got = index.search(q, k);
          const want = rowMajorScan(model, dim, q, k);
          expect(got.length).toBe(want.length);
          // Object.is: the same bits, not just close; one expect per search keeps hundreds of hits cheap.
          const at = want.findIndex((hit, i) => got[i]?.doc !== hit.doc || !Object.is(got[i]?.score, hit.score));
          expect(at === -1 ? null : { at, got: got[at], want: want[at] }).toBeNull();
        };
        let nextDoc = 0;
        let steps = 0;
        // About a dozen searches along the way, so some run on a partly filled last block.
        const every = Math.max(5, Math.floor(target / 12));
        while (model.size < target) {
          if (model.size > 0 && random() < removeRate) {
            // Mostly a held doc (its slot gets the last vector), sometimes one that is not there.
            const at = Math.floor(random() * held.length);
            const doc = random() < 0.9 ? (held[at] as number) : nextDoc + 1;
            expect(index.remove(doc)).toBe(model.delete(doc));
            if (doc === held[at]) {
              held[at] = held[held.length - 1] as number;
              held.pop();
            }
          } else {
            // Usually a new doc; sometimes one removed before comes back.
            const doc = random() < 0.05 && nextDoc > 0 ? Math.floor(random() * nextDoc) : nextDoc++;
            if (model.has(doc)) continue;
            const v = vector();
            index.add(doc, v);
            model.set(doc, v);
            held.push(doc);
            added.push(v);
          }
          if (++steps % every === 0) check();
        }
        // Removing from the end leaves stale vectors past the last slot, which a search must not see.
        for (let i = Math.floor(random() * 4); i > 0 && held.length > 0; i--) {
          // `held` mirrors the index's slots (both fill holes with the last), so this is the last slot.
          const last = held.pop() as number;
          expect(index.remove(last)).toBe(model.delete(last));
        }
        expect(index.size).toBe(model.size);
        for (let i = 0; i < 6; i++) check();
      }),
      { numRuns: 40 },
    );
  });
});

describe("VectorIndex.addRows and reserve", () => {
  it("add the vectors one-by-one adds would (same answers, scores to the bit), seeded, across block boundaries", () => {
    for (const [seed, dim, count, tile] of [
      [1, 4, 1, 1],
      [2, 8, 100, 7],
      [3, 16, 1030, 64],
      [4, 3, 2100, 500],
    ] as const) {
      const random = seededRandom(seed);
      const single = new VectorIndex(dim);
      const rows = new VectorIndex(dim);
      if (seed % 2 === 0) rows.reserve(count);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < count; i++) {
        const v = new Float32Array(dim);
        for (let c = 0; c < dim; c++) v[c] = random() < 0.5 ? 0 : random() - 0.5;
        vectors.push(v);
        single.add(10 + i, v);
      }
      for (let start = 0; start < count; start += tile) {
        const part = vectors.slice(start, start + tile);
        const flat = new Float32Array(part.length * dim);
        part.forEach((v, i) => flat.set(v, i * dim));
        rows.addRows(
          part.map((_, i) => 10 + start + i),
          flat,
        );
      }
      expect(rows.size).toBe(count);
      for (let q = 0; q < 4; q++) {
        const query = new Float32Array(dim);
        for (let c = 0; c < dim; c++) query[c] = random() - 0.5;
        expect(rows.search(query, count)).toEqual(single.search(query, count));
      }
      // Removing keeps them equal (the slots are the same).
      for (let i = 0; i < count; i += 3) expect(rows.remove(10 + i)).toBe(single.remove(10 + i));
      const query = new Float32Array(dim).fill(0.5);
      expect(rows.search(query, count)).toEqual(single.search(query, count));
    }
  });

  it("refuses a batch with a bad doc, a doc given twice or already there, or a non-finite value, and adds nothing", () => {
    const index = new VectorIndex(2);
    index.add(1, vec(1, 0));
    expectInvalidArgument(() => index.addRows([2, 1], vec(1, 0, 0, 1)), /doc 1 is already indexed/);
    expectInvalidArgument(() => index.addRows([2, 2], vec(1, 0, 0, 1)), /doc 2 is already indexed \(or given twice\)/);
    expectInvalidArgument(() => index.addRows([2, 3], vec(1, 0, 0, Number.NaN)), /doc 3 has a non-finite value/);
    expectInvalidArgument(() => index.addRows([2, 3], vec(1, 0, 0)), /at least 4 values/);
    expectInvalidArgument(() => index.addRows([-1], vec(1, 0)));
    expect(index.size).toBe(1);
    expect(index.has(2)).toBe(false);
    index.addRows([2, 3], vec(0, 1, 1, 0));
    expect(index.search(vec(0, 1), 3)).toEqual([{ doc: 2, score: 1 }]);
  });
});

describe("VectorIndex sparse rows", () => {
  /** A vector with about `density` of its components non-zero (some all zero), seeded. */
  function randomVector(random: () => number, dim: number, density: number): Float32Array {
    const v = new Float32Array(dim);
    for (let c = 0; c < dim; c++) if (random() < density) v[c] = random() - 0.5;
    return v;
  }

  it("answer as the dense layout does (search, moments, score, vector) over random adds, batches and removes, seeded", () => {
    for (let run = 0; run < 40; run++) {
      const random = seededRandom(1000 + run);
      const dim = [4, 5, 16, 37, 256][run % 5] as number;
      const sparse = new VectorIndex(dim);
      const dense = new VectorIndex(dim, { sparse: false });
      // Inverted blocks of a few rows (a user's index past BLOCK_ROWS, 512): rows freeze into blocks and
      // blocks dissolve back into rows often.
      const blocked = new VectorIndex(dim, { blockRows: 3 + (run % 5) * 6 });
      const held = new Map<number, Float32Array>();
      let next = 1;
      const steps = 50 + Math.floor(random() * 400);
      for (let step = 0; step < steps; step++) {
        const r = random();
        // Mostly sparse vectors (as the hashing embedder's), some dense, some in between.
        const density = random() < 0.7 ? 0.14 : random() < 0.5 ? 1 : 0.3;
        if (r < 0.45) {
          const v = randomVector(random, dim, density);
          sparse.add(next, v);
          dense.add(next, v);
          blocked.add(next, v);
          held.set(next++, v);
        } else if (r < 0.6) {
          const n = 1 + Math.floor(random() * 20);
          const docs: number[] = [];
          const rows = new Float32Array(n * dim);
          for (let i = 0; i < n; i++) {
            const v = randomVector(random, dim, random() < 0.7 ? 0.14 : 1);
            rows.set(v, i * dim);
            held.set(next, v);
            docs.push(next++);
          }
          if (random() < 0.5) sparse.reserve(sparse.size + n);
          if (random() < 0.5) blocked.reserve(blocked.size + n);
          sparse.addRows(docs, rows);
          dense.addRows(docs, rows);
          blocked.addRows(docs, rows);
        } else if (r < 0.85 && held.size > 0) {
          const docs = [...held.keys()];
          const doc = docs[Math.floor(random() * docs.length)] as number;
          expect(sparse.remove(doc)).toBe(true);
          expect(dense.remove(doc)).toBe(true);
          expect(blocked.remove(doc)).toBe(true);
          held.delete(doc);
        } else {
          const query = randomVector(random, dim, random() < 0.5 ? 0.3 : 1);
          const k = 1 + Math.floor(random() * 30);
          const a = { count: 0, sum: 0, sumSquares: 0 };
          const b = { count: 0, sum: 0, sumSquares: 0 };
          const c = { count: 0, sum: 0, sumSquares: 0 };
          const expected = dense.search(query, k, b);
          expect(sparse.search(query, k, a)).toEqual(expected);
          expect(blocked.search(query, k, c)).toEqual(expected);
          expect(a).toEqual(b);
          expect(c).toEqual(b);
          for (const doc of [...held.keys()].slice(0, 20)) {
            expect(sparse.score(doc, query)).toBe(dense.score(doc, query));
            expect(blocked.score(doc, query)).toBe(dense.score(doc, query));
          }
        }
        // Trimming (as after a bulk build) changes no answer.
        if (random() < 0.05) sparse.trim();
        if (random() < 0.05) blocked.trim();
        expect(sparse.size).toBe(held.size);
        expect(blocked.size).toBe(held.size);
      }
      for (const [doc, v] of held) {
        expect(sparse.vector(doc)).toEqual(v);
        expect(dense.vector(doc)).toEqual(v);
        expect(blocked.vector(doc)).toEqual(v);
        // holds() is what lets a record read its vector from the index: the same answer in every layout.
        expect(blocked.holds(doc, v)).toBe(sparse.holds(doc, v));
      }
      const query = randomVector(random, dim, 1);
      expect(blocked.search(query, held.size + 1)).toEqual(rowMajorScan(held, dim, query, held.size + 1));
      expect(sparse.search(query, held.size + 1)).toEqual(rowMajorScan(held, dim, query, held.size + 1));
      for (const [doc] of held) expect(blocked.nonZero(doc)).toBe(dense.nonZero(doc));
      expect(sparse.remove(0)).toBe(false);
      expect(sparse.vector(0)).toBeUndefined();
    }
  });

  it("inverted blocks answer exactly as dense rows over random adds, batches, removes and queries (fast-check, bounded by runs)", () => {
    // Hashing-like vectors (a few non-zero components, unit length), now and then a dense one or a repeat
    // (equal scores); blocks of 1–40 rows, so rows freeze into blocks and half-dead blocks dissolve often.
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant("add" as const), seed: fc.integer() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("batch" as const), seed: fc.integer(), n: fc.integer({ min: 1, max: 70 }) }) },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("search" as const), seed: fc.integer(), k: fc.integer({ min: 1, max: 60 }) }) },
    );
    fc.assert(
      fc.property(fc.constantFrom(7, 16, 33, 256), fc.integer({ min: 1, max: 40 }), fc.array(op, { minLength: 1, maxLength: 120 }), (dim, blockRows, ops) => {
        const inverted = new VectorIndex(dim, { blockRows });
        const dense = new VectorIndex(dim, { sparse: false });
        const held = new Map<number, Float32Array>();
        const order: number[] = [];
        let next = 0;
        const vector = (random: () => number): Float32Array => {
          if (order.length > 0 && random() < 0.1) return held.get(order[Math.floor(random() * order.length)] as number)!.slice();
          const v = new Float32Array(dim);
          const set = random() < 0.1 ? dim : 1 + Math.floor(random() * Math.max(1, dim / 5));
          for (let i = 0; i < set; i++) v[Math.floor(random() * dim)] = Math.fround(random() - 0.4);
          const norm = Math.sqrt(dot(v, v));
          if (norm > 0) for (let c = 0; c < dim; c++) v[c] = (v[c] as number) / norm;
          return v;
        };
        const check = (random: () => number, k: number): void => {
          const query = random() < 0.5 ? vector(random) : Float32Array.from({ length: dim }, () => (random() < 0.3 ? Math.fround(random() - 0.5) : 0));
          const a = { count: 0, sum: 0, sumSquares: 0 };
          const b = { count: 0, sum: 0, sumSquares: 0 };
          const got = inverted.search(query, k, a);
          expect(got).toEqual(dense.search(query, k, b));
          expect(a).toEqual(b);
          expect(got).toEqual(rowMajorScan(held, dim, query, k));
          for (const hit of got) expect(inverted.score(hit.doc, query)).toBe(hit.score);
        };
        for (const step of ops) {
          if (step.kind === "add") {
            const v = vector(seeded(step.seed));
            inverted.add(next, v);
            dense.add(next, v);
            held.set(next, v);
            order.push(next++);
          } else if (step.kind === "batch") {
            const random = seeded(step.seed);
            const docs: number[] = [];
            const rows = new Float32Array(step.n * dim);
            for (let i = 0; i < step.n; i++) {
              const v = vector(random);
              rows.set(v, i * dim);
              held.set(next, v);
              order.push(next);
              docs.push(next++);
            }
            inverted.reserve(inverted.size + step.n);
            inverted.addRows(docs, rows);
            dense.addRows(docs, rows);
          } else if (step.kind === "remove") {
            if (order.length === 0) continue;
            const at = step.pick % order.length;
            const doc = order[at] as number;
            order[at] = order[order.length - 1] as number;
            order.pop();
            held.delete(doc);
            expect(inverted.remove(doc)).toBe(true);
            expect(dense.remove(doc)).toBe(true);
          } else {
            check(seeded(step.seed), step.k);
          }
        }
        expect(inverted.size).toBe(held.size);
        check(seeded(next), held.size + 1);
        // Read back in doc order (a loaded user's records) and in reverse (the block's cursor restarts).
        const docs = [...held.keys()].sort((x, y) => x - y);
        for (const doc of [...docs, ...docs.reverse()]) {
          const v = held.get(doc)!;
          expect(inverted.vector(doc)).toEqual(v);
          expect(inverted.holds(doc, v)).toBe(dense.holds(doc, v));
          expect(inverted.nonZero(doc)).toBe(dense.nonZero(doc));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("dense rows grow by whole blocks past the first, and trim answers the same, before and after more adds", () => {
    const random = seededRandom(77);
    const dim = 8;
    const trimmed = new VectorIndex(dim, { sparse: false });
    const plain = new VectorIndex(dim, { sparse: false });
    const add = (doc: number): void => {
      const v = randomVector(random, dim, 1);
      trimmed.add(doc, v);
      plain.add(doc, v);
    };
    for (let doc = 1; doc <= 2100; doc++) add(doc);
    const before = trimmed.byteLength;
    trimmed.trim();
    // Past a few blocks the dense rows grow by an eighth (in whole blocks), not by doubling: 2,100 vectors in 3 blocks.
    expect(trimmed.byteLength).toBe(3 * 1024 * dim * 4);
    expect(trimmed.byteLength).toBe(before);
    const check = (): void => {
      for (let q = 0; q < 5; q++) {
        const query = randomVector(random, dim, 1);
        expect(trimmed.search(query, 50)).toEqual(plain.search(query, 50));
      }
    };
    check();
    for (let doc = 2101; doc <= 3300; doc++) add(doc);
    for (let doc = 1; doc <= 3300; doc += 7) expect(trimmed.remove(doc)).toBe(plain.remove(doc));
    check();
    for (let doc = 2; doc <= 3300; doc += 97) expect(trimmed.vector(doc)).toEqual(plain.vector(doc));
  });

  it("9,000 hashing vectors stay sparse (in blocks), answer as dense rows, and vectorBytes tracks their bytes", async () => {
    const { HashingEmbedder } = await import("../embedding/hashing-embedder.ts");
    const embedder = new HashingEmbedder();
    const words = ["Anna", "Berlin", "violin", "coffee", "tea", "Osaka", "hiking", "peanut", "daughter", "Tuesday", "chess", "jazz"];
    const text = (i: number): string => `note ${i}: ${words[i % 12]} ${words[(i >> 2) % 12]} and ${words[(i >> 5) % 12]} at ${i % 97}`;
    const blocked = new VectorIndex(256);
    const dense = new VectorIndex(256, { sparse: false });
    let estimate = 0;
    const n = 9000;
    const docs: number[] = [];
    const rows = new Float32Array(64 * 256);
    for (let i = 0; i < n; i++) {
      const v = embedder.embedOne(text(i));
      dense.add(i, v);
      rows.set(v, docs.length * 256);
      docs.push(i);
      if (docs.length === 64 || i === n - 1) {
        // As a loaded user's index is built: in tiles (state/entry-state.ts).
        blocked.addRows(docs, rows);
        docs.length = 0;
      }
    }
    blocked.trim();
    for (let i = 0; i < n; i++) estimate += vectorBytes(blocked.nonZero(i), 256);
    expect(blocked.byteLength).toBeLessThan(0.3 * dense.byteLength);
    expect(Math.abs(blocked.byteLength - estimate)).toBeLessThan(0.25 * estimate);
    // Most of the first blocks removed (they dissolve back into rows), some of the others.
    for (let i = 0; i < n; i++) if ((i < 2048 && i % 5 !== 0) || i % 7 === 0) expect(blocked.remove(i)).toBe(dense.remove(i));
    for (let q = 0; q < 12; q++) {
      const query = embedder.embedOne(`${words[q]} ${words[(q * 5) % 12]} note ${q * 13}`);
      const a = { count: 0, sum: 0, sumSquares: 0 };
      const b = { count: 0, sum: 0, sumSquares: 0 };
      expect(blocked.search(query, 20, a)).toEqual(dense.search(query, 20, b));
      expect(a).toEqual(b);
    }
    for (let i = 1; i < n; i += 11) {
      expect(blocked.vector(i)).toEqual(dense.vector(i));
      expect(blocked.nonZero(i)).toBe(dense.nonZero(i));
    }
  });

  it("roundHalfUp is Math.round for every x in [0, 2^52), ties included", () => {
    const check = (x: number): void => {
      expect(roundHalfUp(x)).toBe(Math.round(x));
    };
    for (const x of [0, 0.5, 1.5, 2.5, 0.49999999999999994, 2 ** 52 - 0.5, 2 ** 51 + 0.5, 4503599627370495, 1e-300]) check(x);
    fc.assert(
      // −0 aside (Math.round keeps it, roundHalfUp gives +0; the scans round only scores above 0).
      fc.property(fc.double({ min: 0, max: 2 ** 52, maxExcluded: true, noNaN: true }), (x) => check(Math.abs(x))),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 30 }), fc.integer({ min: 1, max: 26 }), (whole, bits) => {
        // Ties and their neighbours at the scale of the moments (score · 2^26).
        const x = whole / 2 ** bits + 0.5;
        check(x);
        check(x - 2 ** -bits);
        check(x + 2 ** -bits);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps a hashing-embedder vector in about a fifth of a dense row's bytes", async () => {
    const { HashingEmbedder } = await import("../embedding/hashing-embedder.ts");
    const embedder = new HashingEmbedder();
    const index = new VectorIndex(256);
    for (let i = 0; i < 1000; i++) index.add(i, embedder.embedOne(`On trip ${i} I met Anna in Berlin and we talked about violin number ${i * 7}`));
    expect(index.size).toBe(1000);
    // A dense index of 1000 rows holds at least 1000 KiB.
    expect(index.byteLength).toBeLessThan(1000 * 1024 * 0.35);
    expect(index.byteLength).toBeGreaterThan(0);
  });
});
