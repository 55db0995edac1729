// Tests of the per-shard exact vector index, including a property test against brute force.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { VectorIndex } from "./vector-index.ts";
import { dot } from "../embedding/vector-math.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";

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

  it("matches brute force bit for bit on float vectors, dense and sparse, of a dim not divisible by 4", () => {
    const dim = 11;
    const value = fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true });
    const unit = fc
      .array(fc.oneof(value, value, fc.constant(0)), { minLength: dim, maxLength: dim })
      .map((values) => {
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
});
