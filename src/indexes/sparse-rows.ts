// The vector index's mostly-zero vectors, kept as (component, value) pairs: a hashing-embedder vector has ~35 non-zero components of 256.

/**
 * Vectors held sparse: each slot's non-zero components and their values, in one arena of pairs. A
 * 256-component vector from the hashing embedder has about 35 non-zero components (measured on
 * bench/heap-per-entry.ts's texts), so its pairs take 210 bytes where a dense row takes 1 KiB.
 *
 * A slot's pairs are grouped by the partial sum their component goes to (component i to sum i mod 4,
 * the tail past the last multiple of 4 to the first: `dotAt`'s order, vector-math.ts), ascending inside
 * each group, so a score is four plain loops that add in the dense layout's order
 * ({@link SparseRows.scoreAll}). `ends` holds, per slot, where each group ends.
 *
 * Slots are dense: removing moves the last slot's pairs' place into the hole and leaves the removed
 * pairs in the arena as garbage, which is squeezed out once it is half the arena. The arena grows by a
 * quarter, so it holds at most about 25 % of room to grow ({@link trim} gives it back).
 */
export class SparseRows {
  readonly #dim: number;
  /** Components below this go to partial sum `c & 3`; the rest (the tail) to the first. */
  readonly #end4: number;
  /** slot → doc */
  readonly docs: number[] = [];
  /** slot → its first pair in the arena */
  #starts = new Int32Array(0);
  /** slot → where its groups end, four per slot, counted from its first pair (the last one is its length) */
  #ends = new Uint16Array(0);
  #components = new Uint16Array(0);
  #values = new Float32Array(0);
  /** Pairs written to the arena (live and garbage). */
  #used = 0;
  /** Pairs of removed slots still in the arena. */
  #garbage = 0;

  /** `dim` at most 65,536 (components are Uint16), and a vector kept here has at most 65,535 non-zero components. */
  constructor(dim: number) {
    this.#dim = dim;
    this.#end4 = dim - (dim % 4);
  }

  get size(): number {
    return this.docs.length;
  }

  /** Appends the non-zero components of `dim` values of `vector` from `offset` (`count` of them, counted by the caller) as a new slot; returns the slot. */
  add(doc: number, vector: Float32Array, offset: number, count: number): number {
    const slot = this.#nextSlot();
    this.#reserve(count);
    const components = this.#components;
    const values = this.#values;
    const dim = this.#dim;
    const end4 = this.#end4;
    const first = this.#used;
    let at = first;
    for (let lane = 0; lane < 4; lane++) {
      for (let c = lane; c < end4; c += 4) {
        const value = vector[offset + c] as number;
        if (value === 0) continue;
        components[at] = c;
        values[at++] = value;
      }
      if (lane === 0) {
        for (let c = end4; c < dim; c++) {
          const value = vector[offset + c] as number;
          if (value === 0) continue;
          components[at] = c;
          values[at++] = value;
        }
      }
      this.#ends[4 * slot + lane] = at - first;
    }
    this.#starts[slot] = first;
    this.#used = at;
    this.docs.push(doc);
    return slot;
  }

  /**
   * Appends a vector given by its `count` non-zero pairs, components ascending in `components` from
   * `componentsAt` and their values in `values` from `valuesAt`, as a new slot; returns the slot. The
   * same slot as {@link add} makes of that vector.
   */
  addPairs(doc: number, components: Uint8Array | Uint16Array, componentsAt: number, values: Float32Array, valuesAt: number, count: number): number {
    const slot = this.#nextSlot();
    this.#reserve(count);
    const end4 = this.#end4;
    const first = this.#used;
    // A counting sort by partial sum (no branch on which one: they come at random), stable, so each
    // group stays ascending.
    const next = laneScratch.fill(0);
    for (let k = 0; k < count; k++) {
      const c = components[componentsAt + k] as number;
      const lane = c < end4 ? c & 3 : 0;
      next[lane] = (next[lane] as number) + 1;
    }
    const ends = this.#ends;
    let at = first;
    for (let lane = 0; lane < 4; lane++) {
      const n = next[lane] as number;
      next[lane] = at;
      at += n;
      ends[4 * slot + lane] = at - first;
    }
    const into = this.#components;
    const intoValues = this.#values;
    for (let k = 0; k < count; k++) {
      const c = components[componentsAt + k] as number;
      const lane = c < end4 ? c & 3 : 0;
      const p = next[lane] as number;
      into[p] = c;
      intoValues[p] = values[valuesAt + k] as number;
      next[lane] = p + 1;
    }
    this.#starts[slot] = first;
    this.#used = at;
    this.docs.push(doc);
    return slot;
  }

