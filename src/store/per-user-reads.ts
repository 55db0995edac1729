// The calls that read more than one user, for a store whose users are loaded when asked: they use the counts
// the catalog keeps for users not loaded, or stream the backend, and never load every user at once.

import type { EntryRecord } from "../types.ts";
import type { PersistenceBackend } from "../persistence/backend.ts";
import { loadsUsers } from "../persistence/backend.ts";
import { callBackend } from "../validation/plugin-checks.ts";
import type { EntryState } from "../state/entry-state.ts";
import { withLifecycle } from "../state/lifecycle.ts";
import { summarizeUsers, type UserSummary } from "./user-summaries.ts";
import type { UserLoader } from "./user-loading.ts";
import type { WriteQueue } from "./write-queue.ts";
import type { ReextractSummary } from "./options.ts";

/** `users()`: the loaded users counted from their entries, the others from the catalog; sorted by user id. */
export function summarizeAll(state: EntryState): UserSummary[] {
  const out = summarizeUsers(state.loadedUsers(), (u) => state.entriesOf(u));
  for (const { maxSeq: _maxSeq, ...summary } of state.coldUsers()) out.push(summary);
  return out.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
}

/** `stats()`'s counts per status and of users, without loading anyone; and the loaded users with their estimated bytes (running counts: O(1)). */
export function statusCounts(state: EntryState): {
  users: number;
  active: number;
  superseded: number;
  deleted: number;
  unstructured: number;
  loadedUsers: number;
  loadedBytes: number;
} {
  const loaded = state.loadedCounts();
  const cold = state.coldCounts();
  return {
    users: state.loadedUserCount + state.coldUserCount,
    active: loaded.active + cold.active,
    superseded: loaded.superseded + cold.superseded,
    deleted: loaded.deleted + cold.deleted,
    unstructured: loaded.unstructured + cold.unstructured,
    loadedUsers: state.loadedUserCount,
    loadedBytes: loaded.bytes,
  };
}

/** Every entry the backend holds, in seq order, read once every write is durable and before any other runs. */
async function scanAll(queue: WriteQueue, backend: PersistenceBackend, each: (record: EntryRecord) => void): Promise<void> {
  if (!loadsUsers(backend)) throw new Error("internal: a store that loads users when asked has a backend without scan()");
  await queue.exclusive(() =>
    callBackend(backend.location, "reading every entry", async () => {
      for await (const record of backend.scan()) each(withLifecycle(record));
    }),
  );
}

/** What `export` writes: one user's entries (loaded for it), or every entry (from memory, or streamed from the backend). */
export async function exportRecords(
  userId: string | null,
  users: UserLoader,
  queue: WriteQueue,
  backend: PersistenceBackend,
  durable: <T>(read: () => T) => Promise<T>,
  state: EntryState,
): Promise<EntryRecord[]> {
  if (userId !== null) return users.use(userId, () => durable(() => [...state.entriesOf(userId)]));
  const records: EntryRecord[] = users.perUser ? [] : await durable(() => [...state.all()]);
  if (users.perUser) await scanAll(queue, backend, (record) => records.push(record));
  return records.sort(exportOrder);
}

/**
 * The order of a whole-store export, however the store was opened: by user id (code unit order, as
 * `Array.prototype.sort` orders strings), each user's entries in seq order. A store that loads users when
 * asked streams users in this order (export-stream.ts), so one store exports the same lines read-only or not.
 */
function exportOrder(a: EntryRecord, b: EntryRecord): number {
  return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.seq - b.seq;
}

/**
 * The users an import must have loaded for its checks (import-check.ts reads the store by id): those its
 * entries belong to, and those holding an id it names (an entry id, or a link's target), found by
 * streaming the backend. Empty when every user is loaded already.
 */
export async function importUsers(entries: readonly EntryRecord[], users: UserLoader, queue: WriteQueue, backend: PersistenceBackend): Promise<string[]> {
  if (!users.perUser) return [];
  const named = new Set<string>();
  const owners = new Set<string>();
  for (const entry of entries) {
    owners.add(entry.userId);
    named.add(entry.id);
    if (entry.supersededBy !== undefined) named.add(entry.supersededBy);
    for (const id of entry.lifecycle.conflict ?? []) named.add(id);
  }
  if (named.size > 0) {
    await scanAll(queue, backend, (record) => {
      if (named.has(record.id)) owners.add(record.userId);
    });
  }
  return [...owners];
}

/** `reextract` user by user (each loaded in turn, so a memory bound holds): the unstructured entries of each. */
export async function reextractTargets(
  userId: string | undefined,
  users: UserLoader,
  state: EntryState,
  run: (targets: readonly EntryRecord[]) => Promise<ReextractSummary>,
): Promise<ReextractSummary> {
  const todo: string[] = [];
  if (userId !== undefined) todo.push(userId);
  else {
    for (const u of state.loadedUsers()) if (state.entriesOf(u).some((e) => e.status === "unstructured")) todo.push(u);
    for (const u of state.coldUsers()) if (u.unstructured > 0) todo.push(u.userId);
  }
  const summary: ReextractSummary = { processed: 0, converted: 0, failed: 0, facts: [] };
  for (const u of todo) {
    const part = await users.use(u, () => run(state.entriesOf(u).filter((e) => e.status === "unstructured")));
    summary.processed += part.processed;
    summary.converted += part.converted;
    summary.failed += part.failed;
    summary.facts.push(...part.facts);
  }
  return summary;
}
