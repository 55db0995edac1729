// Exact cosine top-k over one user's vectors, kept in one Float32Array in blocks of docs, component-major inside a block.

import { invalidArgument } from "../errors.ts";
import { checkVector } from "../embedding/vector-math.ts";
import { checkDoc, checkK, TopK, type ScoredDoc } from "./top-k.ts";
import { queryValues, type PairBatch } from "./sparse-rows.ts";
import { SparseVectors } from "./sparse-vectors.ts";
import { INTEGER_SHIFT, MOMENT_SCALE, ScoreSink } from "./score-sink.ts";

export type { ScoredDoc } from "./top-k.ts";

/**
 * Moments of a query's positive similarities over every doc of the index (a doc scoring ≤ 0 counts as
 * 0), filled in by {@link VectorIndex.search}: what score fusion needs to standardise the route
 * (src/fusion/standardized.ts) without a second pass.
 */
export interface ScoreMoments {
  count: number;
  sum: number;
  sumSquares: number;
}

// Small: most users of a multi-user store hold few memories; doubling makes growth cheap.
const INITIAL_CAPACITY = 2;

/**
 * Docs per block (a power of two). A block holds each component's values for all its docs side by
 * side, so a query reads only the runs of its non-zero components: a hashing-embedder query has a few
 * dozen of 256, and reading every 1 KiB row for them made the scan cost as much as a dense one. 1024
 * measured 10–20 % faster at 100k vectors than 256 and about the same as 512 or 2048, probably because
 * a run is then a whole 4 KiB page, which hardware prefetchers stream to its end (they stop at pages).
 */
const BLOCK = 1024;

/**
 * A vector with at most dim / SPARSE_FRACTION non-zero components is kept sparse ({@link SparseVectors}):
 * its pairs then take at most 3 bytes per dimension where a dense row takes 4, and scoring it reads
 * only the pairs it shares with the query. The hashing embedder's vectors have about 35 non-zero
 * components of 256 for a 60-character text, 62 on average on the bench corpus (6–30 words), up to
 * about 110; a model embedder's have none at zero and stay dense. (It was 4 while a user's sparse
 * vectors became dense past 4,096: half the bench corpus's vectors were dense then.)
 */
const SPARSE_FRACTION = 2;

/** Components a sparse pair can name (Uint16). */
const SPARSE_MAX_DIM = 65536;

/**
 * Sparse vectors past this many (the newest, kept as per-vector pairs) become one inverted block
 * (src/indexes/sparse-vectors.ts). A user with fewer memories has no block (no per-component offsets:
 * 2–3 KiB a block). A block's scan reads only the query's postings, so it is already cheaper than the
 * pairs' scan at a few hundred vectors: on the bench corpus (bench/vector-scan.ts) 512 measured
 * 0.10–0.13 ms per search at 1,000 vectors against 0.17–0.19 with 1,024 or 4,096, and 0.42 against
 * 0.48–0.62 at 10,000; at 100,000, 4.4–4.6 against 3.8–4.1 (more blocks to set up per term).
 */
const BLOCK_ROWS = 512;

/**
 * Bytes the index holds, about, for a vector of `dim` components of which `nonZero` are not zero, in the
 * layout it gets (for the store's memory estimate, state/entry-counts.ts): 6 per pair and ~10 per vector
 * kept sparse (in rows or blocks alike, bench/heap-per-entry.ts), 4 per component and an eighth of room to
 * grow kept dense.
 */
export function vectorBytes(nonZero: number, dim: number): number {
  return dim <= SPARSE_MAX_DIM && nonZero <= Math.floor(dim / SPARSE_FRACTION) ? 6 * nonZero + 10 : 4.5 * dim;
}

function nonFinite(doc: number, value: number, at: number): Error {
  return invalidArgument(`VectorIndex.addRows: the vector of doc ${doc} has a non-finite value (${value}) at index ${at}.`);
}

