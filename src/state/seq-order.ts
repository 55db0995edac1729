// A user's entries are kept in seq order: finding and inserting by seq, shared by the state and by recall.

import type { EntryRecord } from "../types.ts";

/**
 * Position of the entry with this seq in a seq-ordered list, or -1. Seqs grow by one per write, so
 * interpolating from the ends usually lands on it or a few entries away (a user's seqs are spread
 * evenly when users write in turn): each probe of a binary search over a large list is a cache miss,
 * which measured as a tenth of a 10k-entry recall with 40 candidates to place.
 */
export function indexBySeq(list: readonly EntryRecord[], seq: number): number {
  const n = list.length;
  if (n === 0) return -1;
  const first = list[0]!.seq;
  const last = list[n - 1]!.seq;
  if (seq < first || seq > last) return -1;
  let at = last === first ? 0 : Math.round(((seq - first) / (last - first)) * (n - 1));
  for (let step = 0; step < 8; step++) {
    const s = list[at]!.seq;
    if (s === seq) return at;
    at += s < seq ? 1 : -1;
    if (at < 0 || at >= n) break;
  }
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = list[mid]!.seq;
    if (s === seq) return mid;
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Inserts a record at its place in a seq-ordered list (new records usually go last: searched from the end). */
export function insertBySeq(list: EntryRecord[], record: EntryRecord): void {
  let i = list.length;
  while (i > 0 && list[i - 1]!.seq > record.seq) i--;
  list.splice(i, 0, record);
}
