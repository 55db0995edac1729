// `restore`: a forgotten entry back in the status it had, or a wrongly superseded one active again.

import type { Clock, EntryLifecycle, EntryRecord, EntryStatus } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { describe } from "../validation/arguments.ts";
import { readClock } from "../validation/plugin-checks.ts";
import { isLive, type Change } from "../state/entry-state.ts";
import { isPurged } from "../state/lifecycle.ts";
import type { UserEntries } from "../state/user-entries.ts";

/**
 * Restores the user's entry `id` through `change` and returns its new version: deleted → the status it
 * had before the forget; superseded → active (unstructured for a degraded add), and the live entry that
 * replaced it becomes superseded by it. Throws `INVALID_ARGUMENT` for an id that is not the user's, a
 * purged entry (its content is gone) or an entry that is neither deleted nor superseded.
 */
export function restoreEntry(change: Change, user: UserEntries, id: string, clock: Clock): EntryRecord {
  const record = user.get(id);
  if (record === undefined) throw invalidArgument(`restore: user ${user.userId} has no entry ${describe(id, 100)}`);
  if (isPurged(record)) throw invalidArgument(`restore: entry ${id} was purged; its content is gone and cannot be restored`);
  const now = readClock(clock);
  const lifecycle: EntryLifecycle = { ...record.lifecycle, restoredAt: now };
  let next: EntryRecord;
  if (record.status === "deleted") {
    const before = record.lifecycle.deletedFrom;
    const status: EntryStatus = before !== undefined && before !== "deleted" ? before : record.kind === "unstructured" ? "unstructured" : "active";
    delete lifecycle.deletedFrom;
    delete lifecycle.deletedAt;
    next = { ...record, status, lifecycle, updatedAt: now };
    if (isLive(status)) delete next.supersededBy;
  } else if (record.status === "superseded") {
    next = { ...record, status: record.lifecycle.extractionDegraded !== undefined ? "unstructured" : "active", lifecycle, updatedAt: now };
    delete next.supersededBy;
    const replacer = user.successor(record);
    if (replacer !== undefined && isLive(replacer.status)) {
      change.put({
        ...replacer,
        status: "superseded",
        supersededBy: id,
        updatedAt: now,
        lifecycle: { ...replacer.lifecycle, conflictReason: `restored ${id} replaces it` },
      });
    }
  } else {
    throw invalidArgument(`restore: entry ${id} is ${record.status}; only deleted or superseded entries can be restored`);
  }
  change.put(next);
  return next;
}
