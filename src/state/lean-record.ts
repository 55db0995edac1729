// Records whose vector is the vector index's copy: one copy of each vector in memory instead of two.

import type { EntryRecord } from "../types.ts";
import type { VectorIndex } from "../indexes/vector-index.ts";
import { HomedRecord, blockHome, type BlockVectors } from "../persistence/homed-record.ts";

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
  if (vector === null || record instanceof HomedRecord || !index.holds(record.seq, vector)) return undefined;
  for (const key of Object.keys(record)) if (!FIELDS.has(key)) return undefined;
  return HomedRecord.of(record, index) as unknown as EntryRecord;
}

/** True for a record made by {@link leanRecord}, or read from a format-6 snapshot with its vector left in the section's block. */
export function isLean(record: EntryRecord): boolean {
  return record instanceof HomedRecord;
}

/** Gives a lean record whose vector is in `index` its own copy: call before the index removes the vector. */
export function detach(record: EntryRecord, index: VectorIndex): void {
  if (record instanceof HomedRecord && HomedRecord.home(record) === index) HomedRecord.move(record, (record as EntryRecord).embedding!);
}

/**
 * The section block holding the record's vector, when it was read from a format-6 snapshot and its
 * user's indexes were not built since (persistence/homed-record.ts); undefined otherwise.
 */
export function blockOf(record: EntryRecord): BlockVectors | undefined {
  return blockHome(record);
}

/**
 * Moves the vector of a record still in its section's block ({@link blockOf}) to `index`, when the
 * index holds that very vector (bit for bit; `scratch` of the index's dimension is overwritten), else to
 * the record's own copy: once its user is built, no record keeps the block (and its memory) alive.
 * The record stays the same object, so nothing that holds it needs to change. `held`: the caller knows the
 * index holds the block's vector bit for bit (it added it unchanged), so the comparison is skipped.
 */
export function leaveBlock(record: EntryRecord, block: BlockVectors, index: VectorIndex | null, scratch: Float32Array, held = false): void {
  const r = record as unknown as HomedRecord;
  if (index !== null && (held || (block.dim === scratch.length && block.copyInto(record.seq, scratch) && index.holds(record.seq, scratch)))) {
    HomedRecord.move(r, index);
    return;
  }
  const own = block.vector(record.seq);
  if (own === undefined) throw new Error(`internal: the vector of entry seq ${record.seq} is not in its block`);
  HomedRecord.move(r, own);
}

/** Components of the record's vector (0: none), without copying it out of its home or reading its values. */
export function vectorLength(record: EntryRecord): number {
  if (record instanceof HomedRecord) {
    const home = HomedRecord.home(record);
    if (!(home instanceof Float32Array)) return home.dim;
  }
  return record.embedding === null ? 0 : record.embedding.length;
}

/** Components and non-zero components of the record's vector, without copying it out of its home (null: no vector). */
export function vectorShape(record: EntryRecord): { length: number; nonZero: number } | null {
  if (record instanceof HomedRecord) {
    const home = HomedRecord.home(record);
    if (!(home instanceof Float32Array)) return { length: home.dim, nonZero: home.nonZero(record.seq) };
  }
  const vector = record.embedding;
  if (vector === null) return null;
  let nonZero = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero++;
  return { length: vector.length, nonZero };
}
