// A backend that keeps everything in process memory (":memory:", tests, hosts that persist elsewhere).

import type { BackendStats, Batch, EmbedderIdentity, LoadedState, PersistenceBackend, SnapshotSource, StoreCatalog, UserLoading } from "../backend.ts";
import type { EntryRecord } from "../../types.ts";
import { MoomemError } from "../../errors.ts";
import { cloneEntry, ENTRY_FORMAT_VERSION } from "../record-codec.ts";
import { catalogOf } from "../user-catalog.ts";

/** Nothing is persisted; a memory store reports the current entry format, the number a new folder would report. */
export const CURRENT_FORMAT_VERSION: number = ENTRY_FORMAT_VERSION;

/**
 * Keeps entries in memory only: nothing survives the process. Each instance is
 * one store; reopening the same instance (after `close`) sees what was written,
 * which makes it handy in tests.
 *
 * @example
 * ```ts
 * const backend = new MemoryBackend();
 * const mem = await MemoryStore.open("test", { backend });
 * ```
 */
export class MemoryBackend implements PersistenceBackend {
  readonly location: string;
  #entries = new Map<string, EntryRecord>();
  /** The ids of each user's entries, so one user loads without going through everyone's. */
  #byUser = new Map<string, Set<string>>();
  #embedder: EmbedderIdentity | null = null;
  #lastWriteAt: number | null = null;
  #open = false;

  constructor(name = ":memory:") {
    this.location = name;
  }

  load(): Promise<LoadedState> {
    if (this.#open) return Promise.reject(this.#locked());
    this.#open = true;
    const entries = [...this.#entries.values()].sort((a, b) => a.seq - b.seq).map(cloneEntry);
    return Promise.resolve({
      entries,
      embedder: this.#embedder,
      truncatedRecovered: 0,
      formatVersion: CURRENT_FORMAT_VERSION,
      lastWriteAt: this.#lastWriteAt,
    });
  }

  #locked(): MoomemError {
    return new MoomemError("STORE_LOCKED", `memory backend "${this.location}" is already open in this process; close the other store first`);
  }

  /** {@link UserLoadingMemoryBackend.openCatalog} (here, where the entries are). */
  protected catalogNow(): Promise<StoreCatalog> {
    if (this.#open) return Promise.reject(this.#locked());
    this.#open = true;
    return Promise.resolve({
      users: catalogOf(this.#entries.values()),
      embedder: this.#embedder,
      truncatedRecovered: 0,
      formatVersion: CURRENT_FORMAT_VERSION,
      lastWriteAt: this.#lastWriteAt,
    });
  }

  /** {@link UserLoadingMemoryBackend.loadUser}. */
  protected entriesOfUser(userId: string): Promise<EntryRecord[]> {
    const ids = this.#byUser.get(userId) ?? new Set<string>();
    const entries = [...ids].map((id) => cloneEntry(this.#entries.get(id)!));
    return Promise.resolve(entries.sort((a, b) => a.seq - b.seq));
  }

  /** {@link UserLoadingMemoryBackend.scan}. */
  protected async *entriesInSeqOrder(): AsyncGenerator<EntryRecord, void, undefined> {
    // Ordered and copied at the start: appends made while the caller iterates are not seen half.
    const entries = [...this.#entries.values()].sort((a, b) => a.seq - b.seq);
    for (const entry of entries) yield cloneEntry(entry);
    await Promise.resolve();
  }

  /** {@link UserLoadingMemoryBackend.compactStored}. */
  protected recordEmbedder(embedder: EmbedderIdentity): Promise<void> {
    this.#embedder = { ...embedder };
    return Promise.resolve();
  }

  append(batches: readonly Batch[]): Promise<void> {
    for (const batch of batches) {
      for (const entry of batch.entries) {
        const previous = this.#entries.get(entry.id);
        if (previous !== undefined && previous.userId !== entry.userId) this.#byUser.get(previous.userId)?.delete(entry.id);
        this.#entries.set(entry.id, cloneEntry(entry));
        let ids = this.#byUser.get(entry.userId);
        if (ids === undefined) this.#byUser.set(entry.userId, (ids = new Set()));
        ids.add(entry.id);
      }
    }
    this.#lastWriteAt = Date.now();
    return Promise.resolve();
  }

  wantsCompaction(): boolean {
    return false;
  }

  /**
   * Holds exactly what the snapshot holds, as a file store's compaction does: after a `reembed` every vector
   * changed in the store's memory only, and a store opened again on this instance must read the new ones.
   */
  compact(source: SnapshotSource): Promise<void> {
    const entries = new Map<string, EntryRecord>();
    const byUser = new Map<string, Set<string>>();
    for (const entry of source.entries) {
      entries.set(entry.id, cloneEntry(entry));
      let ids = byUser.get(entry.userId);
      if (ids === undefined) byUser.set(entry.userId, (ids = new Set()));
      ids.add(entry.id);
    }
    this.#entries = entries;
    this.#byUser = byUser;
    this.#embedder = { ...source.embedder };
    return Promise.resolve();
  }

  stats(): BackendStats {
    return { bytesOnDisk: 0, lastWriteAt: this.#lastWriteAt };
  }

  close(): Promise<void> {
    this.#open = false;
    return Promise.resolve();
  }
}

/**
 * A {@link MemoryBackend} with the `UserLoading` capability (persistence/backend.ts): a store opened on it
 * loads each user when asked, as on files. For tests of per-user loading, and hosts that want a memory
 * store to hold only the users it serves. A plain `MemoryBackend` (and a host's subclass of it) is
 * opened with `load()`, as before.
 */
export class UserLoadingMemoryBackend extends MemoryBackend implements UserLoading {
  openCatalog(): Promise<StoreCatalog> {
    return this.catalogNow();
  }

  loadUser(userId: string): Promise<EntryRecord[]> {
    return this.entriesOfUser(userId);
  }

  scan(): AsyncIterable<EntryRecord> {
    return this.entriesInSeqOrder();
  }

  compactStored(embedder: EmbedderIdentity): Promise<void> {
    return this.recordEmbedder(embedder);
  }
}
