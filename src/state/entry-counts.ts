// Running counts of entries per status and their estimated bytes, kept on every change instead of walked per call.

import type { EntryRecord } from "../types.ts";

/**
 * Bytes an entry in memory takes, roughly: the record (UTF-16 content, metadata, vector) and what the
 * user's indexes hold of it (a vector copy, postings, dedup key). Measured with bench/heap-per-entry.ts
 * (docs/bench/bulk-ingest.md).
 */
export function entryBytes(record: EntryRecord): number {
  return fixedBytes(record) + contentBytes(record);
}

/** The part of {@link entryBytes} known without reading the content (its id, times, vector). */
function fixedBytes(record: EntryRecord): number {
  return 480 + (record.embedding === null ? 0 : record.embedding.length * 8);
}

/** The part of {@link entryBytes} that grows with the content (the text and its postings). */
function contentBytes(record: EntryRecord): number {
  return record.content.length * 4;
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
 * undoes exactly what counting it in did, given the same `indexed`. The content's part is counted only
 * for an `indexed` record (its user's indexes built): loading a user reads nothing of its entries'
 * content until they are indexed (state/entry-state.ts, `load`), and building adds it ({@link countContent}).
 */
export function countRecord(counts: StatusCounts, record: EntryRecord, sign: 1 | -1, indexed: boolean): void {
  counts.total += sign;
  counts[record.status] += sign;
  counts.bytes += sign * (indexed ? entryBytes(record) : fixedBytes(record));
}

/** Adds the content's part of these records' bytes: their user's indexes were just built. */
export function countContent(counts: StatusCounts, records: readonly EntryRecord[]): void {
  for (const record of records) counts.bytes += contentBytes(record);
}
