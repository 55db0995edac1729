// `export()` of every user of a store that loads users when asked: user by user, without holding the write queue.

import type { EntryRecord } from "../types.ts";
import type { EntryState } from "../state/entry-state.ts";
import type { UserLoader } from "./user-loading.ts";

/**
 * One export under way: the users it has still to write, the last seq when it started, and the entries
 * of any of those users that a write was about to change, as they were (copy on write).
 */
class ExportCursor {
  readonly pending: Set<string>;
  readonly lastSeq: number;
  readonly kept = new Map<string, EntryRecord[]>();

  constructor(users: Iterable<string>, lastSeq: number) {
    this.pending = new Set(users);
    this.lastSeq = lastSeq;
  }

  /** The user's entries as they were when the export started: an entry keeps its seq for life, and a newer one has a larger seq. */
  asAtStart(entries: readonly EntryRecord[]): EntryRecord[] {
    return entries.filter((e) => e.seq <= this.lastSeq);
  }
}

/**
 * The exports under way, told of every write before it changes a user (`WriteQueue` calls
 * {@link beforeWrite} for each write for one user, once the user is loaded). An export then writes every
 * user as it was when the export started, one user at a time, while writes go on: a user that a write
 * is about to change has its entries kept first (a copy of the list; records are immutable), and an
 * import (which only adds entries, with new seqs) is left out by seq. So the export is one instant of
 * the whole store, its header's count exact, without the queue waiting for it (README, "Export and import").
 */
export class ExportWatch {
  readonly #active = new Set<ExportCursor>();
  readonly #state: EntryState;

  constructor(state: EntryState) {
    this.#state = state;
  }

  /** Before a write for `userId` changes anything: every export that has still to write the user keeps its entries as they are. */
  beforeWrite(userId: string): void {
    if (this.#active.size === 0 || this.#state.isCold(userId)) return;
    for (const cursor of this.#active) {
      if (!cursor.pending.has(userId) || cursor.kept.has(userId)) continue;
      cursor.kept.set(userId, cursor.asAtStart(this.#state.entriesOf(userId)));
    }
  }

  /**
   * Every user's entries as they were at `start` (read once every write before it is durable: the
   * users, their count and the last seq handed out), user by user in user id order, each loaded for its
   * turn (so `maxLoadedUsers` holds). Yields the count first (for the header), then one array per user.
   * The export stops being told of writes once the generator ends, however it ends.
   */
  async *stream(
    start: () => Promise<{ users: string[]; count: number; lastSeq: number }>,
    users: UserLoader,
    durable: <T>(read: () => T) => Promise<T>,
  ): AsyncGenerator<number | EntryRecord[], void, undefined> {
    const { users: ids, count, lastSeq } = await start();
    const cursor = new ExportCursor(ids, lastSeq);
    this.#active.add(cursor);
    try {
      yield count;
      for (const userId of [...cursor.pending].sort()) {
        const records =
          cursor.kept.get(userId) ?? (await users.use(userId, () => durable(() => cursor.kept.get(userId) ?? cursor.asAtStart(this.#state.entriesOf(userId)))));
        cursor.pending.delete(userId);
        cursor.kept.delete(userId);
        yield records;
      }
    } finally {
      this.#active.delete(cursor);
    }
  }
}
