// What `open` does with the backend: read the store, check (or recompute) its vectors, group the entries per user.

import type { Embedder, EntryRecord } from "../types.ts";
import type { EmbedderIdentity, LoadedState, PersistenceBackend } from "../persistence/backend.ts";
import { MoomemError } from "../errors.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { StoredEmbedder } from "../embedding/stored-embedder.ts";
import { callBackend, readEmbedderIdentity } from "../validation/plugin-checks.ts";
import { EntryState } from "../state/entry-state.ts";
import { nextSeqAfter } from "../state/ids.ts";
import { isPurged, withLifecycle } from "../state/lifecycle.ts";

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
    if (mismatch) await reembedAll(embedder, loaded.entries, identity.dim);
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
  return { state, loaded, nextSeq: nextSeqAfter(maxSeq, loaded.entries), reembedded: mismatch, identity };
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
