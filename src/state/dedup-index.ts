// One user's live entries by dedup form, keyed by a hash of the form: no copy of each content held as a key.

import type { EntryRecord } from "../types.ts";
import { normalizeForDedup } from "../text/tokenizer.ts";
import { hashString } from "../text/string-hash.ts";

/** A 30-bit hash of `text` (text/string-hash.ts, cut to 30 bits): non-negative, so that −1 marks a free place of the table. */
export function dedupHash(text: string): number {
  return hashString(text, 0) & 0x3fffffff;
}

/** The table never holds more than 1 / LOAD of its places, nor (past MIN_PLACES) less than 1 / SHRINK. */
const LOAD = 2;
const SHRINK = 8;
const MIN_PLACES = 16;
/** A free place's hash: hashes are 30-bit, non-negative. */
const FREE = -1;

/**
 * Normalised content → the live entries holding it (the first is the original), for the dedup step of
 * an add. Each entry is a (hash of its form, seq) pair in a hash table of two typed arrays (open
 * addressing, linear probing): entries of one hash sit along its probe run in the order they were added,
 * and a removal shifts the run's later entries back without reordering them. A lookup checks each
 * candidate's own form, so a hash collision never makes two texts duplicates. This holds no copy of
 * the forms and no object per entry: 12-48 bytes per entry, and a 100,000-entry build puts them in a
 * few milliseconds where a Map of hash → seq or seqs took ~10-15 ms (docs/design.md, "Memory per loaded entry").
 */
export class DedupIndex {
  #hashes = new Int32Array(MIN_PLACES).fill(FREE);
  #seqs = new Float64Array(MIN_PLACES);
  /** 32 − log2(places): the top bits of the product are a hash's home place. */
  #shift = 32 - Math.log2(MIN_PLACES);
  #size = 0;
  /** The user's record of a seq (the state's). */
  readonly #record: (seq: number) => EntryRecord | undefined;

  constructor(record: (seq: number) => EntryRecord | undefined) {
    this.#record = record;
  }

  /** Adds the entry of `seq` under `norm` (its content's dedup form), after those already there. */
  add(norm: string, seq: number): void {
    if (LOAD * (this.#size + 1) > this.#hashes.length) this.#resize(2 * this.#hashes.length);
    this.#put(dedupHash(norm), seq);
    this.#size++;
  }

  /** Removes the entry of `seq`, added under `norm` (nothing when it is not there). */
  remove(norm: string, seq: number): void {
    const hash = dedupHash(norm);
    const hashes = this.#hashes;
    const seqs = this.#seqs;
    const mask = hashes.length - 1;
    let hole = this.#home(hash);
    for (;;) {
      const held = hashes[hole] as number;
      if (held === FREE) return;
      if (held === hash && seqs[hole] === seq) break;
      hole = (hole + 1) & mask;
    }
    // Move back each later entry of the run whose home is not between the hole and it (cyclically): entries of one hash keep their order.
    for (let at = (hole + 1) & mask; hashes[at] !== FREE; at = (at + 1) & mask) {
      const home = this.#home(hashes[at] as number);
      if (((at - home) & mask) >= ((at - hole) & mask)) {
        hashes[hole] = hashes[at] as number;
        seqs[hole] = seqs[at] as number;
        hole = at;
      }
    }
    hashes[hole] = FREE;
    this.#size--;
    if (hashes.length > MIN_PLACES && SHRINK * this.#size < hashes.length) this.#resize(hashes.length >> 1);
  }

  /** Ids of the live entries whose dedup form is `norm`, the first added first; undefined when there is none. */
  get(norm: string): string[] | undefined {
    const hash = dedupHash(norm);
    const hashes = this.#hashes;
    const mask = hashes.length - 1;
    let ids: string[] | undefined;
    for (let at = this.#home(hash); hashes[at] !== FREE; at = (at + 1) & mask) {
      if (hashes[at] !== hash) continue;
      const record = this.#record(this.#seqs[at] as number);
      if (record !== undefined && normalizeForDedup(record.content) === norm) (ids ??= []).push(record.id);
    }
    return ids;
  }

  /**
   * Every dedup form held, with its entries' ids, the forms in the order of their first entries' seqs (for tests
   * and inspection: it computes each form again).
   */
  *[Symbol.iterator](): IterableIterator<[string, string[]]> {
    const hashes = this.#hashes;
    const places = hashes.length;
    // Walk each probe run from its start (the place after a free one), so that a form's entries come in their order.
    let first = 0;
    while (hashes[first] !== FREE) first++;
    const forms = new Map<string, { seq: number; ids: string[] }>();
    for (let k = 1; k <= places; k++) {
      const at = (first + k) & (places - 1);
      if (hashes[at] === FREE) continue;
      const seq = this.#seqs[at] as number;
      const record = this.#record(seq);
      if (record === undefined) continue;
      const norm = normalizeForDedup(record.content);
      const form = forms.get(norm);
      if (form === undefined) forms.set(norm, { seq, ids: [record.id] });
      else form.ids.push(record.id);
    }
    for (const [norm, { ids }] of [...forms].sort((a, b) => a[1].seq - b[1].seq)) yield [norm, ids];
  }

  /** Every dedup form held, with its entries' ids (as the iterator). */
  entries(): IterableIterator<[string, string[]]> {
    return this[Symbol.iterator]();
  }

  /** Every dedup form held. */
  *keys(): IterableIterator<string> {
    for (const [norm] of this) yield norm;
  }

  /** Places `seq` under `hash` at the end of the hash's probe run (there is a free place: the load is at most 1 / LOAD). */
  #put(hash: number, seq: number): void {
    const hashes = this.#hashes;
    const mask = hashes.length - 1;
    let at = this.#home(hash);
    while (hashes[at] !== FREE) at = (at + 1) & mask;
    hashes[at] = hash;
    this.#seqs[at] = seq;
  }

  #home(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.#shift;
  }

  /** Moves every entry to a table of `places` places, each probe run walked from its start so that entries of one hash keep their order. */
  #resize(places: number): void {
    const hashes = this.#hashes;
    const seqs = this.#seqs;
    this.#hashes = new Int32Array(places).fill(FREE);
    this.#seqs = new Float64Array(places);
    this.#shift = 32 - Math.log2(places);
    let first = 0;
    while (hashes[first] !== FREE) first++;
    const mask = hashes.length - 1;
    for (let k = 1; k <= hashes.length; k++) {
      const at = (first + k) & mask;
      const hash = hashes[at] as number;
      if (hash !== FREE) this.#put(hash, seqs[at] as number);
    }
  }
}
