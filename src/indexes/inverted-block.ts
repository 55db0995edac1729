// A frozen batch of the vector index's mostly-zero vectors, stored inverted: per component, the rows that use it and their values.

import { INTEGER_SHIFT, MOMENT_SCALE, type ScoreSink } from "./score-sink.ts";
import type { PairBatch, SparseRows } from "./sparse-rows.ts";

/**
 * Most rows a block holds: rows are Uint16 inside a block, and the vector index's location codes keep
 * 13 bits for them (src/indexes/sparse-vectors.ts).
 */
export const MAX_BLOCK_ROWS = 8192;

/**
 * Up to {@link MAX_BLOCK_ROWS} sparse vectors, inverted: component `c`'s postings are
 * `[starts[c], starts[c + 1])` of `rows` (ascending) and `values`. A query walks only the postings of
 * its own non-zero components, so its cost follows the pairs it shares with the vectors, not their
 * number: about 35 of 256 components set per vector and per query make it about a seventh of what a
 * scan of every vector's pairs reads (docs/design.md, "Vector index").
 *
 * A component set in more than two thirds of the rows (a hashing embedder's bucket of a common word or
 * n-gram) is kept as a column instead, one value per row, zeros included: no larger than its postings
 * (4 bytes a row against 6 a posting), and a query adds it in one streaming pass rather than scattered.
 *
 * A block is built once, in exact-size arrays, and never grows: removing a row marks it dead (its doc
 * becomes −1, its values 0); the owner dissolves a block once half its rows are dead
 * (src/indexes/sparse-vectors.ts). 6 bytes per pair plus 10 per row, where {@link SparseRows} takes 6
 * per pair plus 12 per row and a dense row 4 per component.
 */
export class InvertedBlock {
  /** row → doc (−1: removed) */
  readonly docs: Float64Array;
  /** row → its non-zero components */
  readonly counts: Uint16Array;
  /** component → its first posting; `starts[dim]` is the number of postings */
  readonly starts: Int32Array;
  readonly rows: Uint16Array;
  readonly values: Float32Array;
  /** component → its column in `columns` (−1: it has postings instead) */
  readonly column: Int16Array;
  /** The columns, each `length` values (row r of column k at k · length + r). */
  readonly columns: Float32Array;
  /** Rows removed since the block was built. */
  dead = 0;
  /**
   * Where the last lookups stopped per component, for rows at or after `#cursorRow` (null until the
   * first lookup): reading many rows in order (a loaded user's records checked against the index, an
   * export) then costs one step per pair instead of a binary search.
   */
  #cursor: Int32Array | null = null;
  #cursorRow = 0;

  constructor(docs: Float64Array, counts: Uint16Array, starts: Int32Array, rows: Uint16Array, values: Float32Array, column: Int16Array, columns: Float32Array) {
    this.docs = docs;
    this.counts = counts;
    this.starts = starts;
    this.rows = rows;
    this.values = values;
    this.column = column;
    this.columns = columns;
  }

  /** Rows held, dead ones included. */
  get length(): number {
    return this.docs.length;
  }