  /** The slot the next vector takes, with room for its start and group ends (grown by a quarter). */
  #nextSlot(): number {
    const slot = this.docs.length;
    if (slot === this.#starts.length) {
      const capacity = Math.max(8, slot + (slot >> 2));
      this.#starts = grown(new Int32Array(capacity), this.#starts);
      this.#ends = grown(new Uint16Array(4 * capacity), this.#ends);
    }
    return slot;
  }

  /** Drops every slot, keeping the arrays' room (the vector index empties its tail into a block and fills it again). */
  clear(): void {
    this.docs.length = 0;
    this.#used = 0;
    this.#garbage = 0;
  }

  /** Where `slot`'s pairs start in {@link components} and {@link values}; {@link nonZero} of them. */
  start(slot: number): number {
    return this.#starts[slot] as number;
  }

  /** The arena's components (valid until the next add or remove). */
  get components(): Uint16Array {
    return this.#components;
  }

  /** The arena's values (valid until the next add or remove). */
  get values(): Float32Array {
    return this.#values;
  }

  /** Removes `slot`; the last slot moves into it. Returns the doc that moved (or -1 when `slot` was the last). */
  remove(slot: number): number {
    const last = this.docs.length - 1;
    this.#garbage += this.nonZero(slot);
    let moved = -1;
    if (slot !== last) {
      moved = this.docs[last] as number;
      this.docs[slot] = moved;
      this.#starts[slot] = this.#starts[last] as number;
      this.#ends.copyWithin(4 * slot, 4 * last, 4 * last + 4);
    }
    this.docs.pop();
    if (this.#garbage > 64 && 2 * this.#garbage > this.#used) this.#compact(0);
    return moved;
  }

  /** Non-zero components of `slot`'s vector. */
  nonZero(slot: number): number {
    return this.#ends[4 * slot + 3] as number;
  }

  /** True when `slot`'s vector is `vector`, component for component (Object.is: a −0 in `vector` is not the 0 held here). */
  equals(slot: number, vector: Float32Array): boolean {
    const start = this.#starts[slot] as number;
    const end = start + this.nonZero(slot);
    let nonZero = 0;
    for (let c = 0, dim = this.#dim; c < dim; c++) {
      const value = vector[c] as number;
      if (value !== 0) nonZero++;
      else if (Object.is(value, -0)) return false;
    }
    if (nonZero !== end - start) return false;
    for (let k = start; k < end; k++) if (vector[this.#components[k] as number] !== this.#values[k]) return false;
    return true;
  }

  /** Writes `slot`'s vector into `out` (zeroed by the caller) at `offset`. */
  copyInto(slot: number, out: Float32Array, offset: number): void {
    const start = this.#starts[slot] as number;
    const end = start + this.nonZero(slot);
    for (let k = start; k < end; k++) out[offset + (this.#components[k] as number)] = this.#values[k] as number;
  }

  /**
   * Every slot's dot product with `query` (its components as doubles) into `scores[0..size)`. The
   * sums are those of the dense layout and of `dotAt` (vector-math.ts) to the bit: four partial sums,
   * each adding its components' products in ascending order, combined as `s0 + s1 + (s2 + s3)`. The
   * products those add and this leaves out (components at zero here) are ±0, and the ones this adds
   * and they leave out (components at zero in the query) are ±0 too: adding ±0 to a sum that starts at
   * +0 changes nothing (such a sum can never become −0).
   */
  scoreAll(query: Float64Array, scores: Float64Array): void {
    const components = this.#components;
    const values = this.#values;
    const ends = this.#ends;
    const starts = this.#starts;
    for (let slot = 0, n = this.docs.length; slot < n; slot++) {
      const start = starts[slot] as number;
      const e0 = start + (ends[4 * slot] as number);
      const e1 = start + (ends[4 * slot + 1] as number);
      const e2 = start + (ends[4 * slot + 2] as number);
      const e3 = start + (ends[4 * slot + 3] as number);
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let k = start;
      for (; k < e0; k++) s0 += (values[k] as number) * (query[components[k] as number] as number);
      for (; k < e1; k++) s1 += (values[k] as number) * (query[components[k] as number] as number);
      for (; k < e2; k++) s2 += (values[k] as number) * (query[components[k] as number] as number);
      for (; k < e3; k++) s3 += (values[k] as number) * (query[components[k] as number] as number);
      scores[slot] = s0 + s1 + (s2 + s3);
    }
  }

  /** One slot's score, as {@link scoreAll} gives it. */
  scoreSlot(slot: number, query: Float64Array): number {
    const components = this.#components;
    const values = this.#values;
    const ends = this.#ends;
    const start = this.#starts[slot] as number;
    const e0 = start + (ends[4 * slot] as number);
    const e1 = start + (ends[4 * slot + 1] as number);
    const e2 = start + (ends[4 * slot + 2] as number);
    const e3 = start + (ends[4 * slot + 3] as number);
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let k = start;
    for (; k < e0; k++) s0 += (values[k] as number) * (query[components[k] as number] as number);
    for (; k < e1; k++) s1 += (values[k] as number) * (query[components[k] as number] as number);
    for (; k < e2; k++) s2 += (values[k] as number) * (query[components[k] as number] as number);
    for (; k < e3; k++) s3 += (values[k] as number) * (query[components[k] as number] as number);
    return s0 + s1 + (s2 + s3);
  }

  /** Shrinks the arrays to what they hold, garbage squeezed out. */
  trim(): void {
    const n = this.docs.length;
    if (this.#starts.length > n) {
      this.#starts = this.#starts.slice(0, n);
      this.#ends = this.#ends.slice(0, 4 * n);
    }
    if (this.#garbage > 0) this.#compact(0);
    if (this.#components.length > this.#used) {
      this.#components = this.#components.slice(0, this.#used);
      this.#values = this.#values.slice(0, this.#used);
    }
  }

  /** Bytes held by the arrays (for tests and estimates). */
  get byteLength(): number {
    return this.#starts.byteLength + this.#ends.byteLength + this.#components.byteLength + this.#values.byteLength;
  }

  /** Room for `count` more pairs: squeezes the garbage out when that makes room, otherwise grows by a quarter. */
  #reserve(count: number): void {
    const need = this.#used + count;
    if (need <= this.#components.length) return;
    if (this.#garbage > 0 && need - this.#garbage <= this.#components.length) {
      this.#compact(count);
      return;
    }
    const capacity = Math.max(need, this.#components.length + (this.#components.length >> 2), 64);
    this.#components = grown(new Uint16Array(capacity), this.#components.subarray(0, this.#used));
    this.#values = grown(new Float32Array(capacity), this.#values.subarray(0, this.#used));
  }

  /** Rewrites the arena with the live slots only (in slot order), with room for `extra` more pairs. */
  #compact(extra: number): void {
    const live = this.#used - this.#garbage;
    const capacity = Math.max(live + extra, live + (live >> 2));
    const components = new Uint16Array(capacity);
    const values = new Float32Array(capacity);
    let at = 0;
    for (let slot = 0; slot < this.docs.length; slot++) {
      const start = this.#starts[slot] as number;
      const length = this.nonZero(slot);
      components.set(this.#components.subarray(start, start + length), at);
      values.set(this.#values.subarray(start, start + length), at);
      this.#starts[slot] = at;
      at += length;
    }
    this.#components = components;
    this.#values = values;
    this.#used = at;
    this.#garbage = 0;
  }
}

/**
 * Sparse vectors given by their non-zero pairs where they are stored (a section's block, or {@link SparseRows}'
 * arena): vector i, of doc `docs[i]`, has `counts[i]` pairs, its components from `componentsAt[i]` in `components`
 * and their values from `valuesAt[i]` in `values`.
 */
export interface PairBatch {
  readonly docs: ArrayLike<number>;
  readonly components: Uint8Array | Uint16Array;
  readonly componentsAt: Int32Array;
  readonly values: Float32Array;
  readonly valuesAt: Int32Array;
  readonly counts: Int32Array;
}

/** {@link SparseRows.addPairs}'s counts per partial sum, shared. */
const laneScratch = new Int32Array(4);

function grown<T extends Int32Array | Uint16Array | Float32Array>(to: T, from: T): T {
  to.set(from);
  return to;
}

/** {@link queryValues}'s array, shared by every index (a scan never runs inside another) and grown to the largest dim seen. */
let shared = new Float64Array(0);

/** `query`'s components as doubles, as {@link SparseRows.scoreAll} takes them. The array is shared: it is valid until the next call. */
export function queryValues(query: Float32Array): Float64Array {
  const dim = query.length;
  if (shared.length < dim) shared = new Float64Array(dim);
  for (let c = 0; c < dim; c++) shared[c] = query[c] as number;
  return shared;
}
