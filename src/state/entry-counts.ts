// Running counts of entries per status and their estimated bytes, kept on every change instead of walked per call.

import type { EntryRecord } from "../types.ts";
import { vectorBytes } from "../indexes/vector-index.ts";
import { vectorLength, vectorShape } from "./lean-record.ts";

/**
 * Bytes an entry in memory takes, roughly, once its user's indexes are built: what
 * bench/heap-per-entry.ts measured (JS heap and array buffers) with the hashing embedder, 256
 * dimensions, 60-character contents, 35 non-zero components: about 950–1,150 bytes, of which the
 * vector is about 220 (held once, by the vector index, as its non-zero components) (docs/design.md,
 * "Memory per loaded entry"). Before its user's indexes are built the record holds its own copy.
 * The estimate says about 1,170 bytes for such an entry: high for 100,000 entries (942 for one user, 1,157
 * over 1,000), low where each user's own arrays are spread over fewer entries (1,552 at 10,000 over 100).
 */
export function entryBytes(record: EntryRecord): number {
  return fixedBytes(record) + contentBytes(record);
}

/** The record's part of {@link entryBytes}, known without reading its content (a load reads none). */
function fixedBytes(record: EntryRecord): number {
  return 700 + 4 * vectorLength(record);
}

/**
 * The indexes' part of {@link entryBytes}: it grows with the content (postings, dedup key) and, for a
 * live entry, the vector: the index's copy (`vectorBytes`: about 6 bytes per non-zero component and 10
 * per vector for one it keeps sparse, at any number of vectors; 4.5 per component for a dense one, with
 * room to grow) replaces the record's own (state/lean-record.ts; taken as so for every live entry, as the
 * embedders' vectors are unit length). Only the record's fields go into it, so a record counted out takes
 * away what it added.
 */
export function contentBytes(record: EntryRecord): number {
  const shape = vectorShape(record);
  const live = record.status === "active" || record.status === "unstructured";
  const vector = shape === null || !live ? 0 : vectorBytes(shape.nonZero, shape.length) - 4 * shape.length;
  // 130 + 2 per character: the dedup key and the BM25 postings (16 bytes per distinct token, in typed arrays:
  // indexes/bm25-layout.ts), with the per-document arrays and map entries of both. BM25 alone measured 350–450 bytes
  // per 100-character entry, where its objects per document and posting took 1,200 before.
  return 130 + 2 * record.content.length + vector;
}

/** Counts of some entries: per status, in all, and their estimated bytes ({@link entryBytes}). */
export interface StatusCounts {
  total: number;
  active: number;
  superseded: number;
  deleted: number;
  unstructured: number;
  bytes: number;
}

export function emptyCounts(): StatusCounts {
  return { total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, bytes: 0 };
}

/**
 * Counts `record` in (`sign` 1) or out (`sign` -1). Records are immutable, so counting a version out
 * undoes exactly what counting it in did, given the same `indexed`. The indexes' part is counted only
 * for an `indexed` record (its user's indexes built): loading a user reads nothing of its entries'
 * content until they are indexed (state/entry-state.ts, `load`), and building adds it ({@link contentBytes} of each).
 */
export function countRecord(counts: StatusCounts, record: EntryRecord, sign: 1 | -1, indexed: boolean): void {
  counts.total += sign;
  counts[record.status] += sign;
  counts.bytes += sign * (indexed ? entryBytes(record) : fixedBytes(record));
}