/**
 * Vectors a {@link VectorIndex} holds where they are stored until it adds them (a section's block:
 * persistence/homed-record.ts, `BlockVectors`), read with the scores the index gives them once added.
 */
export interface DeferredVectors {
  /** How many vectors. */
  readonly deferred: number;
  /** Offers `sink` each vector's score against `query` (its components as doubles, see `queryValues`) when above 0. */
  scanDeferred(query: Float64Array, sink: ScoreSink): void;
  /** One vector's score (`doc`: its seq), or undefined when it is not one of these. */
  scoreDeferred(doc: number, query: Float64Array): number | undefined;
  /** Forgets them (the index's owner adds them next). */
  undefer(): void;
}

/** {@link VectorIndex.addSparseRows}'s checks of the docs and counts, out of the method (a method with a loop and private fields was deoptimised at every call). */
function checkSparseBatch(docs: ArrayLike<number>, n: number, counts: Int32Array, limit: number, slots: Map<number, number>): void {
  for (let i = 0; i < n; i++) {
    const doc = docs[i] as number;
    checkDoc("VectorIndex.addSparseRows", doc);
    if (slots.has(doc) || (i > 0 && !(doc > (docs[i - 1] as number)))) {
      throw invalidArgument(`VectorIndex.addSparseRows: doc ${doc} is already indexed (or the docs are not ascending); remove it first to replace its vector.`);
    }
    const count = counts[i] as number;
    if (!(count <= limit))
      throw invalidArgument(`VectorIndex.addSparseRows: the vector of doc ${doc} has ${count} pairs; this index keeps at most ${limit} sparse.`);
  }
}

/** Scratch for {@link VectorIndex.addRows}: the batch's non-zero pairs, shared by every index (grown to the largest batch). */
let pairComponents = new Uint16Array(0);
let pairValues = new Float32Array(0);

