// The vector index's mostly-zero vectors at any count: the newest in rows, the rest in inverted blocks.

import { InvertedBlock, MAX_BLOCK_ROWS, queryTerms } from "./inverted-block.ts";
import type { ScoreSink } from "./score-sink.ts";
import { SparseRows, type PairBatch } from "./sparse-rows.ts";

/** Bits of a location code that give the row inside a block (MAX_BLOCK_ROWS = 2^13). */
const ROW_BITS = 13;

/**
 * Sparse vectors kept two ways: the newest (up to `blockRows`) as per-vector pairs ({@link SparseRows}:
 * cheap to add to and remove from, and for a user with few memories all there is), and the rest in
 * {@link InvertedBlock}s of `blockRows` or more, which a search reads by the query's components only.
 * When the rows reach `blockRows` they become one block; when half a block's rows are removed, its live
 * ones go back to the rows. So adds cost O(pairs) each (and a block's build every `blockRows` adds),
 * and blocks are at least half full.
 *
 * Each vector has a location code, a small integer: a row slot below 2^13, else block `id` and row `r`
 * as `(id + 1) · 2^13 + r`. Codes change as vectors move (a slot filling a removed one, rows becoming a
 * block, a block dissolving): `moved(doc, code)` is told each new one.
 *
 * Scores are `dotAt`'s (vector-math.ts) to the bit, in both forms: four partial sums, component `c` into
 * sum `c mod 4` (the tail past the last multiple of 4 into the first), each adding its products in
 * ascending component order, combined as `s0 + s1 + (s2 + s3)`. The terms either form skips are
 * products with a zero, ±0, which leave a sum that starts at +0 unchanged.
 */
export class SparseVectors {
  readonly #dim: number;
  readonly #end4: number;
  readonly #blockRows: number;
  readonly #moved: (doc: number, code: number) => void;
  /** The newest vectors, as pairs. */
  readonly #rows: SparseRows;
  /** By block id; undefined: a free id. */
  readonly #blocks: (InvertedBlock | undefined)[] = [];
  readonly #free: number[] = [];
  /** Live vectors in the blocks. */
  #inBlocks = 0;

  /** `blockRows`: from 1 to 4,096 (the rows become a block at that many: 512 in the vector index; tests pass small ones). */
  constructor(dim: number, blockRows: number, moved: (doc: number, code: number) => void) {
    this.#dim = dim;
    this.#end4 = dim - (dim % 4);
    this.#blockRows = Math.max(1, Math.min(blockRows, MAX_BLOCK_ROWS / 2));
    this.#moved = moved;
    this.#rows = new SparseRows(dim);
  }

  get size(): number {
    return this.#rows.size + this.#inBlocks;
  }

