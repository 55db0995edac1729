// One user's part of the entry state: the unit the add pipeline, recall and the lifecycle rules work on.

import type { EntryRecord } from "../types.ts";
import type { EntryState, UserShard } from "./entry-state.ts";

/**
 * What a call for one user reads: the user's entries, lookups that never return another user's entry,
 * and the user's indexes (built on first use). Everything above the state that works for one user
 * takes this rather than the whole {@link EntryState}, so that how a user's entries are held (today:
 * every user in memory; later: loaded on first use and unloaded under a memory bound) can change
 * behind it without touching the add pipeline, recall or the lifecycle rules (docs/architecture.md).
 */
export class UserEntries {
  readonly userId: string;
  readonly #state: EntryState;

  constructor(state: EntryState, userId: string) {
    this.#state = state;
    this.userId = userId;
  }

  /** Every entry of the user (any status), in seq order, without building the user's indexes. */
  get entries(): readonly EntryRecord[] {
    return this.#state.entriesOf(this.userId);
  }

  /** The user's entry with this id; undefined for a missing id and for another user's entry. */
  get(id: string): EntryRecord | undefined {
    return this.#state.getOf(this.userId, id);
  }

  /** The user's entry with this seq; undefined for a missing seq and for another user's entry. */
  bySeq(seq: number): EntryRecord | undefined {
    const record = this.#state.bySeq(seq);
    return record !== undefined && record.userId === this.userId ? record : undefined;
  }

  /** The entry that replaced `record` (one of this user's), when it is another entry of the user. */
  successor(record: EntryRecord): EntryRecord | undefined {
    return this.#state.successor(record);
  }

  /** The user's indexes, built on first use; undefined while the user has no entries. */
  shard(): UserShard | undefined {
    return this.#state.shard(this.userId);
  }
}
