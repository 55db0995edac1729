// Entry ids: "<seq as 12 hex digits>-<4 random hex digits>", unique in a store, free of user information.

import { seqNamedById } from "../persistence/user-catalog.ts";

/** Random 16-bit suffixes, fetched in bulk: one `getRandomValues` call per id cost more than the rest of the id. */
const pool = new Uint16Array(256);
let next = pool.length;

/** Makes the id of the entry with this seq. */
export function makeEntryId(seq: number): string {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const random = pool[next++]!;
  return `${seq.toString(16).padStart(12, "0")}-${random.toString(16).padStart(4, "0")}`;
}

/**
 * The seq an id of {@link makeEntryId}'s shape names, or null for an id of another shape. An imported
 * entry keeps its id but gets a new seq, so its id can name a seq the store has not reached yet: the
 * store must move past it, or a later add would make the same prefix (and, one time in 65,536, the
 * same id).
 */
export function seqOfId(id: string): number | null {
  // The shape is read where backends can read it too (a catalog reports the seqs a user's ids name).
  return seqNamedById(id);
}

/** The first seq after `maxSeq` and after the seq every one of these ids names. */
export function nextSeqAfter(maxSeq: number, entries: Iterable<{ id: string }>): number {
  let max = maxSeq;
  for (const { id } of entries) {
    const seq = seqOfId(id);
    if (seq !== null && seq > max) max = seq;
  }
  return max + 1;
}

/**
 * Hands out the seqs of new entries, one store-wide sequence: past every seq in use and every seq an
 * entry's id names (see {@link seqOfId}).
 */
export class SeqCounter {
  #next: number;

  /** `next`: the first seq to hand out ({@link nextSeqAfter} of what the store holds). */
  constructor(next: number) {
    this.#next = next;
  }

  /** The last seq handed out (every entry in the store has this seq or a smaller one). */
  get last(): number {
    return this.#next - 1;
  }

  /** The seq of the next new entry. */
  next(): number {
    return this.#next++;
  }

  /** Moves past the seq each of these ids names: an imported entry keeps its id, which may name a seq not reached yet. */
  passIds(entries: Iterable<{ id: string }>): void {
    this.#next = nextSeqAfter(this.#next - 1, entries);
  }
}
