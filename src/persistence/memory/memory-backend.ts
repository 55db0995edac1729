// A backend that keeps everything in process memory (":memory:", tests, hosts that persist elsewhere).

import type { BackendStats, Batch, EmbedderIdentity, LoadedState, PersistenceBackend, SnapshotSource } from "../backend.ts";
import type { EntryRecord } from "../../types.ts";
import { MoomemError } from "../../errors.ts";
import { cloneEntry, ENTRY_FORMAT_VERSION } from "../record-codec.ts";

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
  #embedder: EmbedderIdentity | null = null;
  #lastWriteAt: number | null = null;
  #open = false;

  constructor(name = ":memory:") {
    this.location = name;
  }

  load(): Promise<LoadedState> {
    if (this.#open) {
      return Promise.reject(new MoomemError("STORE_LOCKED", `memory backend "${this.location}" is already open in this process; close the other store first`));
    }
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

  append(batches: readonly Batch[]): Promise<void> {
    for (const batch of batches) {
      for (const entry of batch.entries) {
        this.#entries.set(entry.id, cloneEntry(entry));
      }
    }
    this.#lastWriteAt = Date.now();
    return Promise.resolve();
  }

  wantsCompaction(): boolean {
    return false;
  }

  compact(source: SnapshotSource): Promise<void> {
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
