// `import` into a store with `maxLoadedUsers`: the entries of users not in memory are written without loading them.

import type { Embedder, EntryRecord, ImportSummary } from "../types.ts";
import type { EmbedderIdentity, PersistenceBackend } from "../persistence/backend.ts";
import { loadsUsers } from "../persistence/backend.ts";
import { callBackend } from "../validation/plugin-checks.ts";
import type { EntryState } from "../state/entry-state.ts";
import type { SeqCounter } from "../state/ids.ts";
import { withLifecycle } from "../state/lifecycle.ts";
import type { ParsedImport } from "../transfer/jsonl-transfer.ts";
import type { StoredLookup } from "../transfer/import-check.ts";
import { applyImport, embedImported } from "../transfer/import-entries.ts";
import type { UserLoader } from "./user-loading.ts";
import type { WriteQueue } from "./write-queue.ts";

type Found = Pick<EntryRecord, "userId" | "content" | "status">;

/** Every id the import names: its entries' ids and their links' targets. */
function namedIds(entries: readonly EntryRecord[]): Set<string> {
  const named = new Set<string>();
  for (const entry of entries) {
    named.add(entry.id);
    if (entry.supersededBy !== undefined) named.add(entry.supersededBy);
    for (const id of entry.lifecycle.conflict ?? []) named.add(id);
  }
  return named;
}

/** The backend's entries with these ids (what the import's checks need of them), streamed; the caller makes sure no write is under way. */
async function storedWith(backend: PersistenceBackend, named: ReadonlySet<string>): Promise<Map<string, Found>> {
  if (!loadsUsers(backend)) throw new Error("internal: a store that loads users when asked has a backend without scan()");
  const found = new Map<string, Found>();
  await callBackend(backend.location, "reading every entry", async () => {
    for await (const raw of backend.scan()) {
      if (!named.has(raw.id)) continue;
      const record = withLifecycle(raw);
      found.set(record.id, { userId: record.userId, content: record.content, status: record.status });
    }
  });
  return found;
}

export interface UnloadedImport {
  state: EntryState;
  queue: WriteQueue;
  backend: PersistenceBackend;
  users: UserLoader;
  embedder: Embedder;
  identity: EmbedderIdentity;
  seqs: SeqCounter;
}

/**
 * Imports without loading any user (README, "Many users: loading a user when asked"): the checks read
 * the loaded users from memory and every other entry the import names from the backend, in the write
 * itself (once every earlier write is durable, so nothing it checks can change under it); the entries
 * of users in memory are inserted as any write inserts them (those users pinned until it is durable),
 * the others are only counted (`Change.insertCold`) and read from the backend when their user is next
 * used. Still one write: all or nothing, as every import.
 */
export async function importUnloaded(parsed: ParsedImport, partial: boolean, store: UnloadedImport): Promise<ImportSummary> {
  const { state, queue, backend, users } = store;
  const named = namedIds(parsed.entries);
  const lookup =
    (found: ReadonlyMap<string, Found>): StoredLookup =>
    (id) =>
      state.get(id) ?? found.get(id);
  // Checked before any vector is computed (only when some must be), against the store as it is now.
  await embedImported(parsed, async () => lookup(await queue.exclusive(() => storedWith(backend, named))), partial, store.embedder, store.identity);
  let release: (() => void) | null = null;
  // From before the write is queued until it settled, a first call for a user it names waits (the loaded ones need not).
  const holds = users.holdLoads(parsed.entries.map((e) => e.userId));
  try {
    return await queue.write(async (change) => {
      await queue.drained();
      const found = await storedWith(backend, named);
      // From here to the end nothing awaits: which users are in memory cannot change before their entries are placed.
      const loaded = new Set<string>();
      for (const entry of parsed.entries) if (state.isLoaded(entry.userId)) loaded.add(entry.userId);
      release = users.pin(loaded);
      return applyImport(change, parsed, lookup(found), partial, store.seqs, (userId) => loaded.has(userId));
    });
  } finally {
    (release as (() => void) | null)?.();
    holds();
  }
}