  get byteLength(): number {
    return (
      this.docs.byteLength +
      this.counts.byteLength +
      this.starts.byteLength +
      this.rows.byteLength +
      this.values.byteLength +
      this.column.byteLength +
      this.columns.byteLength +
      (this.#cursor === null ? 0 : this.#cursor.byteLength)
    );
  }

  /** Every slot of `tail` as a block (slot s as row s): {@link fromPairs} of its slots' pairs. */
  static fromRows(tail: SparseRows, dim: number): InvertedBlock {
    const n = tail.size;
    const at = new Int32Array(n);
    const counts = new Int32Array(n);
    for (let s = 0; s < n; s++) {
      at[s] = tail.start(s);
      counts[s] = tail.nonZero(s);
    }
    return InvertedBlock.fromPairs({ docs: tail.docs, components: tail.components, componentsAt: at, values: tail.values, valuesAt: at, counts }, 0, n, dim);
  }

  /**
   * Vectors `first`..`first + n` of `batch` as a block (vector `first + s` as row s; its pairs in any order, each
   * component once). O(pairs + dim): one pass counts each component's postings, one fills them, so every array is
   * allocated once, at its size.
   */
  static fromPairs(batch: PairBatch, first: number, n: number, dim: number): InvertedBlock {
    const { docs, components, componentsAt, values, valuesAt, counts } = batch;
    const starts = new Int32Array(dim + 1);
    for (let s = 0; s < n; s++) {
      for (let k = componentsAt[first + s] as number, end = k + (counts[first + s] as number); k < end; k++) {
        const at = (components[k] as number) + 1;
        starts[at] = (starts[at] as number) + 1;
      }
    }
    // Components set in more than two thirds of the rows become columns; the others keep postings.
    const column = new Int16Array(dim).fill(-1);
    let hot = 0;
    for (let c = 0; c < dim; c++) {
      const count = starts[c + 1] as number;
      if (3 * count > 2 * n) {
        column[c] = hot++;
        starts[c + 1] = 0;
      }
      starts[c + 1] = (starts[c + 1] as number) + (starts[c] as number);
    }
    const columns = new Float32Array(hot * n);
    const total = starts[dim] as number;
    const rows = new Uint16Array(total);
    const postings = new Float32Array(total);
    const next = starts.slice(0, dim);
    const rowDocs = new Float64Array(n);
    const rowCounts = new Uint16Array(n);
    for (let s = 0; s < n; s++) {
      rowDocs[s] = docs[first + s] as number;
      const count = counts[first + s] as number;
      rowCounts[s] = count;
      for (let k = componentsAt[first + s] as number, v = valuesAt[first + s] as number, end = k + count; k < end; k++, v++) {
        const c = components[k] as number;
        const col = column[c] as number;
        if (col >= 0) {
          columns[col * n + s] = values[v] as number;
          continue;
        }
        const p = next[c] as number;
        rows[p] = s;
        postings[p] = values[v] as number;
        next[c] = p + 1;
      }
    }
    return new InvertedBlock(rowDocs, rowCounts, starts, rows, postings, column, columns);
  }

  /**
   * The live rows' pairs, row by row (in row order), components ascending inside a row: `ends[i]` is
   * where live row `order[i]`'s pairs end in `components`/`values`. For dissolving the block.
   */
  liveRows(): { order: Int32Array; ends: Int32Array; components: Uint16Array; values: Float32Array } {
    const n = this.length;
    const docs = this.docs;
    const counts = this.counts;
    // Where each live row's pairs start (−1: dead).
    const at = new Int32Array(n);
    const order = new Int32Array(n - this.dead);
    const ends = new Int32Array(n - this.dead);
    let total = 0;
    let live = 0;
    for (let r = 0; r < n; r++) {
      if ((docs[r] as number) < 0) {
        at[r] = -1;
        continue;
      }
      at[r] = total;
      total += counts[r] as number;
      order[live] = r;
      ends[live++] = total;
    }
    const components = new Uint16Array(total);
    const values = new Float32Array(total);
    const rows = this.rows;
    const postings = this.values;
    for (let c = 0, dim = this.starts.length - 1; c < dim; c++) {
      const col = this.column[c] as number;
      if (col >= 0) {
        for (let r = 0, from = col * n; r < n; r++) {
          const value = this.columns[from + r] as number;
          const k = at[r] as number;
          if (value === 0 || k < 0) continue;
          components[k] = c;
          values[k] = value;
          at[r] = k + 1;
        }
        continue;
      }
      for (let p = this.starts[c] as number, end = this.starts[c + 1] as number; p < end; p++) {
        const r = rows[p] as number;
        const k = at[r] as number;
        if (k < 0) continue;
        components[k] = c;
        values[k] = postings[p] as number;
        at[r] = k + 1;
      }
    }
    return { order, ends, components, values };
  }

  /**
   * True when `row` holds `vector` (`count` non-zero components), component for component; a −0 in
   * `vector` is not the 0 held here. One pass over `vector`, each non-zero component looked up from the
   * cursor (rows checked in order, as a loaded user's records are, cost a step or two each).
   */
  rowEquals(row: number, vector: Float32Array): boolean {
    const count = this.counts[row] as number;
    const cursor = this.#cursorFor(row);
    const { starts, rows, values, column, columns } = this;
    const n = this.docs.length;
    let seen = 0;
    for (let c = 0, dim = column.length; c < dim; c++) {
      const value = vector[c] as number;
      if (value === 0) {
        if (Object.is(value, -0)) return false;
        continue;
      }
      if (++seen > count) return false;
      const col = column[c] as number;
      if (col >= 0) {
        if (columns[col * n + row] !== value) return false;
        continue;
      }
      const end = starts[c + 1] as number;
      let p = cursor[c] as number;
      while (p < end && (rows[p] as number) < row) p++;
      cursor[c] = p;
      if (p === end || rows[p] !== row || values[p] !== value) return false;
    }
    return seen === count;
  }

  /** The cursor, reset to each component's first posting unless the last lookup was for `row` or an earlier one; records `row`. */
  #cursorFor(row: number): Int32Array {
    let cursor = this.#cursor;
    if (cursor === null || row < this.#cursorRow) {
      if (cursor === null) cursor = this.#cursor = new Int32Array(this.starts.length - 1);
      cursor.set(this.starts.subarray(0, cursor.length));
    }
    this.#cursorRow = row;
    return cursor;
  }

  /** `row`'s value of component `c` (0 when it has none: the values held are never ±0). */
  valueAt(c: number, row: number): number {
    const col = this.column[c] as number;
    if (col >= 0) return this.columns[col * this.docs.length + row] as number;
    const p = this.#find(c, row);
    return p < 0 ? 0 : (this.values[p] as number);
  }

