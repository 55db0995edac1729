// Per-user counts a backend's catalog reports (see UserLoading in backend.ts), kept in one place for every backend.

import type { EntryRecord } from "../types.ts";
import type { CatalogUser } from "./backend.ts";

const MADE_ID = /^([0-9a-f]{12})-[0-9a-f]{4}$/;

/**
 * The seq an id of moomem's shape ("<seq as 12 hex digits>-<4 hex digits>", state/ids.ts) names, or
 * null for an id of another shape. Here, below the state, so that a backend's catalog can report the
 * largest seq a user's ids name without loading them into a store.
 */
export function seqNamedById(id: string): number | null {
  const m = MADE_ID.exec(id);
  return m === null ? null : parseInt(m[1]!, 16);
}

/** A user with no entries counted yet. */
export function emptyCatalogUser(userId: string): CatalogUser {
  return { userId, total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, lastWriteAt: 0, maxSeq: 0 };
}

/**
 * Counts `record` in (`sign` 1) or out (`sign` -1) of its user's summary. Counting out only undoes the
 * counts: `lastWriteAt` and `maxSeq` are high-water marks (an entry's seq never changes, and a later
 * version is counted in right after).
 */
export function countEntry(user: CatalogUser, record: EntryRecord, sign: 1 | -1): void {
  user.total += sign;
  user[record.status] += sign;
  if (sign === 1) {
    if (record.updatedAt > user.lastWriteAt) user.lastWriteAt = record.updatedAt;
    const named = seqNamedById(record.id);
    user.maxSeq = Math.max(user.maxSeq, record.seq, named ?? 0);
  }
}

/** The catalog of these entries (the latest version of each), one summary per user. */
export function catalogOf(entries: Iterable<EntryRecord>): CatalogUser[] {
  const users = new Map<string, CatalogUser>();
  for (const entry of entries) {
    let user = users.get(entry.userId);
    if (user === undefined) users.set(entry.userId, (user = emptyCatalogUser(entry.userId)));
    countEntry(user, entry, 1);
  }
  return [...users.values()];
}
