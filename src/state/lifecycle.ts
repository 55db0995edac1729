// Rules about an entry's lifecycle (the store's bookkeeping, EntryLifecycle) that more than one call applies.

import type { EntryLifecycle, EntryRecord } from "../types.ts";
import { liftLegacy } from "../persistence/lifecycle-codec.ts";

/**
 * Most ids the store keeps in an entry's `lifecycle.conflict` (the newest): each fact that coexists with
 * an entry adds one and rewrites the entry, so an unbounded list would make N such adds write O(N²) bytes.
 */
export const MAX_CONFLICT_IDS = 50;

/** True for a tombstone: `forget` with `purge` erased its content (it cannot be restored, and has no vector to make). */
export function isPurged(record: EntryRecord): boolean {
  return record.lifecycle.purgedAt !== undefined;
}

/**
 * The record with a lifecycle. Records from the built-in backends always have one; a host's backend that
 * keeps records as objects may hand back ones stored before entry format 4, whose bookkeeping is still in
 * their metadata: it is lifted out as the record codec does (persistence/lifecycle-codec.ts).
 */
export function withLifecycle(record: EntryRecord): EntryRecord {
  if ((record.lifecycle as EntryLifecycle | undefined) !== undefined) return record;
  return { ...record, ...liftLegacy(record.metadata, record) };
}