  /** Bytes held by the arrays. */
  get byteLength(): number {
    let bytes = this.#rows.byteLength;
    for (const block of this.#blocks) if (block !== undefined) bytes += block.byteLength;
    return bytes;
  }

  /** Adds the `count` non-zero components of `dim` values of `vector` from `offset`; returns the vector's code. */
  add(doc: number, vector: Float32Array, offset: number, count: number): number {
    const slot = this.#rows.add(doc, vector, offset, count);
    if (this.#rows.size < this.#blockRows) return slot;
    return blockCode(this.#freeze(), slot);
  }

  /** Adds the vector given by its `count` non-zero pairs (see {@link SparseRows.addPairs}); returns its code. */
  addPairs(doc: number, components: Uint8Array | Uint16Array, componentsAt: number, values: Float32Array, valuesAt: number, count: number): number {
    const slot = this.#rows.addPairs(doc, components, componentsAt, values, valuesAt, count);
    if (this.#rows.size < this.#blockRows) return slot;
    return blockCode(this.#freeze(), slot);
  }

  /**
   * Adds vectors `0..n` of `batch`, telling `moved` each one's code. Each whole `blockRows` of the batch becomes a
   * block straight from the batch's pairs, without passing through the rows; the rest go to the rows.
   */
  addBatch(batch: PairBatch, n: number): void {
    const size = this.#blockRows;
    const { docs, components, componentsAt, values, valuesAt, counts } = batch;
    for (let i = 0; i < n;) {
      if (n - i >= size) {
        const id = this.#place(InvertedBlock.fromPairs(batch, i, size, this.#dim));
        for (let s = 0; s < size; s++) this.#moved(docs[i + s] as number, blockCode(id, s));
        i += size;
        continue;
      }
      const doc = docs[i] as number;
      this.#moved(doc, this.addPairs(doc, components, componentsAt[i] as number, values, valuesAt[i] as number, counts[i] as number));
      i++;
    }
  }

  /** Removes the vector at `code`. */
  remove(code: number): void {
    if (code < MAX_BLOCK_ROWS) {
      const moved = this.#rows.remove(code);
      if (moved >= 0) this.#moved(moved, code);
      return;
    }
    const block = this.#block(code);
    const row = code & (MAX_BLOCK_ROWS - 1);
    block.remove(row);
    this.#inBlocks--;
    if (2 * block.dead > block.length) this.#dissolve((code >> ROW_BITS) - 1);
  }

  nonZero(code: number): number {
    if (code < MAX_BLOCK_ROWS) return this.#rows.nonZero(code);
    return this.#block(code).counts[code & (MAX_BLOCK_ROWS - 1)] as number;
  }

  /** True when the vector at `code` is `vector`, component for component (Object.is: a −0 in `vector` is not the 0 held here). */
  equals(code: number, vector: Float32Array): boolean {
    if (code < MAX_BLOCK_ROWS) return this.#rows.equals(code, vector);
    return this.#block(code).rowEquals(code & (MAX_BLOCK_ROWS - 1), vector);
  }

  /** Writes the vector at `code` into `out` (zeroed by the caller) at `offset`. */
  copyInto(code: number, out: Float32Array, offset: number): void {
    if (code < MAX_BLOCK_ROWS) {
      this.#rows.copyInto(code, out, offset);
      return;
    }
    const block = this.#block(code);
    const row = code & (MAX_BLOCK_ROWS - 1);
    let left = block.counts[row] as number;
    for (let c = 0, dim = this.#dim; c < dim && left > 0; c++) {
      const value = block.valueAt(c, row);
      if (value === 0) continue;
      out[offset + c] = value;
      left--;
    }
  }

  /** The score of the vector at `code` against `query` (its components as doubles, see `queryValues`). */
  score(code: number, query: Float64Array): number {
    if (code < MAX_BLOCK_ROWS) return this.#rows.scoreSlot(code, query);
    const block = this.#block(code);
    const row = code & (MAX_BLOCK_ROWS - 1);
    const end4 = this.#end4;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let c = 0, dim = this.#dim; c < dim; c++) {
      const q = query[c] as number;
      if (q === 0) continue;
      const value = block.valueAt(c, row);
      if (value === 0) continue;
      const term = value * q;
      const lane = c < end4 ? c & 3 : 0;
      if (lane === 0) s0 += term;
      else if (lane === 1) s1 += term;
      else if (lane === 2) s2 += term;
      else s3 += term;
    }
    return s0 + s1 + (s2 + s3);
  }

  /**
   * Offers `sink` every vector scoring above 0 against `query` (`values`: its components
   * as doubles, see `queryValues`), in no particular order.
   */
  scan(query: Float32Array, values: Float64Array, sink: ScoreSink): void {
    const rows = this.#rows;
    if (rows.size > 0) {
      // Scratch made per search rather than kept: an index per user would keep it for every user loaded.
      const scores = new Float64Array(rows.size);
      rows.scoreAll(values, scores);
      const docs = rows.docs;
      for (let s = 0, n = rows.size; s < n; s++) {
        const score = scores[s] as number;
        if (score > 0) sink.offer(docs[s] as number, score);
      }
    }
    if (this.#inBlocks === 0) return;
    const terms = queryTerms(query, this.#end4);
    if (sums.length < 4 * MAX_BLOCK_ROWS) sums = new Float64Array(4 * MAX_BLOCK_ROWS);
    for (const block of this.#blocks) if (block !== undefined && block.dead < block.length) block.scan(terms, sums, sink);
  }

  /** Gives back the rows' room to grow (blocks have none). */
  trim(): void {
    this.#rows.trim();
  }

  #block(code: number): InvertedBlock {
    const block = this.#blocks[(code >> ROW_BITS) - 1];
    if (block === undefined) throw new Error(`internal: sparse vector code ${code} names no block`);
    return block;
  }

  /** Makes the rows a block; returns its id. */
  #freeze(): number {
    const rows = this.#rows;
    const id = this.#place(InvertedBlock.fromRows(rows, this.#dim));
    const docs = rows.docs;
    for (let s = 0, n = docs.length; s < n; s++) this.#moved(docs[s] as number, blockCode(id, s));
    rows.clear();
    return id;
  }

  /** Keeps `block` under a free id; returns the id. */
  #place(block: InvertedBlock): number {
    const id = this.#free.pop() ?? this.#blocks.length;
    this.#blocks[id] = block;
    this.#inBlocks += block.length;
    return id;
  }

  /** Moves block `id`'s live vectors back to the rows and frees the id (the rows become a block again once they are enough). */
  #dissolve(id: number): void {
    const block = this.#blocks[id] as InvertedBlock;
    this.#blocks[id] = undefined;
    this.#free.push(id);
    this.#inBlocks -= block.length - block.dead;
    const { order, ends, components, values } = block.liveRows();
    const rows = this.#rows;
    for (let i = 0, from = 0; i < order.length; i++) {
      const doc = block.docs[order[i] as number] as number;
      const to = ends[i] as number;
      this.#moved(doc, rows.addPairs(doc, components, from, values, from, to - from));
      from = to;
    }
    if (rows.size >= this.#blockRows) this.#freeze();
  }
}

function blockCode(id: number, row: number): number {
  return ((id + 1) << ROW_BITS) | row;
}

/** The four partial sums of a block's rows, side by side (InvertedBlock.scan), shared: a scan never runs inside another. */
let sums = new Float64Array(0);
