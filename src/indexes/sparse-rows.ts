// The vector index's mostly-zero vectors, kept as (component, value) pairs: a hashing-embedder vector has ~35 non-zero components of 256.

/**
 * Vectors held sparse: each slot's non-zero components (ascending) and their values, in one arena of
 * pairs. A 256-component vector from the hashing embedder has about 35 non-zero components (measured on
 * bench/heap-per-entry.ts's texts), so its pairs take 210 bytes where a dense row takes 1 KiB.
 *
 * Slots are dense: removing moves the last slot's (start, length) into the hole and leaves the removed
 * pairs in the arena as garbage, which is squeezed out once it is half the arena. The arena grows by a
 * quarter, so it holds at most about 25 % of room to grow.
 *
 * Scores are those of the dense layout to the bit ({@link SparseRows.scoreSlot}).
 */
export class SparseRows {
  readonly #dim: number;
  /** slot → doc */
  readonly docs: number[] = [];
  #starts = new Int32Array(0);
  #lengths = new Uint16Array(0);
  #components = new Uint16Array(0);
  #values = new Float32Array(0);
  /** Pairs written to the arena (live and garbage). */
  #used = 0;
  /** Pairs of removed slots still in the arena. */
  #garbage = 0;

  constructor(dim: number) {
    this.#dim = dim;
  }

  get size(): number {
    return this.docs.length;
  }

  /** Appends `vector`'s non-zero components (`count` of them, counted by the caller) as a new slot; returns the slot. */
  add(doc: number, vector: Float32Array, offset: number, count: number): number {
    const slot = this.docs.length;
    if (slot === this.#starts.length) {
      const capacity = Math.max(8, slot + (slot >> 2));
      this.#starts = grown(new Int32Array(capacity), this.#starts);
      this.#lengths = grown(new Uint16Array(capacity), this.#lengths);
    }
    this.#reserve(count);
    const components = this.#components;
    const values = this.#values;
    let at = this.#used;
    this.#starts[slot] = at;
    this.#lengths[slot] = count;
    for (let c = 0, end = this.#dim; c < end; c++) {
      const value = vector[offset + c] as number;
      if (value === 0) continue;
      components[at] = c;
      values[at] = value;
      at++;
    }
    this.#used = at;
    this.docs.push(doc);
    return slot;
  }

  /** Removes `slot`; the last slot moves into it. Returns the doc that moved (or -1 when `slot` was the last). */
  remove(slot: number): number {
    const last = this.docs.length - 1;
    this.#garbage += this.#lengths[slot] as number;
    let moved = -1;
    if (slot !== last) {
      moved = this.docs[last] as number;
      this.docs[slot] = moved;
      this.#starts[slot] = this.#starts[last] as number;
      this.#lengths[slot] = this.#lengths[last] as number;
    }
    this.docs.pop();
    if (this.#garbage > 64 && 2 * this.#garbage > this.#used) this.#compact(0);
    return moved;
  }

  /** Non-zero components of `slot`'s vector. */
  nonZero(slot: number): number {
    return this.#lengths[slot] as number;
  }

  /** True when `slot`'s vector is `vector`, component for component (Object.is: −0 is not 0, and is never held here). */
  equals(slot: number, vector: Float32Array): boolean {
    let k = this.#starts[slot] as number;
    const end = k + (this.#lengths[slot] as number);
    for (let c = 0, dim = this.#dim; c < dim; c++) {
      let expected = 0;
      if (k < end && this.#components[k] === c) expected = this.#values[k++] as number;
      if (!Object.is(vector[c], expected)) return false;
    }
    return true;
  }

  /** Writes `slot`'s vector into `out` (zeroed by the caller) at `offset`. */
  copyInto(slot: number, out: Float32Array, offset: number): void {
    const start = this.#starts[slot] as number;
    const end = start + (this.#lengths[slot] as number);
    for (let k = start; k < end; k++) out[offset + (this.#components[k] as number)] = this.#values[k] as number;
  }

  /**
   * Every slot's dot product with the query into `scores[0..size)`. `query` holds four values per
   * component, `query[4c + l]`, the component's value in the partial sum `l` it belongs to and 0 in
   * the other three ({@link spreadQuery}). The sums are those of the dense layout and of `dotAt`
   * (vector-math.ts) to the bit: component i's product goes to partial sum i mod 4 (the tail past the
   * last multiple of 4 to the first), in ascending order, combined as `s0 + s1 + (s2 + s3)`. The
   * products this adds that those do not (a zero component of the vector, or a partial sum the
   * component is not in) are ±0, and adding ±0 to a sum that starts at +0 changes nothing (such a sum
   * can never become −0); the ones it leaves out (components at zero here) are ±0 too.
   */
  scoreAll(query: Float64Array, scores: Float64Array): void {
    const components = this.#components;
    const values = this.#values;
    const starts = this.#starts;
    const lengths = this.#lengths;
    for (let slot = 0, n = this.docs.length; slot < n; slot++) {
      const start = starts[slot] as number;
      const end = start + (lengths[slot] as number);
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = start; k < end; k++) {
        const at = (components[k] as number) << 2;
        const v = values[k] as number;
        s0 += v * (query[at] as number);
        s1 += v * (query[at + 1] as number);
        s2 += v * (query[at + 2] as number);
        s3 += v * (query[at + 3] as number);
      }
      scores[slot] = s0 + s1 + (s2 + s3);
    }
  }

  /** One slot's score, as {@link scoreAll} gives it. */
  scoreSlot(slot: number, query: Float64Array): number {
    const components = this.#components;
    const values = this.#values;
    const start = this.#starts[slot] as number;
    const end = start + (this.#lengths[slot] as number);
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let k = start; k < end; k++) {
      const at = (components[k] as number) << 2;
      const v = values[k] as number;
      s0 += v * (query[at] as number);
      s1 += v * (query[at + 1] as number);
      s2 += v * (query[at + 2] as number);
      s3 += v * (query[at + 3] as number);
    }
    return s0 + s1 + (s2 + s3);
  }

  /** Shrinks the arrays to what they hold, garbage squeezed out. */
  trim(): void {
    const n = this.docs.length;
    if (this.#starts.length > n) {
      this.#starts = this.#starts.slice(0, n);
      this.#lengths = this.#lengths.slice(0, n);
    }
    if (this.#garbage > 0) this.#compact(0);
    if (this.#components.length > this.#used) {
      this.#components = this.#components.slice(0, this.#used);
      this.#values = this.#values.slice(0, this.#used);
    }
  }

  /** Bytes held by the arrays (for tests and estimates). */
  get byteLength(): number {
    return this.#starts.byteLength + this.#lengths.byteLength + this.#components.byteLength + this.#values.byteLength;
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
      const length = this.#lengths[slot] as number;
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

function grown<T extends Int32Array | Uint16Array | Float32Array>(to: T, from: T): T {
  to.set(from);
  return to;
}

/** {@link spreadQuery}'s array, shared by every index (a scan never runs inside another) and grown to the largest dim seen. */
let spread = new Float64Array(0);

/**
 * `query` as {@link SparseRows.scoreAll} takes it: four values per component, the component's in its
 * partial sum's place. The array is shared: it is valid until the next call.
 */
export function spreadQuery(query: Float32Array): Float64Array {
  const dim = query.length;
  const end4 = dim - (dim % 4);
  if (spread.length < 4 * dim) spread = new Float64Array(4 * dim);
  const out = spread;
  out.fill(0, 0, 4 * dim);
  for (let c = 0; c < dim; c++) out[4 * c + (c < end4 ? c & 3 : 0)] = query[c] as number;
  return out;
}
