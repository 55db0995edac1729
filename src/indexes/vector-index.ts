// Exact cosine top-k over one user's vectors, kept in a single contiguous Float32Array.

import { invalidArgument } from "../errors.ts";
import { checkVector, dotAt } from "../embedding/vector-math.ts";
import { checkDoc, checkK, TopK, type ScoredDoc } from "./top-k.ts";

export type { ScoredDoc } from "./top-k.ts";

// Small: most users of a multi-user store hold few memories; doubling makes growth cheap.
const INITIAL_CAPACITY = 2;

/**
 * Brute-force (exact) nearest neighbours for one user shard.
 *
 * Vectors must be L2-normalised, so cosine similarity is a dot product. All vectors live in one
 * growable `Float32Array` (capacity doubles), which keeps a scan cache-friendly; removing moves the
 * last vector into the hole, so no operation rebuilds the index.
 *
 * @example
 * ```ts
 * const index = new VectorIndex(256);
 * index.add(1, await embedOne("I'm allergic to peanuts"));
 * index.search(queryVector, 10); // [{ doc: 1, score: 0.42 }]
 * ```
 */
export class VectorIndex {
  readonly dim: number;
  #data: Float32Array;
  #capacity: number;
  /** slot → doc */
  #docs: number[] = [];
  /** doc → slot */
  #slots = new Map<number, number>();

  constructor(dim: number) {
    if (!Number.isInteger(dim) || dim < 1) {
      throw invalidArgument(`VectorIndex: dim must be a positive integer, got ${String(dim)}.`);
    }
    this.dim = dim;
    this.#capacity = INITIAL_CAPACITY;
    this.#data = new Float32Array(this.#capacity * dim);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#docs.length;
  }

  /** True when `doc` has a vector here. */
  has(doc: number): boolean {
    return this.#slots.has(doc);
  }

  /**
   * Adds the (unit-length) vector of `doc`. `doc` must be new to this index.
   * The vector is copied; the caller may reuse its array.
   */
  add(doc: number, vector: Float32Array): void {
    checkDoc("VectorIndex.add", doc);
    if (this.#slots.has(doc)) {
      throw invalidArgument(`VectorIndex.add: doc ${doc} is already indexed; remove it first to replace its vector.`);
    }
    const problem = checkVector(vector, this.dim);
    if (problem !== null) throw invalidArgument(`VectorIndex.add: the vector of doc ${doc} ${problem}.`);
    const slot = this.#docs.length;
    if (slot === this.#capacity) this.#grow();
    this.#data.set(vector, slot * this.dim);
    this.#docs.push(doc);
    this.#slots.set(doc, slot);
  }

  /** Removes the vector of `doc`; false when it was not there. O(dim). */
  remove(doc: number): boolean {
    const slot = this.#slots.get(doc);
    if (slot === undefined) return false;
    const last = this.#docs.length - 1;
    if (slot !== last) {
      const movedDoc = this.#docs[last] as number;
      this.#data.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.#docs[slot] = movedDoc;
      this.#slots.set(movedDoc, slot);
    }
    this.#docs.pop();
    this.#slots.delete(doc);
    return true;
  }

  /**
   * The `k` docs most similar to `query` (cosine = dot, since vectors are unit length), best first.
   * Docs with score ≤ 0 are left out; equal scores put the larger (newer) doc first.
   */
  search(query: Float32Array, k: number): ScoredDoc[] {
    const problem = checkVector(query, this.dim);
    if (problem !== null) throw invalidArgument(`VectorIndex.search: the query vector ${problem}.`);
    checkK("VectorIndex.search", k);
    const count = this.#docs.length;
    if (k === 0 || count === 0) return [];
    const top = new TopK(Math.min(k, count));
    const data = this.#data;
    const dim = this.dim;
    const docs = this.#docs;
    const lanes = sparseLanes(query);
    if (lanes === null) {
      for (let slot = 0; slot < count; slot++) {
        const score = dotAt(data, slot * dim, query, dim);
        if (score > 0) top.offer(docs[slot] as number, score);
      }
      return top.drain();
    }
    const [i0, v0, i1, v1, i2, v2, i3, v3] = lanes;
    for (let slot = 0, offset = 0; slot < count; slot++, offset += dim) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < i0.length; j++) s0 += (data[offset + (i0[j] as number)] as number) * (v0[j] as number);
      for (let j = 0; j < i1.length; j++) s1 += (data[offset + (i1[j] as number)] as number) * (v1[j] as number);
      for (let j = 0; j < i2.length; j++) s2 += (data[offset + (i2[j] as number)] as number) * (v2[j] as number);
      for (let j = 0; j < i3.length; j++) s3 += (data[offset + (i3[j] as number)] as number) * (v3[j] as number);
      const score = s0 + s1 + (s2 + s3);
      if (score > 0) top.offer(docs[slot] as number, score);
    }
    return top.drain();
  }

  #grow(): void {
    this.#capacity *= 2;
    const data = new Float32Array(this.#capacity * this.dim);
    data.set(this.#data.subarray(0, this.#docs.length * this.dim));
    this.#data = data;
  }
}

type Lanes = [Int32Array, Float64Array, Int32Array, Float64Array, Int32Array, Float64Array, Int32Array, Float64Array];

/**
 * For a query with at most half of its components non-zero (the hashing embedder's vectors have a few
 * dozen of 256), the non-zero indices and values sorted into the four partial sums `dotAt` uses, in
 * `dotAt`'s order (the tail past the last multiple of 4 goes to the first sum). Skipping zero terms
 * does not change a sum, so the scores are bit-identical to `dotAt`'s, at a fraction of the cost.
 * Null for a dense query.
 */
function sparseLanes(query: Float32Array): Lanes | null {
  const dim = query.length;
  let nonZero = 0;
  for (let i = 0; i < dim; i++) if (query[i] !== 0) nonZero++;
  if (nonZero * 2 > dim) return null;
  const end4 = dim - (dim % 4);
  const indices: number[][] = [[], [], [], []];
  for (let i = 0; i < dim; i++) {
    if (query[i] !== 0) (indices[i < end4 ? i % 4 : 0] as number[]).push(i);
  }
  const lanes: Array<Int32Array | Float64Array> = [];
  for (const lane of indices) {
    lanes.push(Int32Array.from(lane), Float64Array.from(lane, (i) => query[i] as number));
  }
  return lanes as Lanes;
}
