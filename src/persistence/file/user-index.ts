// Where each user's entries are in a file store, so a user loads by reading its own lines (docs/decisions.md, "Per-user loading").

import type { EntryRecord, EntryStatus } from "../../types.ts";
import type { CatalogUser } from "../backend.ts";
import { JournalVersions, bothStored } from "./journal-versions.ts";
import { countEntry, emptyCatalogUser, seqNamedById } from "../user-catalog.ts";

/** One user's lines in the snapshot, in seq order, and their counts. */
interface SnapshotUser {
  seqs: number[];
  starts: number[];
  lengths: number[];
  statuses: EntryStatus[];
  summary: CatalogUser;
}

/** A snapshot line the journal may have replaced: checked by reading the line's id (see {@link UserIndex.toCheck}). */
export interface LineToCheck {
  seq: number;
  /** The id of the journal's version. */
  id: string;
  start: number;
  length: number;
}

/**
 * The snapshot's lines per user (byte ranges, seqs, statuses: about 40 bytes per entry, no content),
 * plus the journal's entries since the snapshot, decoded (the journal is bounded by compaction). The
 * latest version of a user's entries is their snapshot lines that no journal entry replaced, and their
 * journal entries.
 */
export class UserIndex {
  readonly #users = new Map<string, SnapshotUser>();
  /** Every snapshot seq, increasing, and the user holding it: a journal entry never takes another user's seq. */
  readonly #seqs: number[] = [];
  readonly #owners: string[] = [];
  readonly #journal = new JournalVersions();
  /** Snapshot seqs whose entry has a later version in the journal. */
  readonly #replaced = new Set<number>();
  /** At open: snapshot lines a journal entry may replace, to check by their id before trusting it. */
  readonly #toCheck = new Map<number, LineToCheck>();

  /** A snapshot line (in file order, which is seq order). */
  addSnapshot(entry: EntryRecord, start: number, length: number): void {
    let user = this.#users.get(entry.userId);
    if (user === undefined) {
      user = { seqs: [], starts: [], lengths: [], statuses: [], summary: emptyCatalogUser(entry.userId) };
      this.#users.set(entry.userId, user);
    }
    user.seqs.push(entry.seq);
    user.starts.push(start);
    user.lengths.push(length);
    user.statuses.push(entry.status);
    countEntry(user.summary, entry, 1);
    this.#seqs.push(entry.seq);
    this.#owners.push(entry.userId);
  }

  /**
   * A journal entry: read at open (`trusted` false: a snapshot line it may replace is checked by id
   * first, {@link toCheck}), or just appended by this process (`trusted`: the store never gives an
   * entry another seq, nor a new entry a seq in use).
   */
  addJournal(entry: EntryRecord, trusted: boolean): void {
    this.#journal.add(entry);
    const at = this.#snapshotPosition(entry.seq);
    if (at >= 0) {
      if (this.#owners[at] !== entry.userId) throw bothStored(`an entry of user ${this.#owners[at]}`, entry.id, entry.seq);
      if (trusted) this.#replaced.add(entry.seq);
      else this.#check(entry.userId, entry.seq, entry.id);
      return;
    }
    // An entry moved to a new seq by an older moomem names its first seq in its id: that line may be its earlier version.
    const named = seqNamedById(entry.id);
    if (!trusted && named !== null) {
      const namedAt = this.#snapshotPosition(named);
      if (namedAt >= 0 && this.#owners[namedAt] === entry.userId) this.#check(entry.userId, named, entry.id);
    }
  }

  #check(userId: string, seq: number, id: string): void {
    const user = this.#users.get(userId)!;
    const i = bisect(user.seqs, seq);
    this.#toCheck.set(seq, { seq, id, start: user.starts[i]!, length: user.lengths[i]! });
  }

  /** Snapshot lines to read at open: each is replaced when it holds the id of the journal's version. */
  toCheck(): LineToCheck[] {
    return [...this.#toCheck.values()];
  }

  /** What reading a line of {@link toCheck} found: its id. */
  checked(line: LineToCheck, idInSnapshot: string): void {
    this.#toCheck.delete(line.seq);
    if (idInSnapshot === line.id) this.#replaced.add(line.seq);
    else {
      const holder = this.#journal.holder(line.seq);
      if (holder !== undefined && holder.id !== idInSnapshot) throw bothStored(idInSnapshot, holder.id, line.seq);
    }
  }

  /** Entries of the latest version, every user. */
  get count(): number {
    return this.#seqs.length - this.#replaced.size + this.#journal.count;
  }

  /** Every user with at least one entry, with their counts. */
  catalog(): CatalogUser[] {
    const out = new Map<string, CatalogUser>();
    for (const [userId, user] of this.#users) {
      const summary = { ...user.summary };
      for (let i = 0; i < user.seqs.length; i++) {
        if (!this.#replaced.has(user.seqs[i]!)) continue;
        summary.total--;
        summary[user.statuses[i]!]--;
      }
      out.set(userId, summary);
    }
    for (const userId of this.#journal.users()) {
      let summary = out.get(userId);
      if (summary === undefined) out.set(userId, (summary = emptyCatalogUser(userId)));
      for (const entry of this.#journal.of(userId)) countEntry(summary, entry, 1);
    }
    return [...out.values()].filter((u) => u.total > 0);
  }

  /** The user's snapshot lines still in force, in seq order. */
  linesOf(userId: string): { seq: number; start: number; length: number }[] {
    const user = this.#users.get(userId);
    if (user === undefined) return [];
    const out: { seq: number; start: number; length: number }[] = [];
    for (let i = 0; i < user.seqs.length; i++) {
      const seq = user.seqs[i]!;
      if (!this.#replaced.has(seq)) out.push({ seq, start: user.starts[i]!, length: user.lengths[i]! });
    }
    return out;
  }

  /** Every user with a snapshot line or a journal entry. */
  users(): string[] {
    const out = new Set(this.#users.keys());
    for (const userId of this.#journal.users()) out.add(userId);
    return [...out];
  }

  /** The user's entries written since the snapshot (latest versions). */
  journalOf(userId: string): EntryRecord[] {
    return this.#journal.of(userId);
  }

  /** Every entry written since the snapshot, in seq order. */
  journalAll(): EntryRecord[] {
    return this.#journal.all();
  }

  /** Whether the snapshot line with this seq has a later version in the journal. */
  isReplaced(seq: number): boolean {
    return this.#replaced.has(seq);
  }

  #snapshotPosition(seq: number): number {
    return bisect(this.#seqs, seq);
  }
}

/** Position of `value` in an increasing list, or -1. */
function bisect(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
