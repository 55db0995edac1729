// One user's live entries by dedup form, keyed by a hash of the form: no copy of each content held as a key.

import type { EntryRecord } from "../types.ts";
import { normalizeForDedup } from "../text/tokenizer.ts";
import { hashPairs, hashPairsLowerAscii } from "../text/string-hash.ts";

/**
 * A 30-bit hash of `text` (text/string-hash.ts's hashPairs, cut to 30 bits): a small integer, which a Map holds in its
 * slot (a wider one would be a number object of its own per key). hashPairs rather than hashString: a user's build
 * hashes every live entry's form, and two code units a step took ~15-20 ms less of a cold 100,000-entry build (the
 * hash lives only in memory, so it may change between versions).
 */
export function dedupHash(text: string): number {
  return hashPairs(text, 0) & 0x3fffffff;
}

/**
 * Normalised content → the live entries holding it (the first is the original), for the dedup step of
 * an add. Keyed by a hash of the form, each slot holding the seqs of its entries (one seq alone, or a
 * list when several entries share the hash); a lookup checks each candidate's own form, so a hash
 * collision never makes two texts duplicates. This holds no copy of the forms: about 140 bytes less
 * per entry than a map from each form to a list of ids (docs/design.md, "Memory per loaded entry").
 */
export class DedupIndex {
  readonly #slots = new Map<number, number | number[]>();
  /** The user's record of a seq (the state's). */
  readonly #record: (seq: number) => EntryRecord | undefined;

  /** What adds the entries this index was built without, run before anything reads or changes it ({@link defer}). */
  #pending: (() => void) | null = null;

  constructor(record: (seq: number) => EntryRecord | undefined) {
    this.#record = record;
  }

  /**
   * Leaves the user's entries out until the index is first read or changed, or {@link settle} is called: then
   * `fill` adds them (with {@link add} and {@link addLowerAscii}, in seq order). A user's first recall reads no
   * dedup form (state/entry-state.ts); nothing can read the index without its entries.
   */
  defer(fill: () => void): void {
    this.#pending = fill;
  }

  /** Runs the fill a {@link defer} left, if any. */
  settle(): void {
    const fill = this.#pending;
    if (fill === null) return;
    this.#pending = null;
    fill();
  }

  /** Adds the entry of `seq` under `norm` (its content's dedup form), after those already there. */
  add(norm: string, seq: number): void {
    this.settle();
    this.#add(dedupHash(norm), seq);
  }

  /** {@link add} under `text.toLowerCase()` (an ASCII `text`: a section's stored forms say so), without making that string. */
  addLowerAscii(text: string, seq: number): void {
    this.settle();
    this.#add(hashPairsLowerAscii(text, 0) & 0x3fffffff, seq);
  }

  #add(hash: number, seq: number): void {
    const slot = this.#slots.get(hash);
    if (slot === undefined) this.#slots.set(hash, seq);
    else if (typeof slot === "number") this.#slots.set(hash, [slot, seq]);
    else slot.push(seq);
  }

  /** Removes the entry of `seq`, added under `norm` (nothing when it is not there). */
  remove(norm: string, seq: number): void {
    this.settle();
    const hash = dedupHash(norm);
    const slot = this.#slots.get(hash);
    if (slot === undefined) return;
    if (typeof slot === "number") {
      if (slot === seq) this.#slots.delete(hash);
      return;
    }
    const i = slot.indexOf(seq);
    if (i < 0) return;
    slot.splice(i, 1);
    if (slot.length === 1) this.#slots.set(hash, slot[0]!);
  }

  /** Ids of the live entries whose dedup form is `norm`, the first added first; undefined when there is none. */
  get(norm: string): string[] | undefined {
    this.settle();
    const slot = this.#slots.get(dedupHash(norm));
    if (slot === undefined) return undefined;
    const ids: string[] = [];
    for (const seq of typeof slot === "number" ? [slot] : slot) {
      const record = this.#record(seq);
      if (record !== undefined && normalizeForDedup(record.content) === norm) ids.push(record.id);
    }
    return ids.length === 0 ? undefined : ids;
  }

  /** Every dedup form held, with its entries' ids (for tests and inspection: it computes each form again). */
  *[Symbol.iterator](): IterableIterator<[string, string[]]> {
    this.settle();
    const forms = new Map<string, string[]>();
    for (const slot of this.#slots.values()) {
      for (const seq of typeof slot === "number" ? [slot] : slot) {
        const record = this.#record(seq);
        if (record === undefined) continue;
        const norm = normalizeForDedup(record.content);
        const ids = forms.get(norm);
        if (ids === undefined) forms.set(norm, [record.id]);
        else ids.push(record.id);
      }
    }
    yield* forms;
  }

  /** Every dedup form held, with its entries' ids (as the iterator). */
  entries(): IterableIterator<[string, string[]]> {
    return this[Symbol.iterator]();
  }

  /** Every dedup form held. */
  *keys(): IterableIterator<string> {
    for (const [norm] of this) yield norm;
  }
}
