// What `open` does with the backend: read the store, check (or recompute) its vectors, group the entries per user.

import type { Embedder, EntryRecord } from "../types.ts";
import type { EmbedderIdentity, LoadedState, PersistenceBackend, UserLoading } from "../persistence/backend.ts";
import { MoomemError } from "../errors.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { StoredEmbedder } from "../embedding/stored-embedder.ts";
import { callBackend, readEmbedderIdentity } from "../validation/plugin-checks.ts";
import { EntryState } from "../state/entry-state.ts";
import { nextSeqAfter } from "../state/ids.ts";
import { isPurged, withLifecycle } from "../state/lifecycle.ts";
import { isLean } from "../state/lean-record.ts";

/** A store read and accepted: its entries grouped per user, and what the open must still do. */
export interface OpenedStore {
  state: EntryState;
  loaded: LoadedState;
  /** The first seq a new entry gets: past every seq in use and every seq an id names (an imported id may name one not reached yet). */
  nextSeq: number;
  /** The vectors were made by another embedder and were recomputed (`reembed`): the store must be rewritten. */
  reembedded: boolean;
  /** The embedder's identity, as the store records it from now on (a `StoredEmbedder` takes on the one the store recorded). */
  identity: EmbedderIdentity;
  /** True when users are loaded when asked (the backend's catalog was read, not its entries). */
  perUser: boolean;
}

/**
 * Loads the store from `backend` and accepts it, or closes the backend and throws: vectors of another
 * embedder are refused (`EMBEDDER_MISMATCH`) unless `reembed`, which recomputes them all first; two
 * entries with one id or seq are `STORE_CORRUPTED`. Only once every check passed may the backend repair
 * files (`accept`), so a refused open changes none.
 */
export async function loadStore(backend: PersistenceBackend, embedder: Embedder, identity: EmbedderIdentity, reembed: boolean): Promise<OpenedStore> {
  const loaded = await callBackend(backend.location, "loading", () => backend.load());
  loaded.entries = loaded.entries.map(withLifecycle);
  // The CLI's commands that never embed open with whatever embedder the store recorded (embedding/stored-embedder.ts).
  if (embedder instanceof StoredEmbedder) {
    embedder.adopt(loaded.embedder);
    identity = readEmbedderIdentity(embedder);
  }
  const mismatch = loaded.embedder !== null && (loaded.embedder.id !== identity.id || loaded.embedder.dim !== identity.dim);
  try {
    if (mismatch && !reembed) checkEmbedderMatch(loaded.embedder, identity, backend.location);
    if (mismatch) await reembedAll(embedder, ownVectors(loaded.entries), identity.dim);
  } catch (error) {
    await backend.close();
    throw error;
  }
  const state = new EntryState(identity.dim);
  let maxSeq = 0;
  try {
    for (const entry of loaded.entries) {
      state.load(entry);
      if (entry.seq > maxSeq) maxSeq = entry.seq;
    }
    await backend.accept?.();
  } catch (error) {
    await backend.close();
    throw error;
  }
  return { state, loaded, nextSeq: nextSeqAfter(maxSeq, loaded.entries), reembedded: mismatch, identity, perUser: false };
}

/**
 * {@link loadStore} for a backend that loads users when asked: reads its catalog (every user's counts,
 * no entry) and accepts it, with the same checks and the same refusals. Only `reembed` reads every
 * user's entries (each vector must be recomputed), after which the store is rewritten whole.
 */
export async function openCatalog(
  backend: PersistenceBackend & UserLoading,
  embedder: Embedder,
  identity: EmbedderIdentity,
  reembed: boolean,
): Promise<OpenedStore> {
  const catalog = await callBackend(backend.location, "loading", () => backend.openCatalog());
  if (embedder instanceof StoredEmbedder) {
    embedder.adopt(catalog.embedder);
    identity = readEmbedderIdentity(embedder);
  }
  const mismatch = catalog.embedder !== null && (catalog.embedder.id !== identity.id || catalog.embedder.dim !== identity.dim);
  const state = new EntryState(identity.dim);
  let maxSeq = 0;
  try {
    if (mismatch && !reembed) checkEmbedderMatch(catalog.embedder, identity, backend.location);
    for (const user of catalog.users) {
      state.addCold(user);
      if (user.maxSeq > maxSeq) maxSeq = user.maxSeq;
    }
    if (mismatch) {
      const byUser = new Map<string, EntryRecord[]>();
      for (const user of catalog.users) {
        byUser.set(
          user.userId,
          ownVectors((await callBackend(backend.location, `loading user ${user.userId}`, () => backend.loadUser(user.userId))).map(withLifecycle)),
        );
      }
      await reembedAll(embedder, [...byUser.values()].flat(), identity.dim);
      for (const [userId, records] of byUser) state.loadUser(userId, records);
    }
    await backend.accept?.();
  } catch (error) {
    await backend.close();
    throw error;
  }
  const { users: _users, ...rest } = catalog;
  const loaded: LoadedState = { ...rest, entries: [] };
  return { state, loaded, nextSeq: maxSeq + 1, reembedded: mismatch, identity, perUser: true };
}

/** `records` with each lean one (its vector read from where it is kept: state/lean-record.ts) replaced by a copy holding its own, which {@link reembedAll} can assign. */
function ownVectors(records: EntryRecord[]): EntryRecord[] {
  for (let i = 0; i < records.length; i++) if (isLean(records[i]!)) records[i] = { ...records[i]! };
  return records;
}

/** Recomputes every vector with `embedder` (in place); a failure rejects the open with nothing changed on disk. */
async function reembedAll(embedder: Embedder, entries: EntryRecord[], dim: number): Promise<void> {
  const live = entries.filter((e) => !isPurged(e));
  for (let i = 0; i < live.length; i += 256) {
    const slice = live.slice(i, i + 256);
    const embedded = await embedTexts(
      embedder,
      slice.map((e) => e.content),
      dim,
    );
    if (embedded.vectors === null) throw new MoomemError("EMBEDDING_FAILURE", `reembed: ${embedded.degradedReason}; the store was not changed`);
    slice.forEach((e, j) => (e.embedding = embedded.vectors![j]!));
  }
}

function checkEmbedderMatch(stored: EmbedderIdentity | null, current: EmbedderIdentity, location: string): void {
  if (stored === null) return;
  if (stored.id === current.id && stored.dim === current.dim) return;
  throw new MoomemError(
    "EMBEDDER_MISMATCH",
    `the store at ${location} holds vectors of embedder ${stored.id} (${stored.dim} dims) but was opened with ${current.id} (${current.dim} dims); open it with the same embedder, or with { reembed: true } to recompute every vector with the new one`,
  );
}
