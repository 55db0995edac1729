// Loads a user's entries on the user's first call (backends with the UserLoading capability), and unloads the least recently used under a bound.

import type { EntryRecord } from "../types.ts";
import type { PersistenceBackend, UserLoading } from "../persistence/backend.ts";
import { callBackend } from "../validation/plugin-checks.ts";
import type { EntryState } from "../state/entry-state.ts";
import { withLifecycle } from "../state/lifecycle.ts";

const hasLifecycle = (record: EntryRecord): boolean => withLifecycle(record) === record;

/**
 * Which users are in memory. Every call for a user runs inside {@link use}: the user is pinned (never
 * unloaded) from before its entries are loaded until the call settled, which for a write is once it is
 * durable or rolled back; so a user with a write pending is never unloaded. Concurrent calls for a user
 * being loaded share one load. With `maxLoaded`, once a call ends the least recently used users beyond
 * the bound are unloaded (README, "Many users: loading a user when asked").
 */
/**
 * What a call does with a user, for the check of other processes' writes before it (store/shared-catch-up.ts): an
 * `add` (add, addMany) is checked by its own write, every other call (reads, forget, restore…) is a `read` here.
 */
export type CallKind = "read" | "add";

export class UserLoader {
  readonly #state: EntryState;
  readonly #backend: (PersistenceBackend & UserLoading) | null;
  readonly #maxLoaded: number | null;
  readonly #loading = new Map<string, Promise<void>>();
  readonly #pins = new Map<string, number>();
  /** Loaded users, least recently used first (a Map keeps insertion order: a use moves the user to the end). */
  readonly #recent = new Map<string, true>();
  /** A store several processes write: catches the users of a call up with the others' writes (store/shared-catch-up.ts). */
  #beforeCall: ((users: readonly string[], kind: CallKind) => Promise<void>) | null = null;
  /**
   * Users an import under the bound is writing without loading them (store/import-unloaded.ts), each with
   * the writes that may hold its entries and are not durable (or rolled back) yet: see {@link holdLoads}.
   */
  readonly #held = new Map<string, Set<Promise<void>>>();

  /** `backend`: null when every user was loaded at open (a backend without the capability). */
  constructor(state: EntryState, backend: (PersistenceBackend & UserLoading) | null, maxLoaded: number | null) {
    this.#state = state;
    this.#backend = backend;
    this.#maxLoaded = maxLoaded;
  }

  /** Runs `check` before every call, once its users are loaded and pinned (a store several processes write). */
  catchUpWith(check: (users: readonly string[], kind: CallKind) => Promise<void>): void {
    this.#beforeCall = check;
  }

  /**
   * Until the returned release is called, a first call for one of these users (not in memory) waits: an
   * import under a bound writes entries of users it does not load (state/entry-state.ts, `insertCold`), and
   * such a user must be read from the backend once they are there (or rolled back). Calls for other users,
   * and for users in memory, do not wait. The import holds from before its write is queued until it settled.
   */
  holdLoads(userIds: Iterable<string>): () => void {
    let release!: () => void;
    const settled = new Promise<void>((resolve) => (release = resolve));
    const users = [...new Set(userIds)];
    for (const u of users) {
      let writes = this.#held.get(u);
      if (writes === undefined) this.#held.set(u, (writes = new Set()));
      writes.add(settled);
    }
    return () => {
      for (const u of users) {
        const writes = this.#held.get(u)!;
        writes.delete(settled);
        if (writes.size === 0) this.#held.delete(u);
      }
      release();
    };
  }

  /** Resolves once no write that may hold entries of this user not in memory is pending (see {@link holdLoads}). */
  async #whileHeld(userId: string): Promise<void> {
    for (let writes = this.#held.get(userId); writes !== undefined; writes = this.#held.get(userId)) await Promise.all(writes);
  }

  /** Whether users are loaded when asked and unloaded beyond a bound (`maxLoadedUsers`). */
  get bounded(): boolean {
    return this.#backend !== null && this.#maxLoaded !== null;
  }

