// Where each user's entries are in a v5 snapshot (one table record per user), plus the journal since it (docs/decisions.md, "Snapshot v5").

import type { EntryRecord } from "../../types.ts";
import type { CatalogUser } from "../backend.ts";
import { JournalVersions, bothStored } from "./journal-versions.ts";
import { countEntry, emptyCatalogUser } from "../user-catalog.ts";
import { seqsOf, type SectionRecord, type SectionTable } from "./sectioned-snapshot.ts";

/**
 * The v5 counterpart of user-index.ts: one table record per user instead of one item per entry, and the
 * journal's entries since the snapshot, decoded (the journal is bounded by compaction).
 *
 * A journal entry replaces the snapshot line of the same user holding the same id; a journal entry
 * whose seq a snapshot line of another entry holds (of another user, or another id) is damage. Those
 * checks need the snapshot lines, which the open does not read in general: it reads the sections of
 * the users the journal writes to and of the users whose seq list (in the table) holds a journal seq
 * ({@link toSettle}), so a collision is found at open as with v4; every later read of a section checks
 * its lines against the journal again ({@link merge}).
 */
export class SectionIndex {
  readonly table: SectionTable;
  readonly #sections = new Map<string, SectionRecord>();
  readonly #journal = new JournalVersions();
  /** Summaries of users whose section was read at open (the journal writes to them): the table's counts no longer hold. */
  readonly #settled = new Map<string, CatalogUser>();

  constructor(table: SectionTable) {
    this.table = table;
    for (const section of table.sections) this.#sections.set(section.userId, section);
  }

  /** A journal entry (read at open, or appended by this process). */
  addJournal(entry: EntryRecord): void {
    this.#journal.add(entry);
  }

  /**
   * At open: the sections to read and check against the journal (see the class comment): those of the
   * users the journal writes to, and those whose seq list (the table's) holds a journal seq. Throws
   * {@link FormatError} for a seq list that does not match its record.
   */
  toSettle(): SectionRecord[] {
    if (this.#journal.count === 0) return [];
    const seqs = this.#journal.seqs();
    const out: SectionRecord[] = [];
    for (const section of this.#sections.values()) {
      if (this.#journal.holdsUser(section.userId)) out.push(section);
      else if (holdsOneOf(seqs, section.lo, section.hi) && seqsOf(section).some((seq) => this.#journal.holder(seq) !== undefined)) out.push(section);
    }
    return out;
  }

  /** Frees the seq lists (only the open's checks use them): about 4 bytes per entry. */
  releaseSeqs(): void {
    for (const section of this.#sections.values()) section.seqs = "";
  }

  /** At open: a section read for {@link toSettle}; checks it and counts the user's latest entries. */
  settle(section: SectionRecord, lines: readonly EntryRecord[]): void {
    const latest = this.merge(section.userId, lines);
    const summary = emptyCatalogUser(section.userId);
    for (const entry of latest) countEntry(summary, entry, 1);
    // A high-water mark: what the snapshot's lines named stays taken even if the journal replaced them.
    summary.maxSeq = Math.max(summary.maxSeq, section.summary.maxSeq);
    this.#settled.set(section.userId, summary);
  }

  /**
   * The latest version of `userId`'s entries, in seq order: the section's lines (already checked to be
   * the user's) that no journal entry of the user replaced (same id), and the user's journal entries.
   * A line whose seq a journal entry of another id holds is `STORE_CORRUPTED`.
   */
  merge(userId: string, lines: readonly EntryRecord[]): EntryRecord[] {
    const out: EntryRecord[] = [];
    for (const line of lines) {
      const holder = this.#journal.holder(line.seq);
      if (holder !== undefined && (holder.id !== line.id || holder.userId !== userId)) {
        throw bothStored(`entry ${line.id} of user ${userId} in the snapshot`, `${holder.id} of user ${holder.userId} in the journal`, line.seq);
      }
      if (!this.#journal.has(userId, line.id)) out.push(line);
    }
    out.push(...this.#journal.of(userId));
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Whether `line` (a snapshot line of its user) has a later version in the journal. */
  isReplaced(line: EntryRecord): boolean {
    return this.#journal.has(line.userId, line.id);
  }

  /** The user's section, or undefined when the snapshot holds none of theirs. */
  sectionOf(userId: string): SectionRecord | undefined {
    return this.#sections.get(userId);
  }

  /** Every section, in file order. */
  sections(): readonly SectionRecord[] {
    return this.table.sections;
  }

  /** Users with entries in the journal but no section. */
  journalOnlyUsers(): string[] {
    return [...this.#journal.users()].filter((u) => !this.#sections.has(u));
  }

  /** Every user with at least one entry, with their counts (the table's, or what the open read for users the journal wrote to). */
  catalog(): CatalogUser[] {
    const out: CatalogUser[] = [];
    for (const section of this.#sections.values()) out.push({ ...(this.#settled.get(section.userId) ?? section.summary) });
    for (const userId of this.journalOnlyUsers()) {
      const summary = emptyCatalogUser(userId);
      for (const entry of this.#journal.of(userId)) countEntry(summary, entry, 1);
      out.push(summary);
    }
    return out.filter((u) => u.total > 0);
  }

  /** The user's entries written since the snapshot (latest versions). */
  journalOf(userId: string): EntryRecord[] {
    return this.#journal.of(userId);
  }

  /** Every entry written since the snapshot, in seq order. */
  journalAll(): EntryRecord[] {
    return this.#journal.all();
  }
}

/** Whether the increasing list `seqs` holds a value in `lo..hi`. */
function holdsOneOf(seqs: readonly number[], lo: number, hi: number): boolean {
  let a = 0;
  let b = seqs.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (seqs[mid]! < lo) a = mid + 1;
    else b = mid;
  }
  return a < seqs.length && seqs[a]! <= hi;
}
