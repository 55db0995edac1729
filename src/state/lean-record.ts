// Records whose vector is the vector index's copy: one copy of each vector in memory instead of two.

import type { EntryRecord } from "../types.ts";
import type { VectorIndex } from "../indexes/vector-index.ts";

/**
 * Whether new {@link EntryState}s keep each vector once (lean records, sparse rows in the vector index).
 * Only tests turn it off, to compare answers with the layout of before (two copies, every row dense).
 */
export const vectorLayout = { compact: true };

/** Where a lean record's vector is: the index holding it (found there by the record's seq), or its own copy once detached. */
const HOME = Symbol("moomem.vectorHome");

interface Lean {
  seq: number;
  [HOME]: VectorIndex | Float32Array;
}

/**
 * The `embedding` of a lean record: a new copy of the index's vector each time (a caller changing it
 * changes nothing of the store's), or the record's own copy once {@link detach}ed.
 */
function readVector(this: Lean): Float32Array {
  const home = this[HOME];
  if (home instanceof Float32Array) return home;
  const vector = home.vector(this.seq);
  if (vector === undefined) throw new Error(`internal: the vector of entry seq ${this.seq} left its index before its record was detached`);
  return vector;
}

/**
 * The record with its `embedding` read from `index`, which holds that very vector (bit for bit) under
 * the record's seq; or undefined when it does not (a record with no vector, one not live, or a vector
 * that was not unit length: the index holds the unit-length copy, the record the original).
 *
 * A 256-dimension vector held once instead of twice saves its 1 KiB and the two objects around it
 * (docs/design.md, "Memory per loaded entry"). The lean record has the same own enumerable properties
 * in the same order; `embedding` is an accessor, so reading it, spreading the record
 * (`{ ...record, status }`), `structuredClone` and `JSON.stringify` all see the vector. Assigning it
 * throws (records are immutable). The state must {@link detach} the record before the index loses the
 * vector.
 */
export function leanRecord(record: EntryRecord, index: VectorIndex): EntryRecord | undefined {
  const vector = record.embedding;
  if (vector === null || isLean(record) || !index.holds(record.seq, vector)) return undefined;
  const lean: Record<string | symbol, unknown> = {};
  const source = record as unknown as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === "embedding") Object.defineProperty(lean, "embedding", { get: readVector, enumerable: true, configurable: false });
    else lean[key] = source[key];
  }
  Object.defineProperty(lean, HOME, { value: index, writable: true, enumerable: false, configurable: false });
  return lean as unknown as EntryRecord;
}

/** True for a record made by {@link leanRecord}. */
export function isLean(record: EntryRecord): boolean {
  return HOME in record;
}

/** Gives a lean record whose vector is in `index` its own copy: call before the index removes the vector. */
export function detach(record: EntryRecord, index: VectorIndex): void {
  if (!isLean(record)) return;
  const lean = record as unknown as Lean;
  if (lean[HOME] !== index) return;
  lean[HOME] = readVector.call(lean);
}

/** Components and non-zero components of the record's vector, without copying it out of an index (null: no vector). */
export function vectorShape(record: EntryRecord): { length: number; nonZero: number } | null {
  if (isLean(record)) {
    const home = (record as unknown as Lean)[HOME];
    if (!(home instanceof Float32Array)) return { length: home.dim, nonZero: home.nonZero(record.seq) };
  }
  const vector = record.embedding;
  if (vector === null) return null;
  let nonZero = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero++;
  return { length: vector.length, nonZero };
}
