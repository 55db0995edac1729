// The store the inspector serves: catches up with the writer before each request, one catch-up at a time.

import type { MemoryStore } from "../index.ts";
import { describeError } from "../errors.ts";
import type { FollowState } from "./api-types.ts";
import { catchUp, type CatchUpTarget } from "./catch-up.ts";

export interface StoreHolderOptions {
  /** The store folder. */
  dir: string;
  /** True with `moomem ui --write`: the store holds the writer lock, so nobody else writes and there is nothing to catch up with. */
  writable: boolean;
  /** Opens the store (read-only unless `writable`); called once, at start. */
  open: () => Promise<MemoryStore>;
  /** Source of time for the follow state (default `Date.now`). */
  now?: () => number;
}

/** How long a request waits for a catch-up before it answers from the state already read (a catch-up after a compaction rereads the store). */
export const CATCH_UP_WAIT_MS = 300;

/**
 * Owns the inspected store. Each request runs through {@link use}, which first catches up with
 * the writer (one catch-up at a time; concurrent requests share it) and then runs with the store.
 */
export class StoreHolder implements CatchUpTarget {
  readonly dir: string;
  readonly writable: boolean;
  readonly store: MemoryStore;
  readonly #now: () => number;
  #generation = 1;
  #checkedAt: number;
  #changedAt: number | null = null;
  #lastError: string | null = null;
  #catching: Promise<void> | null = null;
  #closed = false;

  private constructor(options: StoreHolderOptions, store: MemoryStore) {
    this.dir = options.dir;
    this.writable = options.writable;
    this.store = store;
    this.#now = options.now ?? Date.now;
    this.#checkedAt = this.#now();
  }

  /** Opens the store; rejects as `MemoryStore.open` does (e.g. `STORE_LOCKED` for a writable open while an agent writes). */
  static async open(options: StoreHolderOptions): Promise<StoreHolder> {
    return new StoreHolder(options, await options.open());
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Catches up with the writer, then runs `fn` with the store and its generation (which names
   * what the store held, for caches).
   */
  async use<T>(fn: (store: MemoryStore, generation: number) => Promise<T>): Promise<T> {
    await this.refreshBriefly();
    return fn(this.store, this.#generation);
  }

  /**
   * Catches up, but answers from the state already read when that takes longer than
   * {@link CATCH_UP_WAIT_MS}: rereading a large store after a compaction takes seconds, and a click should not.
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
    await this.store.close();
  }
}
