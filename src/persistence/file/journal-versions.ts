// The journal's entries since the snapshot, as the open of a file store keeps them: the same for a v5 snapshot (section-index.ts) and older ones (user-index.ts).

import type { EntryRecord } from "../../types.ts";
import { MoomemError } from "../../errors.ts";

/** Which journal entry holds a seq. */
export interface SeqHolder {
  id: string;
  userId: string;
}

/**
 * The latest version of each entry the journal holds, per user and id, and the entry holding each
 * seq: a journal entry never takes a seq another entry holds (that is damage, {@link bothStored}).
 * The journal is bounded by compaction, so this stays small.
 */
export class JournalVersions {
  readonly #byUser = new Map<string, Map<string, EntryRecord>>();
  readonly #seqs = new Map<number, SeqHolder>();
  #count = 0;

  /** Records `entry` as its id's latest version; a seq another id holds is `STORE_CORRUPTED`. */
  add(entry: EntryRecord): void {
    const holder = this.#seqs.get(entry.seq);
    if (holder !== undefined && holder.id !== entry.id) throw bothStored(holder.id, entry.id, entry.seq);
    this.#seqs.set(entry.seq, { id: entry.id, userId: entry.userId });
    let versions = this.#byUser.get(entry.userId);
    if (versions === undefined) this.#byUser.set(entry.userId, (versions = new Map()));
    if (!versions.has(entry.id)) this.#count++;
    versions.set(entry.id, entry);
  }

  /** The journal entry holding `seq`, if any. */
  holder(seq: number): SeqHolder | undefined {
    return this.#seqs.get(seq);
  }

  /** Every seq a journal entry holds, increasing. */
  seqs(): number[] {
    return [...this.#seqs.keys()].sort((a, b) => a - b);
  }

  /** Entries (latest versions) in the journal. */
  get count(): number {
    return this.#count;
  }

  /** Whether the journal holds a version of `id` for `userId`. */
  has(userId: string, id: string): boolean {
    return this.#byUser.get(userId)?.has(id) === true;
  }

  /** Users with entries in the journal. */
  users(): IterableIterator<string> {
    return this.#byUser.keys();
  }

  /** Whether the journal holds entries of `userId`. */
  holdsUser(userId: string): boolean {
    return this.#byUser.has(userId);
  }

  /** The user's entries written since the snapshot (latest versions). */
  of(userId: string): EntryRecord[] {
    return [...(this.#byUser.get(userId)?.values() ?? [])];
  }

  /** Every entry written since the snapshot, in seq order. */
  all(): EntryRecord[] {
    const all: EntryRecord[] = [];
    for (const versions of this.#byUser.values()) all.push(...versions.values());
    return all.sort((a, b) => a.seq - b.seq);
  }
}

/** Two entries holding one seq: the store's data is inconsistent. */
export function bothStored(first: string, second: string, seq: number): MoomemError {
  return new MoomemError("STORE_CORRUPTED", `${first} and entry ${second} both hold seq ${seq}; the store's data is inconsistent. moomem changed no file.`);
}