  /**
   * Pins these users (never unloaded) until the returned release is called: for a write that puts
   * entries of users already in memory, without loading any other.
   */
  pin(userIds: Iterable<string>): () => void {
    const users = [...new Set(userIds)];
    for (const u of users) this.#pins.set(u, (this.#pins.get(u) ?? 0) + 1);
    return () => {
      this.#unpin(users);
      this.#evict();
    };
  }

  #unpin(users: readonly string[]): void {
    for (const u of users) {
      const n = this.#pins.get(u)! - 1;
      if (n === 0) this.#pins.delete(u);
      else this.#pins.set(u, n);
    }
  }

  /** Whether users are loaded when asked (false: the whole store was read at open). */
  get perUser(): boolean {
    return this.#backend !== null;
  }

  /**
   * Runs `fn` with these users loaded and pinned; afterwards, unloads beyond the bound. `kind` tells the check for
   * other processes' writes what the call is: an add's own transaction checks the user's version anyway, so it may
   * skip the lookup for a user no other process is known to write (store/shared-catch-up.ts).
   */
  async use<T>(userIds: string | readonly string[], fn: () => Promise<T>, kind: CallKind = "read"): Promise<T> {
    if (this.#backend === null) return fn();
    const users = typeof userIds === "string" ? [userIds] : [...new Set(userIds)];
    for (const u of users) this.#pins.set(u, (this.#pins.get(u) ?? 0) + 1);
    try {
      for (const u of users) await this.#ensure(u);
      if (this.#beforeCall !== null) await this.#beforeCall(users, kind);
      return await fn();
    } finally {
      this.#unpin(users);
      this.#evict();
    }
  }

  /** Loaded users now (every user with entries in memory): the state's running count, O(1) on every call's way out. */
  get loadedCount(): number {
    return this.#state.loadedUserCount;
  }

  async #ensure(userId: string): Promise<void> {
    this.#recent.delete(userId);
    this.#recent.set(userId, true);
    // A user not in memory (cold, or new) whose entries an import is writing: read once they are durable.
    if (this.#held.has(userId) && !this.#state.isLoaded(userId)) await this.#whileHeld(userId);
    if (!this.#state.isCold(userId)) return;
    let loading = this.#loading.get(userId);
    if (loading === undefined) {
      loading = this.#load(userId).finally(() => this.#loading.delete(userId));
      this.#loading.set(userId, loading);
    }
    await loading;
  }

  async #load(userId: string): Promise<void> {
    const backend = this.#backend!;
    for (;;) {
      await this.#whileHeld(userId);
      const writes = this.#state.coldWrites;
      const records: EntryRecord[] = await callBackend(backend.location, `loading user ${userId}`, () => backend.loadUser(userId));
      // An import wrote entries of users not loaded while this one was read: they may be missing from what was read.
      if (this.#state.coldWrites !== writes) continue;
      // Checked, as every entry an open reads (see state/entry-state.ts, `load`); the user stays unloaded if one is refused.
      // Records of the built-in backends have their lifecycle: no copy of a large user's list for them.
      if (this.#state.isCold(userId)) this.#state.loadUser(userId, records.every(hasLifecycle) ? records : records.map(withLifecycle));
      return;
    }
  }

  /** Unloads the least recently used users beyond the bound, skipping any in use (pinned) or being loaded. */
  #evict(): void {
    const max = this.#maxLoaded;
    if (max === null) return;
    let excess = this.loadedCount - max;
    if (excess <= 0) return;
    // A Map's iterator tolerates deleting the key it is on: no copy of the users per call.
    for (const userId of this.#recent.keys()) {
      if (excess <= 0) break;
      if (this.#pins.has(userId) || this.#loading.has(userId)) continue;
      this.#recent.delete(userId);
      if (this.#state.unloadUser(userId)) excess--;
    }
  }
}
