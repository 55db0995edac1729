// A store several processes write (PostgreSQL): before a call, a loaded user another process changed is caught up from the backend.

import type { EntryRecord } from "../types.ts";
import { MoomemError, isMoomemError } from "../errors.ts";
import type { PersistenceBackend, SharedWriting, UserCatchUp } from "../persistence/backend.ts";
import { callBackend } from "../validation/plugin-checks.ts";
import type { EntryState } from "../state/entry-state.ts";
import { withLifecycle } from "../state/lifecycle.ts";
import { applyRefreshed } from "./store-follower.ts";
import type { WriteQueue } from "./write-queue.ts";
import type { CallKind } from "./user-loading.ts";

/** Users remembered as written by other processes; past this many the memory starts again (each costs one lookup more). */
const OTHERS_WRITE_LIMIT = 10_000;

/**
 * Keeps the users this process holds current with what other processes wrote (docs/postgres.md,
 * "Consistency"). Before each call for a loaded user: one cheap lookup of the user's version; when it
 * moved, the changes are read and applied in the write queue with nothing staged. Skipped while this
 * process has a write for the user staged: that write is checked against the version under the user's
 * lock anyway, and caught up and planned again if it moved (write-queue.ts).
 *
 * An add is checked by its own write the same way, so it skips the lookup for a user no other process is
 * known to write (a user one app server keeps, the common case, then costs one round trip per add). Once
 * another process's write for the user was seen (here or as a conflict), its adds look first again: planning
 * on a stale copy would be refused and planned again, and a plan may call a model (the judge), which costs
 * far more than the lookup.
 */
export class SharedCatchUp {
  readonly #state: EntryState;
  readonly #backend: PersistenceBackend & SharedWriting;
  readonly #queue: () => WriteQueue;
  /** Users another process was seen writing: their adds look before they plan. */
  readonly #othersWrite = new Set<string>();

  /** `queue`: the store's write queue (a function: the queue is built with this object's `catchUp`). */
  constructor(state: EntryState, backend: PersistenceBackend & SharedWriting, queue: () => WriteQueue) {
    this.#state = state;
    this.#backend = backend;
    this.#queue = queue;
  }

  /** Before a call for these users (loaded and pinned): catches up those another process wrote since this one read them. */
  async beforeCall(users: readonly string[], kind: CallKind = "read"): Promise<void> {
    const queue = this.#queue();
    const moved: string[] = [];
    for (const userId of users) {
      if (this.#state.isCold(userId) || queue.pendingFor(userId)) continue;
      if (kind === "add" && !this.#othersWrite.has(userId)) continue;
      try {
        if (await callBackend(this.#backend.location, `checking user ${userId} for other writers`, () => this.#backend.userMoved(userId))) moved.push(userId);
      } catch (error) {
        // The database is unreachable: a read answers from what this process holds (recall stays in process); a
        // write fails at its own transaction, which checks the version again.
        if (isMoomemError(error, "IO_FAILURE")) continue;
        throw error;
      }
    }
    if (moved.length > 0) await queue.exclusive(() => this.catchUp(moved));
  }

  /** Applies what other processes wrote for these users (run in the write queue, with nothing staged). A user not loaded is read whole on its next call instead. */
  async catchUp(users: readonly string[]): Promise<void> {
    for (const userId of users) {
      if (this.#othersWrite.size >= OTHERS_WRITE_LIMIT) this.#othersWrite.clear();
      this.#othersWrite.add(userId);
      if (this.#state.isCold(userId)) continue;
      const found = await callBackend(this.#backend.location, `catching up user ${userId}`, () => this.#backend.catchUpUser(userId));
      if (found !== null) applyUser(this.#state, userId, found);
    }
  }
}

/** Brings one user's entries in `state` to what `found` says (the user's whole set with `replace`). */
function applyUser(state: EntryState, userId: string, found: UserCatchUp): void {
  const entries: EntryRecord[] = found.entries.map(withLifecycle);
  for (const entry of entries) {
    if (entry.userId !== userId) {
      throw new MoomemError(
        "STORE_CORRUPTED",
        `catching up user ${userId} gave entry ${entry.id} of another user; the store's data is inconsistent, nothing of it was applied`,
      );
    }
  }
  if (found.replace) {
    const kept = new Set(entries.map((e) => e.id));
    for (const e of [...state.entriesOf(userId)]) if (!kept.has(e.id)) state.remove(e.id);
  }
  applyRefreshed(state, { replace: false, entries, embedder: null, formatVersion: 0, lastWriteAt: null });
}
