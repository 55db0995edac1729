// Records whose vector is the vector index's copy: one copy of each vector in memory instead of two.

import type { EntryRecord } from "../types.ts";
import type { VectorIndex } from "../indexes/vector-index.ts";

/**
 * Whether new {@link EntryState}s keep each vector once (lean records, sparse rows in the vector index).
 * Only tests turn it off, to compare answers with the layout of before (two copies, every row dense).
 */
export const vectorLayout = { compact: true };

/** The fields a lean record copies (an EntryRecord's); a record with any other own field is kept as it is. */
const FIELDS = new Set([
  "id",
  "userId",
  "content",
  "kind",
  "status",
  "createdAt",
  "updatedAt",
  "seq",
  "metadata",
  "lifecycle",
  "embedding",
  "key",
  "supersededBy",
]);

/**
 * A record whose `embedding` is read from the vector index holding that very vector. A class (its
 * fields in the object itself, and where its vector is in a private field, which a spread does not
 * copy): 32 bytes less per entry than a plain object given the same fields one by one.
 */
class LeanRecord {
  /** The index holding the vector (found there by `seq`), or the record's own copy once {@link detach}ed. */
  #home: VectorIndex | Float32Array;
  declare readonly embedding: Float32Array;

  constructor(record: EntryRecord, index: VectorIndex) {
    const self = this as unknown as Record<string, unknown>;
    self["id"] = record.id;
    self["userId"] = record.userId;
    self["content"] = record.content;
    self["kind"] = record.kind;
    self["status"] = record.status;
    self["createdAt"] = record.createdAt;
    self["updatedAt"] = record.updatedAt;
    self["seq"] = record.seq;
    self["metadata"] = record.metadata;
    self["lifecycle"] = record.lifecycle;
    Object.defineProperty(this, "embedding", { get: LeanRecord.#read, enumerable: true, configurable: false });
    if (record.key !== undefined) self["key"] = record.key;
    if (record.supersededBy !== undefined) self["supersededBy"] = record.supersededBy;
    this.#home = index;
  }

  /**
   * The `embedding` getter: a new copy of the index's vector each time (a caller changing it changes
   * nothing of the store's), or the record's own copy once detached.
   */
  static #read(this: LeanRecord): Float32Array {
    const home = this.#home;
    if (home instanceof Float32Array) return home;
    const seq = (this as unknown as EntryRecord).seq;
    const vector = home.vector(seq);
    if (vector === undefined) throw new Error(`internal: the vector of entry seq ${seq} left its index before its record was detached`);
    return vector;
  }

  static home(record: LeanRecord): VectorIndex | Float32Array {
    return record.#home;
  }

  static detach(record: LeanRecord, index: VectorIndex): void {
    if (record.#home === index) record.#home = LeanRecord.#read.call(record);
  }
}

/**
 * The record with its `embedding` read from `index`, which holds that very vector (bit for bit) under
 * the record's seq; or undefined when it does not (a record with no vector, one not live, or a vector
 * that was not unit length: the index holds the unit-length copy, the record the original).
 *
 * A 256-dimension vector held once instead of twice saves its 1 KiB and the objects around it
 * (docs/design.md, "Memory per loaded entry"). The lean record has the same own enumerable properties
 * (`embedding` in its place after `lifecycle`, `key` and `supersededBy` last, as the record codec
 * orders them); `embedding` is an accessor, so reading it, spreading the record
 * (`{ ...record, status }`), `structuredClone` and `JSON.stringify` all see the vector. Assigning it
 * throws (records are immutable). The state must {@link detach} the record before the index loses the
 * vector.
 */
export function leanRecord(record: EntryRecord, index: VectorIndex): EntryRecord | undefined {
  const vector = record.embedding;
  if (vector === null || record instanceof LeanRecord || !index.holds(record.seq, vector)) return undefined;
  for (const key of Object.keys(record)) if (!FIELDS.has(key)) return undefined;
  return new LeanRecord(record, index) as unknown as EntryRecord;
}

/** True for a record made by {@link leanRecord}. */
export function isLean(record: EntryRecord): boolean {
  return record instanceof LeanRecord;
}

/** Gives a lean record whose vector is in `index` its own copy: call before the index removes the vector. */
export function detach(record: EntryRecord, index: VectorIndex): void {
  if (record instanceof LeanRecord) LeanRecord.detach(record, index);
}

/** Components of the record's vector (0: none), without copying it out of an index or reading its values. */
export function vectorLength(record: EntryRecord): number {
  if (record instanceof LeanRecord) {
    const home = LeanRecord.home(record);
    if (!(home instanceof Float32Array)) return home.dim;
  }
  return record.embedding === null ? 0 : record.embedding.length;
}

/** Components and non-zero components of the record's vector, without copying it out of an index (null: no vector). */
export function vectorShape(record: EntryRecord): { length: number; nonZero: number } | null {
  if (record instanceof LeanRecord) {
    const home = LeanRecord.home(record);
    if (!(home instanceof Float32Array)) return { length: home.dim, nonZero: home.nonZero(record.seq) };
  }
  const vector = record.embedding;
  if (vector === null) return null;
  let nonZero = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero++;
  return { length: vector.length, nonZero };
}
