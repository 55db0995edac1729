// The store the inspector serves: lends it to one request at a time safely while a catch-up may swap it for a fresher one.

import type { MemoryStore } from "../store/memory-store.ts";
import { describeError } from "../errors.ts";
import type { FollowState } from "./api-types.ts";
import { catchUp, storeFingerprint, type CatchUpTarget } from "./catch-up.ts";

export interface StoreHolderOptions {
  /** The store folder. */
  dir: string;
  /** True with `moomem ui --write`: the store holds the writer lock, so nobody else writes and there is nothing to catch up with. */
  writable: boolean;
  /** Opens the store (read-only unless `writable`); called once at start and again by each catch-up that found changes. */
  open: () => Promise<MemoryStore>;
  /** Source of time for the follow state (default `Date.now`). */
  now?: () => number;
}

/** How long a request waits for a catch-up before it answers from the state already read (the open of a small store takes milliseconds). */
export const CATCH_UP_WAIT_MS = 300;

/** A store instance and how many requests are using it (it is closed once replaced and no longer used). */
interface Lease {
  readonly store: MemoryStore;
  users: number;
  retired: boolean;
}

/**
 * Owns the inspected store. Each request runs through {@link use}, which first catches up with
 * the writer (one catch-up at a time; concurrent requests share it) and then lends the current
 * instance; an instance replaced by a catch-up is closed when its last request is done.
 */
export class StoreHolder implements CatchUpTarget {
  readonly dir: string;
  readonly writable: boolean;
  seen: string | null = null;
  readonly #open: () => Promise<MemoryStore>;
  readonly #now: () => number;
  #lease: Lease;
  #generation = 1;
  #checkedAt: number;
  #changedAt: number | null = null;
  #lastError: string | null = null;
  #catching: Promise<void> | null = null;
  #closed = false;

  private constructor(options: StoreHolderOptions, store: MemoryStore, seen: string | null) {
    this.dir = options.dir;
    this.writable = options.writable;
    this.#open = options.open;
    this.#now = options.now ?? Date.now;
    this.#lease = { store, users: 0, retired: false };
    this.seen = seen;
    this.#checkedAt = this.#now();
  }

  /** Opens the store; rejects as `MemoryStore.open` does (e.g. `STORE_LOCKED` for a writable open while an agent writes). */
  static async open(options: StoreHolderOptions): Promise<StoreHolder> {
    // Looked at before the open, so a write landing during the open is caught up with on the first request.
    const seen = options.writable ? null : await storeFingerprint(options.dir);
    return new StoreHolder(options, await options.open(), seen);
  }

  get store(): MemoryStore {
    return this.#lease.store;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Catches up with the writer, then runs `fn` with the current store and its generation (which
   * names what the store held, for caches); the store stays open until `fn` is done.
   */
  async use<T>(fn: (store: MemoryStore, generation: number) => Promise<T>): Promise<T> {
    await this.refreshBriefly();
    const lease = this.#lease;
    lease.users++;
    try {
      return await fn(lease.store, this.#generation);
    } finally {
      lease.users--;
      if (lease.retired && lease.users === 0) await closeQuietly(lease.store);
    }
  }

  /**
   * Catches up, but answers from the state already read when that takes longer than
   * {@link CATCH_UP_WAIT_MS}: a reopen of a large store takes seconds, and a click should not.
   * The catch-up goes on, and the page's poll re-renders once it is done.
   */
  async refreshBriefly(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CATCH_UP_WAIT_MS)));
    try {
      await Promise.race([this.refresh(), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Reads in what another process wrote (no-op when writable). A failed catch-up (e.g. the
   * store's files are mid-rewrite) keeps serving the previous state and reports why in
   * {@link followState}; the next request tries again.
   */
  refresh(): Promise<void> {
    if (this.writable || this.#closed) return Promise.resolve();
    this.#catching ??= (async () => {
      try {
        if (await catchUp(this)) {
          this.#generation++;
          this.#changedAt = this.#now();
        }
        this.#lastError = null;
      } catch (error) {
        this.#lastError = describeError(error);
      } finally {
        this.#checkedAt = this.#now();
        this.#catching = null;
      }
    })();
    return this.#catching;
  }

  /** Records that the inspector itself changed the store (a forget or restore with --write). */
  markChanged(): void {
    this.#generation++;
    this.#changedAt = this.#now();
  }

  async reopen(): Promise<void> {
    const fresh = await this.#open();
    const old = this.#lease;
    this.#lease = { store: fresh, users: 0, retired: false };
    old.retired = true;
    if (old.users === 0) await closeQuietly(old.store);
  }

  followState(): FollowState {
    return {
      mode: this.writable ? "write" : "follow",
      generation: this.#generation,
      checkedAt: this.#checkedAt,
      changedAt: this.#changedAt,
      lastError: this.#lastError,
    };
  }

  /** Waits for a running catch-up, then closes the store (flushing it when writable). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#catching;
    this.#lease.retired = true;
    await this.#lease.store.close();
  }
}

async function closeQuietly(store: MemoryStore): Promise<void> {
  try {
    await store.close();
  } catch (_error) {
    // A read-only store has nothing to flush; a failure to release its handles must not fail the request that finished last.
  }
}