  /** Where `row`'s posting of component `c` is, or −1 when `row` has none there. */
  #find(c: number, row: number): number {
    const starts = this.starts;
    const cursor = this.#cursorFor(row);
    const rows = this.rows;
    const end = starts[c + 1] as number;
    let lo = cursor[c] as number;
    // A few steps forward (rows read in order), else a binary search.
    for (let step = 0; step < 8 && lo < end && (rows[lo] as number) < row; step++) lo++;
    if (lo < end && (rows[lo] as number) < row) {
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((rows[mid] as number) < row) lo = mid + 1;
        else hi = mid;
      }
    }
    cursor[c] = lo;
    return lo < end && rows[lo] === row ? lo : -1;
  }

  /**
   * Offers `sink` every live row scoring above 0 against the query `terms`. Each term
   * adds its products to the rows' partial sums (`acc`, four runs of `length`, zero on entry and on
   * return), terms in ascending component order, so each sum adds in `dotAt`'s order (vector-math.ts).
   */
  scan(terms: QueryTerms, acc: Float64Array, sink: ScoreSink): void {
    const n = this.docs.length;
    const { starts, rows, values, column, columns } = this;
    const { components, values: weights, lanes } = terms;
    for (let t = 0; t < components.length; t++) {
      const c = components[t] as number;
      const q = weights[t] as number;
      const base = (lanes[t] as number) * n;
      const col = column[c] as number;
      if (col >= 0) {
        for (let r = 0, from = col * n; r < n; r++) acc[base + r] = (acc[base + r] as number) + (columns[from + r] as number) * q;
        continue;
      }
      for (let p = starts[c] as number, end = starts[c + 1] as number; p < end; p++) {
        const i = base + (rows[p] as number);
        acc[i] = (acc[i] as number) + (values[p] as number) * q;
      }
    }
    const docs = this.docs;
    const n2 = 2 * n;
    const n3 = 3 * n;
    const top = sink.top;
    // Only a score reaching the top k's floor is offered (most are not, once k are kept). Removed rows
    // hold only zeros (`remove`), so they score 0 and add nothing.
    let floor = Math.max(top.floor, Number.MIN_VALUE);
    let sum = sink.sum;
    let sumSquares = sink.sumSquares;
    const scale = MOMENT_SCALE;
    const shift = INTEGER_SHIFT;
    for (let r = 0; r < n; r++) {
      const score = (acc[r] as number) + (acc[n + r] as number) + ((acc[n2 + r] as number) + (acc[n3 + r] as number));
      acc[r] = 0;
      acc[n + r] = 0;
      acc[n2 + r] = 0;
      acc[n3 + r] = 0;
      if (score > 0) {
        // roundHalfUp (score-sink.ts) written out: a call to it or to Math.round here made the scan 3–4× slower.
        const x = score * scale;
        const y = x + shift - shift;
        sum += y - x === -0.5 ? y + 1 : y;
        const xx = score * score * scale;
        const yy = xx + shift - shift;
        sumSquares += yy - xx === -0.5 ? yy + 1 : yy;
        if (score >= floor) {
          top.offer(docs[r] as number, score);
          floor = Math.max(top.floor, Number.MIN_VALUE);
        }
      }
    }
    sink.sum = sum;
    sink.sumSquares = sumSquares;
  }

  /** Removes `row`: its doc becomes −1 and its values 0, so it scores 0 until the block is dissolved. O(dim). */
  remove(row: number): void {
    this.docs[row] = -1;
    this.dead++;
    const n = this.docs.length;
    let left = this.counts[row] as number;
    for (let c = 0, dim = this.column.length; c < dim && left > 0; c++) {
      const col = this.column[c] as number;
      if (col >= 0) {
        if (this.columns[col * n + row] !== 0) {
          this.columns[col * n + row] = 0;
          left--;
        }
        continue;
      }
      const p = this.#find(c, row);
      if (p >= 0) {
        this.values[p] = 0;
        left--;
      }
    }
  }
}

/** A query's non-zero components ascending, with their values as doubles and the partial sum each goes to. */
export interface QueryTerms {
  components: Int32Array;
  values: Float64Array;
  lanes: Int32Array;
}

/** `query`'s terms for {@link InvertedBlock.scan}: component c goes to sum c mod 4, the tail past `end4` to the first. */
export function queryTerms(query: Float32Array, end4: number): QueryTerms {
  let n = 0;
  for (let c = 0; c < query.length; c++) if (query[c] !== 0) n++;
  const components = new Int32Array(n);
  const values = new Float64Array(n);
  const lanes = new Int32Array(n);
  for (let c = 0, t = 0; c < query.length; c++) {
    const q = query[c] as number;
    if (q === 0) continue;
    components[t] = c;
    values[t] = q;
    lanes[t++] = c < end4 ? c & 3 : 0;
  }
  return { components, values, lanes };
}
