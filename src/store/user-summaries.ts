// Per-user overview of a store: how many entries each user has in each status, and when they last changed.

import type { EntryRecord, UserSummary } from "../types.ts";

export type { UserSummary } from "../types.ts";

/**
 * Counts each user's entries per status in one pass over their entries (no index is built).
 * Sorted by user id, so the order does not depend on which user wrote first.
 */
export function summarizeUsers(users: Iterable<string>, entriesOf: (userId: string) => readonly EntryRecord[]): UserSummary[] {
  const out: UserSummary[] = [];
  for (const userId of users) {
    const summary: UserSummary = { userId, total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, lastWriteAt: 0 };
    for (const record of entriesOf(userId)) {
      summary.total++;
      summary[record.status]++;
      if (record.updatedAt > summary.lastWriteAt) summary.lastWriteAt = record.updatedAt;
    }
    // A user whose last entry was removed by a rolled-back write has no shard left; only users with entries count.
    if (summary.total > 0) out.push(summary);
  }
  return out.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
}
