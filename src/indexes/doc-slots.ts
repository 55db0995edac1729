// Document number → slot for the BM25 layout: a hash table in two typed arrays, with no object per document.

/** The table never holds more than 1 / LOAD of its capacity… */
const LOAD = 2;
/** …nor, once past MIN_CAPACITY, less than 1 / SHRINK of it (it halves then). */
const SHRINK = 8;
const MIN_CAPACITY = 16;
/** Marks a free place: documents are non-negative. */
const FREE = -1;

/**
 * Maps a document (a non-negative safe integer: an entry's seq) to its slot in a Bm25Layout, as a Map
 * would, in open addressing with linear probing and Fibonacci hashing over a Float64Array of documents
 * and an Int32Array of slots. A build of 100,000 documents puts them in about a millisecond, where a
 * Map took ~10-25 ms, a hashed entry of its own each (docs/decisions.md, "BM25 in typed arrays").
 * A removal shifts the entries after it back (no tombstones), so a lookup never walks past a free place.
 */
export class DocSlots {
  #docs = new Float64Array(MIN_CAPACITY).fill(FREE);
  #slots = new Int32Array(MIN_CAPACITY);
  /** 32 − log2(capacity): the top bits of the product are the home place. */
  #shift = 32 - Math.log2(MIN_CAPACITY);
  #size = 0;

  /** Documents held. */
  get size(): number {
    return this.#size;
  }

  /** The slot of `doc`, or undefined. */
  get(doc: number): number | undefined {
    const at = this.#find(doc);
    return at < 0 ? undefined : this.#slots[at];
  }

  has(doc: number): boolean {
    return this.#find(doc) >= 0;
  }

  /** Sets the slot of `doc`, new or not. */
  set(doc: number, slot: number): void {
    if (LOAD * (this.#size + 1) > this.#docs.length) this.#rehash(2 * this.#docs.length);
    const docs = this.#docs;
    const mask = docs.length - 1;
    let at = this.#home(doc);
    for (;;) {
      const held = docs[at] as number;
      if (held === doc) break;
      if (held === FREE) {
        docs[at] = doc;
        this.#size++;
        break;
      }
      at = (at + 1) & mask;
    }
    this.#slots[at] = slot;
  }

  /** Removes `doc`; false when it was not there. */
  delete(doc: number): boolean {
    let hole = this.#find(doc);
    if (hole < 0) return false;
    const docs = this.#docs;
    const slots = this.#slots;
    const mask = docs.length - 1;
    // Move back each later entry of the run whose home is not between the hole and it (cyclically).
    for (let at = (hole + 1) & mask; docs[at] !== FREE; at = (at + 1) & mask) {
      const home = this.#home(docs[at] as number);
      if (((at - home) & mask) >= ((at - hole) & mask)) {
        docs[hole] = docs[at] as number;
        slots[hole] = slots[at] as number;
        hole = at;
      }
    }
    docs[hole] = FREE;
    this.#size--;
    if (docs.length > MIN_CAPACITY && SHRINK * this.#size < docs.length) this.#rehash(docs.length >> 1);
    return true;
  }

  /** Bytes of the two arrays. */
  get byteLength(): number {
    return this.#docs.byteLength + this.#slots.byteLength;
  }

  #find(doc: number): number {
    const docs = this.#docs;
    const mask = docs.length - 1;
    for (let at = this.#home(doc); ; at = (at + 1) & mask) {
      const held = docs[at] as number;
      if (held === doc) return at;
      if (held === FREE) return -1;
    }
  }

  /** Where `doc` would sit with no collision: its low and high 32 bits mixed, then multiplied by 2³² / φ. */
  #home(doc: number): number {
    const high = Math.floor(doc / 0x100000000);
    return Math.imul((doc >>> 0) ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1) >>> this.#shift;
  }

  #rehash(capacity: number): void {
    const docs = this.#docs;
    const slots = this.#slots;
    const next = new Float64Array(capacity).fill(FREE);
    const nextSlots = new Int32Array(capacity);
    const mask = capacity - 1;
    this.#docs = next;
    this.#slots = nextSlots;
    this.#shift = 32 - Math.log2(capacity);
    for (let from = 0; from < docs.length; from++) {
      const doc = docs[from] as number;
      if (doc === FREE) continue;
      // Each document once: no equal one to meet on the way.
      let at = this.#home(doc);
      while (next[at] !== FREE) at = (at + 1) & mask;
      next[at] = doc;
      nextSlots[at] = slots[from] as number;
    }
  }
}