/**
 * Brute-force (exact) nearest neighbours for one user shard.
 *
 * Vectors must be L2-normalised, so cosine similarity is a dot product. All vectors live in one
 * growable `Float32Array` (capacity doubles) in blocks of 1024 docs; inside a block the layout
 * is component-major, so a sparse query skips the components it does not use. Until the capacity
 * reaches a block, the one block is only as wide as the capacity, so a user with one memory still
 * reserves two rows. Removing moves the last vector into the hole, so no operation rebuilds the index.
 * Vectors that are mostly zeros (the hashing embedder's) are kept apart as (component, value) pairs
 * ({@link SparseVectors}: per vector while few, inverted per component in blocks past BLOCK_ROWS), a
 * fifth of the memory, with the same scores to the bit, at any count.
 *
 * Scores are bit-identical to `dotAt`'s and `dot`'s (vector-math.ts): the same four partial sums, each
 * summed in ascending component order, combined as `s0 + s1 + (s2 + s3)`.
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
  /** Docs per block: min(capacity, BLOCK). Component `c` of slot `s` is at `blockStart(s)·dim + c·width + s mod width`. */
  #width: number;
  /** dense slot → doc */
  #docs: number[] = [];
  /** doc → slot: a dense slot s as s, a sparse one as ~s (negative) */
  #slots = new Map<number, number>();
  /** The vectors kept sparse; a slot of theirs is kept in `#slots` as ~code. */
  readonly #sparse: SparseVectors;
  /** Most non-zero components of a vector kept sparse (−1: none is). */
  readonly #sparseLimit: number;
  /** Capacity a {@link reserve} asked for, taken at the first growth of the dense rows (none while every vector is sparse). */
  #reserved = 0;
  /** Partial sums of {@link score}, reused. */
  readonly #scoreSums = new Float64Array(4);
  /** Vectors this index holds where they are stored, not added yet ({@link defer}). */
  #deferred: DeferredVectors[] = [];
  #deferredCount = 0;

  /** `sparse`: false keeps every vector dense (tests compare the layouts); `blockRows`: see BLOCK_ROWS (tests pass small ones). */
  constructor(dim: number, options?: { sparse?: boolean; blockRows?: number }) {
    if (!Number.isInteger(dim) || dim < 1) {
      throw invalidArgument(`VectorIndex: dim must be a positive integer, got ${String(dim)}.`);
    }
    this.dim = dim;
    // No dense rows until a dense vector comes: a user's index holding only sparse ones needs none.
    this.#capacity = 0;
    this.#width = Math.min(INITIAL_CAPACITY, BLOCK);
    this.#data = new Float32Array(0);
    this.#sparse = new SparseVectors(dim, options?.blockRows ?? BLOCK_ROWS, (doc, code) => this.#slots.set(doc, ~code));
    this.#sparseLimit = options?.sparse === false || dim > SPARSE_MAX_DIM ? -1 : Math.floor(dim / SPARSE_FRACTION);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#docs.length + this.#sparse.size + this.#deferredCount;
  }

  /**
   * Holds `source`'s marked vectors without adding them: a search and {@link score} read them where they are
   * stored, with the scores they would have here. Until {@link undefer}, every method that reads or changes
   * one vector (add, remove, vector, holds, nonZero, has, addRows, addSparseRows) throws: the owner adds the
   * deferred vectors first (state/entry-state.ts).
   */
  defer(source: DeferredVectors): void {
    this.#deferred.push(source);
    this.#deferredCount += source.deferred;
  }

  /** Whether some vectors are deferred ({@link defer}). */
  get deferring(): boolean {
    return this.#deferred.length > 0;
  }

  /** Stops reading the deferred vectors where they are stored, and has each source forget them: the owner adds them next. */
  undefer(): void {
    for (const source of this.#deferred) source.undefer();
    this.#deferred = [];
    this.#deferredCount = 0;
  }

  #notDeferred(where: string): void {
    if (this.#deferred.length > 0) throw new Error(`internal: VectorIndex.${where} while vectors are deferred (add them first)`);
  }

  /** The non-zero components of `dim` values of `vector` from `offset` when few enough to keep them sparse; −1 otherwise. */
  #sparseCount(vector: Float32Array, offset: number): number {
    const limit = this.#sparseLimit;
    if (limit < 0) return -1;
    let count = 0;
    for (let c = offset, end = offset + this.dim; c < end; c++) {
      if (vector[c] !== 0 && ++count > limit) return -1;
    }
    return count;
  }

  /**
   * A copy of `doc`'s vector as it is held (unit length, as it was added), or undefined when `doc`
   * has no vector here. O(dim).
   */
  vector(doc: number): Float32Array | undefined {
    this.#notDeferred("vector");
    const slot = this.#slots.get(doc);
    if (slot === undefined) return undefined;
    const out = new Float32Array(this.dim);
    if (slot < 0) {
      this.#sparse.copyInto(~slot, out, 0);
      return out;
    }
    const data = this.#data;
    const width = this.#width;
    for (let c = 0, at = this.#first(slot); c < this.dim; c++, at += width) out[c] = data[at] as number;
    return out;
  }

  /** True when `doc`'s vector here is `vector`, component for component (Object.is: −0 is not 0). O(dim). */
  holds(doc: number, vector: Float32Array): boolean {
    this.#notDeferred("holds");
    const slot = this.#slots.get(doc);
    if (slot === undefined || !(vector instanceof Float32Array) || vector.length !== this.dim) return false;
    if (slot < 0) return this.#sparse.equals(~slot, vector);
    const data = this.#data;
    const width = this.#width;
    for (let c = 0, at = this.#first(slot); c < this.dim; c++, at += width) if (!Object.is(data[at], vector[c])) return false;
    return true;
  }

  /** Non-zero components of `doc`'s vector (0 when `doc` has none here). O(1) for a sparse vector, O(dim) for a dense one. */
  nonZero(doc: number): number {
    this.#notDeferred("nonZero");
    const slot = this.#slots.get(doc);
    if (slot === undefined) return 0;
    if (slot < 0) return this.#sparse.nonZero(~slot);
    let count = 0;
    for (let c = 0, at = this.#first(slot); c < this.dim; c++, at += this.#width) if (this.#data[at] !== 0) count++;
    return count;
  }

  /** Bytes held by the vectors' arrays (dense rows with their room to grow, sparse pairs). */
  get byteLength(): number {
    return this.#data.byteLength + this.#sparse.byteLength;
  }

  /** True when `doc` has a vector here. */
  has(doc: number): boolean {
    this.#notDeferred("has");
    return this.#slots.has(doc);
  }

  /**
   * Adds the (unit-length) vector of `doc`. `doc` must be new to this index.
   * The vector is copied; the caller may reuse its array.
   */
  add(doc: number, vector: Float32Array): void {
    this.#notDeferred("add");
    checkDoc("VectorIndex.add", doc);
    if (this.#slots.has(doc)) {
      throw invalidArgument(`VectorIndex.add: doc ${doc} is already indexed; remove it first to replace its vector.`);
    }
    const problem = checkVector(vector, this.dim);
    if (problem !== null) throw invalidArgument(`VectorIndex.add: the vector of doc ${doc} ${problem}.`);
    const count = this.#sparseCount(vector, 0);
    if (count >= 0) {
      this.#slots.set(doc, ~this.#sparse.add(doc, vector, 0, count));
      return;
    }
    const slot = this.#docs.length;
    if (slot === this.#capacity) this.#reserveDense(Math.max(slot + 1, this.#reserved));
    const data = this.#data;
    const width = this.#width;
    const dim = this.dim;
    for (let c = 0, at = this.#first(slot); c < dim; c++, at += width) data[at] = vector[c] as number;
    this.#docs.push(doc);
    this.#slots.set(doc, slot);
  }

  /** Most non-zero components of a vector this index keeps sparse (−1: it keeps none sparse). */
  get sparseLimit(): number {
    return this.#sparseLimit;
  }

  /**
   * Adds vectors `0..n` of `batch` (unit length, given by their non-zero pairs), the same as that many {@link add}
   * calls would hold (not necessarily in the same slots), without a dense copy of any: the docs strictly ascending,
   * each vector with at most {@link sparseLimit} pairs, components strictly ascending below `dim`, values finite
   * and none ±0. The docs and counts are checked before anything is written (a refused batch adds nothing); the
   * pairs are the caller's to check, in the pass it makes over them anyway: a user's build reads them from a
   * section's block, checked when the section was read and again by `unitAsStored` (embedding/vector-math.ts).
   */
  addSparseRows(batch: PairBatch, n: number): void {
    this.#notDeferred("addSparseRows");
    checkSparseBatch(batch.docs, n, batch.counts, this.#sparseLimit, this.#slots);
    this.#sparse.addBatch(batch, n);
  }

  /**
   * Makes room for `count` vectors in one allocation, so a bulk build (a user's indexes built from
   * its entries) does not copy the array at every doubling. The capacity is the one the doublings
   * would reach, so the layout is the same as after `count` single adds.
   */
  reserve(count: number): void {
    // Taken when the first dense vector comes: sparse vectors need no dense rows.
    this.#reserved = Math.max(this.#reserved, count);
  }

  /**
   * Makes room for `count` dense rows: doubling up to a block (the one block's width is its capacity, so
   * the layout is the one single adds reach), then by an eighth in whole blocks (any number of whole
   * blocks has the same layout): a large user's first add after a trimmed build copies its rows once
   * into an eighth more room, not into twice its size.
   */
  #reserveDense(count: number): void {
    let capacity = Math.max(this.#capacity, INITIAL_CAPACITY);
    while (capacity < count) capacity = capacity < BLOCK ? capacity * 2 : capacity + BLOCK * Math.max(1, Math.ceil(capacity / BLOCK / 8));
    if (capacity > this.#capacity) this.#grow(capacity);
  }

  /**
   * Adds `docs.length` unit-length vectors held back to back in `rows` (doc i's from i·dim), with the
   * same slots and values as that many {@link add} calls, but written component by component across
   * the docs: one add writes its dim values a block row (4 KiB) apart, each on another page, which
   * made building a large user's index cost as much as decoding it. Everything is checked before
   * anything is written: a refused batch adds nothing.
   */
  addRows(docs: readonly number[], rows: Float32Array): void {
    this.#notDeferred("addRows");
    const dim = this.dim;
    const n = docs.length;
    if (!(rows instanceof Float32Array) || rows.length < n * dim) {
      throw invalidArgument(`VectorIndex.addRows: rows must be a Float32Array of at least ${n * dim} values (${n} vectors of ${dim}).`);
    }
    // The check reads every value anyway: it also notes the non-zero ones (−0 is not one) as pairs, which a
    // vector kept sparse is then added from, without reading its dim values again.
    const ends = new Int32Array(n);
    const total = n * dim;
    if (pairComponents.length < total && dim <= SPARSE_MAX_DIM) {
      pairComponents = new Uint16Array(total);
      pairValues = new Float32Array(total);
    }
    const components = pairComponents;
    const values = pairValues;
    const note = dim <= SPARSE_MAX_DIM;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const doc = docs[i] as number;
      checkDoc("VectorIndex.addRows", doc);
      if (this.#slots.has(doc) || docs.indexOf(doc) !== i) {
        throw invalidArgument(`VectorIndex.addRows: doc ${doc} is already indexed (or given twice); remove it first to replace its vector.`);
      }
      const from = i * dim;
      if (note) {
        // Written without a branch on the value (a hashing vector's zeros come at random): every value is
        // written at `at`, which moves on past the non-zero ones only.
        for (let c = 0; c < dim; c++) {
          const value = rows[from + c] as number;
          // value − value is NaN for NaN and ±Infinity, 0 for any finite value.
          if (value - value !== 0) throw nonFinite(doc, value, c);
          components[at] = c;
          values[at] = value;
          at += value !== 0 ? 1 : 0;
        }
      } else {
        for (let c = 0; c < dim; c++) {
          const value = rows[from + c] as number;
          if (value - value !== 0) throw nonFinite(doc, value, c);
          if (value !== 0) at++;
        }
      }
      ends[i] = at;
    }
    // Sparse rows go to their own store; the dense ones are written as a block.
    const dense: number[] = [];
    const limit = this.#sparseLimit;
    for (let i = 0, from = 0; i < n; i++) {
      const to = ends[i] as number;
      if (limit < 0 || to - from > limit) dense.push(i);
      else this.#slots.set(docs[i] as number, ~this.#sparse.addPairs(docs[i] as number, components, from, values, from, to - from));
      from = to;
    }
    if (dense.length > 0) this.#appendDense(docs, rows, dense);
  }

  /** Writes the vectors `which` (indexes into `docs`; null: all) of `rows` as new dense rows, block by block. */
  #appendDense(docs: readonly number[], rows: Float32Array, which: readonly number[] | null): void {
    const dim = this.dim;
    const m = which === null ? docs.length : which.length;
    const first = this.#docs.length;
    this.#reserveDense(Math.max(first + m, this.#reserved));
    const data = this.#data;
    const width = this.#width;
    const starts = new Int32Array(m);
    const from = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      starts[j] = this.#first(first + j);
      from[j] = (which === null ? j : (which[j] as number)) * dim;
    }
    for (let c = 0; c < dim; c++) {
      const run = c * width;
      for (let j = 0; j < m; j++) data[(starts[j] as number) + run] = rows[(from[j] as number) + c] as number;
    }
    for (let j = 0; j < m; j++) {
      const doc = docs[which === null ? j : (which[j] as number)] as number;
      this.#docs.push(doc);
      this.#slots.set(doc, first + j);
    }
  }

  /**
   * Gives back the sparse store's room to grow: for after a bulk build, when no add may follow for long (a
   * user's indexes just built). Dense rows keep theirs: past a few blocks it is at most an eighth
   * (`#reserveDense`), and giving it back would make the user's next add copy every row.
   */
  trim(): void {
    this.#sparse.trim();
  }

  /** Removes the vector of `doc`; false when it was not there. O(dim). */
  remove(doc: number): boolean {
    this.#notDeferred("remove");
    const slot = this.#slots.get(doc);
    if (slot === undefined) return false;
    if (slot < 0) {
      // Vectors it moves get their new codes through the callback given to SparseVectors.
      this.#sparse.remove(~slot);
      this.#slots.delete(doc);
      return true;
    }
    const last = this.#docs.length - 1;
    if (slot !== last) {
      const movedDoc = this.#docs[last] as number;
      const data = this.#data;
      const width = this.#width;
      const dim = this.dim;
      for (let c = 0, to = this.#first(slot), from = this.#first(last); c < dim; c++, to += width, from += width) {
        data[to] = data[from] as number;
      }
      this.#docs[slot] = movedDoc;
      this.#slots.set(movedDoc, slot);
    }
    this.#docs.pop();
    this.#slots.delete(doc);
    return true;
  }

  /**
   * The `k` docs most similar to `query` (cosine = dot, since vectors are unit length), best first.
   * Docs with score ≤ 0 are left out; equal scores put the larger (newer) doc first. With `moments`,
   * also sums every doc's score (≤ 0 as 0) and its square into it, at the cost of two additions per doc.
   */
  search(query: Float32Array, k: number, moments?: ScoreMoments): ScoredDoc[] {
    const problem = checkVector(query, this.dim);
    if (problem !== null) throw invalidArgument(`VectorIndex.search: the query vector ${problem}.`);
    checkK("VectorIndex.search", k);
    const count = this.#docs.length;
    const size = this.size;
    if (moments !== undefined) {
      moments.count = size;
      moments.sum = 0;
      moments.sumSquares = 0;
    }
    if (k === 0 || size === 0) return [];
    const top = new TopK(Math.min(k, size));
    let sum = 0;
    let sumSquares = 0;
    if (this.#sparse.size > 0 || this.#deferred.length > 0) {
      const sink = new ScoreSink(top);
      const values = queryValues(query);
      if (this.#sparse.size > 0) this.#sparse.scan(query, values, sink);
      for (const source of this.#deferred) source.scanDeferred(values, sink);
      sum = sink.sum;
      sumSquares = sink.sumSquares;
    }
    if (count === 0) {
      if (moments !== undefined) {
        moments.sum = sum / MOMENT_SCALE;
        moments.sumSquares = sumSquares / MOMENT_SCALE;
      }
      return top.drain();
    }
    const data = this.#data;
    const dim = this.dim;
    const docs = this.#docs;
    const width = this.#width;
    const terms = laneTerms(query, width);
    // Lane l's partial sums of a block's docs at [l·stride, (l+1)·stride); [4·stride, 5·stride) stays
    // zero and is what a lane's first pass adds onto, so no pass has to clear the sums per block.
    const stride = Math.min(width, count);
    const sums = new Float64Array(5 * stride);
    const zeros = 4 * stride;
    const s2 = 2 * stride;
    const s3 = 3 * stride;
    const scale = MOMENT_SCALE;
    const shift = INTEGER_SHIFT;
    for (let start = 0; start < count; start += width) {
      const n = Math.min(width, count - start);
      const base = start * dim;
      for (let lane = 0; lane < 4; lane++) {
        addLane(sums, lane * stride, zeros, data, base, n, terms, terms.ends[lane] as number, terms.ends[lane + 1] as number);
      }
      for (let j = 0; j < n; j++) {
        const score = (sums[j] as number) + (sums[stride + j] as number) + ((sums[s2 + j] as number) + (sums[s3 + j] as number));
        if (score > 0) {
          top.offer(docs[start + j] as number, score);
          // Fixed point, so the sums (and the fused scores built on them) do not depend on the order of
          // the slots, which removals shuffle: a reopened store answers with the same scores to the bit.
          // roundHalfUp (score-sink.ts) written out, as in InvertedBlock.scan: a call here costs more than the rest.
          const x = score * scale;
          const y = x + shift - shift;
          sum += y - x === -0.5 ? y + 1 : y;
          const xx = score * score * scale;
          const yy = xx + shift - shift;
          sumSquares += yy - xx === -0.5 ? yy + 1 : yy;
        }
      }
    }
    if (moments !== undefined) {
      moments.sum = sum / MOMENT_SCALE;
      moments.sumSquares = sumSquares / MOMENT_SCALE;
    }
    return top.drain();
  }

  /**
   * Cosine of `doc`'s vector with the (unit-length) `query`, or undefined when `doc` has no vector here.
   * O(dim). Recall calls it for a few docs after `search` has checked the same query, so only its type
   * and length are checked here.
   */
  score(doc: number, query: Float32Array): number | undefined {
    const slot = this.#slots.get(doc);
    if (slot === undefined && this.#deferred.length === 0) return undefined;
    if (!(query instanceof Float32Array) || query.length !== this.dim) {
      throw invalidArgument(`VectorIndex.score: the query vector ${checkVector(query, this.dim) ?? "is not usable"}.`);
    }
    if (slot === undefined) {
      const values = queryValues(query);
      for (const source of this.#deferred) {
        const score = source.scoreDeferred(doc, values);
        if (score !== undefined) return score;
      }
      return undefined;
    }
    if (slot < 0) {
      return this.#sparse.score(~slot, queryValues(query));
    }
    const data = this.#data;
    const width = this.#width;
    const dim = this.dim;
    // The scan's sum order (see laneTerms): component i into partial sum i mod 4, the tail into the first,
    // skipping the query's zero components as the scan does (each component is a separate cache line here).
    const end4 = dim - (dim % 4);
    const sums = this.#scoreSums.fill(0);
    const first = this.#first(slot);
    for (let c = 0; c < dim; c++) {
      const q = query[c] as number;
      if (q === 0) continue;
      const lane = c < end4 ? c & 3 : 0;
      sums[lane] = (sums[lane] as number) + (data[first + c * width] as number) * q;
    }
    return (sums[0] as number) + (sums[1] as number) + ((sums[2] as number) + (sums[3] as number));
  }

  /** Index of component 0 of `slot` in `#data`; component `c` is `c · width` further on. */
  #first(slot: number): number {
    const column = slot & (this.#width - 1);
    return (slot - column) * this.dim + column;
  }

  #grow(capacity: number): void {
    const dim = this.dim;
    const count = this.#docs.length;
    const width = Math.min(capacity, BLOCK);
    const old = this.#data;
    const data = new Float32Array(capacity * dim);
    if (width === this.#width) {
      // Whole blocks keep their layout.
      data.set(old);
    } else {
      // Still one block, now wider: every component's run moves (at most BLOCK · dim values).
      const oldWidth = this.#width;
      for (let c = 0; c < dim; c++) {
        for (let s = 0; s < count; s++) data[c * width + s] = old[c * oldWidth + s] as number;
      }
    }
    this.#data = data;
    this.#capacity = capacity;
    this.#width = width;
  }
}

/** A query's terms by lane: lane l's are at [ends[l], ends[l+1]) of `offsets` and `values`. */
interface LaneTerms {
  /** component · width: where the component's run starts in a block */
  offsets: Int32Array;
  values: Float64Array;
  ends: Int32Array;
}

/**
 * The query's non-zero components sorted into the four partial sums `dotAt` (vector-math.ts) uses, in
 * its order: component i goes to sum i mod 4, the tail past the last multiple of 4 to the first, each
 * sum's terms ascending. Skipping zero components does not change a sum. Each lane is padded with zero
 * terms to a multiple of 4, so a pass always takes 8 or 4 terms: a zero term adds ±0, which leaves a
 * sum unchanged too (it starts at +0 and can never become −0), so scores stay bit-identical.
 */
function laneTerms(query: Float32Array, width: number): LaneTerms {
  const dim = query.length;
  const end4 = dim - (dim % 4);
  const ends = new Int32Array(5);
  for (let i = 0; i < dim; i++) {
    if (query[i] === 0) continue;
    const lane = (i < end4 ? i & 3 : 0) + 1;
    ends[lane] = (ends[lane] as number) + 1;
  }
  for (let lane = 1; lane <= 4; lane++) ends[lane] = (ends[lane - 1] as number) + (((ends[lane] as number) + 3) & ~3);
  const total = ends[4] as number;
  const offsets = new Int32Array(total);
  const values = new Float64Array(total);
  const next = ends.slice(0, 4);
  for (let i = 0; i < dim; i++) {
    const value = query[i] as number;
    if (value === 0) continue;
    const lane = i < end4 ? i & 3 : 0;
    const t = next[lane] as number;
    offsets[t] = i * width;
    values[t] = value;
    next[lane] = t + 1;
  }
  // Padding terms read the lane's last real run (already in cache) and add nothing.
  for (let lane = 0; lane < 4; lane++) {
    const filled = next[lane] as number;
    for (let t = filled; t < (ends[lane + 1] as number); t++) offsets[t] = offsets[filled - 1] as number;
  }
  return { offsets, values, ends };
}

/**
 * Adds the terms [from, to) of one lane to the partial sums at `sums[at..at+n)` of the block at `base`,
 * 8 or 4 terms per pass: each pass reads as many contiguous runs and writes the sums once, which
 * measured faster than one term per pass or one doc at a time. The first pass adds onto the zero
 * region at `zeros` instead of the stale sums of the previous block. A term's product and the sum's
 * order (left to right, ascending components) are those of `dotAt`.
 */
function addLane(sums: Float64Array, at: number, zeros: number, data: Float32Array, base: number, n: number, terms: LaneTerms, from: number, to: number): void {
  const { offsets, values } = terms;
  let src = zeros;
  let t = from;
  for (; t + 8 <= to; t += 8) {
    const p0 = base + (offsets[t] as number);
    const p1 = base + (offsets[t + 1] as number);
    const p2 = base + (offsets[t + 2] as number);
    const p3 = base + (offsets[t + 3] as number);
    const p4 = base + (offsets[t + 4] as number);
    const p5 = base + (offsets[t + 5] as number);
    const p6 = base + (offsets[t + 6] as number);
    const p7 = base + (offsets[t + 7] as number);
    const v0 = values[t] as number;
    const v1 = values[t + 1] as number;
    const v2 = values[t + 2] as number;
    const v3 = values[t + 3] as number;
    const v4 = values[t + 4] as number;
    const v5 = values[t + 5] as number;
    const v6 = values[t + 6] as number;
    const v7 = values[t + 7] as number;
    for (let j = 0; j < n; j++) {
      sums[at + j] =
        (sums[src + j] as number) +
        (data[p0 + j] as number) * v0 +
        (data[p1 + j] as number) * v1 +
        (data[p2 + j] as number) * v2 +
        (data[p3 + j] as number) * v3 +
        (data[p4 + j] as number) * v4 +
        (data[p5 + j] as number) * v5 +
        (data[p6 + j] as number) * v6 +
        (data[p7 + j] as number) * v7;
    }
    src = at;
  }
  if (t < to) {
    const p0 = base + (offsets[t] as number);
    const p1 = base + (offsets[t + 1] as number);
    const p2 = base + (offsets[t + 2] as number);
    const p3 = base + (offsets[t + 3] as number);
    const v0 = values[t] as number;
    const v1 = values[t + 1] as number;
    const v2 = values[t + 2] as number;
    const v3 = values[t + 3] as number;
    for (let j = 0; j < n; j++) {
      sums[at + j] =
        (sums[src + j] as number) +
        (data[p0 + j] as number) * v0 +
        (data[p1 + j] as number) * v1 +
        (data[p2 + j] as number) * v2 +
        (data[p3 + j] as number) * v3;
    }
  }
}
