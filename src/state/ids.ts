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

/** Where a store several processes write gets its seqs (a shared backend's `reserveSeqs` and `releaseSeqs`). */
export interface SeqSource {
  /** Reserves `count` consecutive seqs nobody else gets, all beyond `after`, and resolves to the first. */
  reserve(count: number, after: number): Promise<number>;
  /** Gives back the unused end `[first, end)` of the last block, if nobody reserved after it (so one process alone numbers without gaps). */
  release(first: number, end: number): Promise<void>;
}

/** Seqs reserved at a time from a {@link SeqSource}: one round trip per this many new entries. */
export const SEQ_BLOCK = 256;

/**
 * Hands out the seqs of new entries, one store-wide sequence: past every seq in use and every seq an
 * entry's id names (see {@link seqOfId}). With a {@link SeqSource} (a store several processes write),
 * seqs come in blocks reserved from it: the write queue calls {@link refill} before planning a write
 * (planning is synchronous), and when a write needed more than the block held ({@link overran}) it is
 * undone and planned again after a larger refill, so no seq outside a reserved block is ever stored.
 */
export class SeqCounter {
  #next: number;
  /** End of the reserved block (exclusive); Infinity when the store numbers on its own. */
  #end: number;
  readonly #source: SeqSource | null;
  /** The largest seq an imported id named: the next reservation must go beyond it. */
  #floor = 0;

  /** `next`: the first seq to hand out ({@link nextSeqAfter} of what the store holds). */
  constructor(next: number, source: SeqSource | null = null) {
    this.#next = next;
    this.#source = source;
    this.#end = source === null ? Infinity : next;
    this.#floor = next - 1;
  }

  /** The last seq handed out (every entry in the store has this seq or a smaller one). */
  get last(): number {
    return this.#next - 1;
  }

  /** The seq of the next new entry (with a source, possibly past the block: see {@link overran}). */
  next(): number {
    return this.#next++;
  }

  /** Where the counter is: {@link needed} counts from it. */
  get position(): number {
    return this.#next;
  }

  /** True when seqs beyond the reserved block were handed out: what used them must be undone and planned again after a refill. */
  get overran(): boolean {
    return this.#next > this.#end;
  }

  /** Seqs handed out since `position` was read. */
  needed(since: number): number {
    return this.#next - since;
  }

  /** With a source: makes sure at least `count` reserved seqs are left, reserving a new block when not (what was left of the old one is never used). */
  async refill(count = 1): Promise<void> {
    if (this.#source === null || (this.#next <= this.#end && this.#end - this.#next >= count)) return;
    const size = Math.max(count, SEQ_BLOCK);
    const first = await this.#source.reserve(size, this.#floor);
    this.#next = first;
    this.#end = first + size;
  }

  /** With a source, on close: gives back what is left of the block (nothing is planned meanwhile). */
  async release(): Promise<void> {
    if (this.#source === null || this.#next >= this.#end) return;
    const [first, end] = [this.#next, this.#end];
    this.#end = this.#next;
    await this.#source.release(first, end);
  }

  /** Moves past the seq each of these ids names: an imported entry keeps its id, which may name a seq not reached yet. */
  passIds(entries: Iterable<{ id: string }>): void {
    const after = nextSeqAfter(this.#next - 1, entries);
    if (after - 1 > this.#floor) this.#floor = after - 1;
    // A block holds seqs nobody else gets: moving inside it is safe; beyond it, the next refill reserves past the named seq.
    if (this.#source === null || after <= this.#end) this.#next = after;
    else if (this.#next <= this.#end) this.#end = this.#next;
  }
}
