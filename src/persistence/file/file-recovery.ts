// Reads a file store as it is on disk and decides what the truth is (README, "On-disk layout and recovery"; docs/decisions.md, "Recovery"), without changing any file.

import type { EntryRecord, TornTail } from "../../types.ts";
import type { EmbedderIdentity } from "../backend.ts";
import { MoomemError } from "../../errors.ts";
import { errorCode, type FileSystem } from "./file-system.ts";
import { FormatError } from "./format-error.ts";
import { HEAD, isOwnTempFile, journalGen, journalName, parseHead, slotName } from "./file-layout.ts";
import { JOURNAL_FORMAT_VERSION, JournalScanner, type JournalScan } from "./journal-format.ts";
import { splitLines, type RawLine } from "../line-reader.ts";
import { SEED_SNAPSHOT_VERSION, SNAPSHOT_FORMAT_VERSION, SnapshotScanner, type SnapshotScan } from "./snapshot-format.ts";
import { describeTornTail } from "./torn-tail.ts";
import { isSectioned, readSectionTable, slotVersion, type SectionTable } from "./sectioned-snapshot.ts";

/** Everything an open needs to know, found by reading only. */
export interface RecoveredStore {
  /** Generation of the snapshot in force (0 for a store that never compacted). */
  gen: number;
  /** Slot holding that snapshot; null when there is none yet. */
  slot: 0 | 1 | null;
  formatVersion: number;
  embedder: EmbedderIdentity | null;
  /** Latest version of every entry, in seq order. */
  entries: EntryRecord[];
  /** Torn tails found (and, on a writable open, to be cut): 0 or 1 per file. */
  truncatedRecovered: number;
  /** What each torn tail held, as far as its bytes tell. */
  tornTails: TornTail[];
  /** ms since epoch of the last write found, or null. */
  lastWriteAt: number | null;
  /** The journal of `gen`, or null when it does not exist yet (new store, seed snapshot). */
  journal: (JournalScan & { size: number }) | null;
  /** Size of each of our files that exists (head, slots, journal). */
  sizes: Map<string, number>;
  /** Files a writable open deletes: journals of other gens, temp files left by a crash, the other slot. */
  stale: string[];
}

/**
 * Converts a format problem into the error users see: which file, which
 * line, what was wrong, that nothing was changed, and what they can do.
 */
export function corrupted(dir: string, name: string, error: FormatError): MoomemError {
  const advice =
    error.kind === "version"
      ? "It was written by another version of moomem; open it with that version (or a newer one)."
      : "moomem changed no file. Restore the folder from a backup; or move this file away to open the store without what it holds.";
  const where = error.line > 0 ? `${dir}/${name} line ${error.line}` : `${dir}/${name}`;
  return new MoomemError("STORE_CORRUPTED", `${where}: ${error.message}. ${advice}`, { cause: error });
}

function readFailure(dir: string, name: string, error: unknown): MoomemError {
  const code = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
  return new MoomemError("IO_FAILURE", `could not read ${dir}/${name} (${code}); no file was changed. Check the disk and its permissions, then open again.`, {
    cause: error,
  });
}

async function guardRead<T>(dir: string, name: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof MoomemError) throw error;
    if (error instanceof FormatError) throw corrupted(dir, name, error);
    throw readFailure(dir, name, error);
  }
}

async function scanSlot(fs: FileSystem, dir: string, name: string, onEntry: ((entry: EntryRecord, line: RawLine) => void) | null): Promise<SnapshotScan> {
  return guardRead(dir, name, async () => {
    const scanner = new SnapshotScanner({ decode: onEntry !== null });
    for await (const line of splitLines(fs.readChunks(`${dir}/${name}`))) {
      const entry = scanner.accept(line);
      if (entry !== null && onEntry !== null) onEntry(entry, line);
    }
    return scanner.finish();
  });
}

async function scanJournal(fs: FileSystem, dir: string, name: string, gen: number, onEntries: (entries: EntryRecord[]) => void): Promise<JournalScan> {
  return guardRead(dir, name, async () => {
    const scanner = new JournalScanner(gen);
    for await (const line of splitLines(fs.readChunks(`${dir}/${name}`))) {
      const entries = scanner.accept(line);
      if (entries !== null) onEntries(entries);
    }
    return scanner.finish();
  });
}

/**
 * Where a read hands the entries, instead of keeping the latest version of each (a store that loads its
 * users when asked keeps only where each entry is: see user-index.ts). A throw becomes `STORE_CORRUPTED`
 * naming the file, as a line's own damage does.
 */
export interface RecoverySink {
  /** An entry of the snapshot in force, with its line (in file order, which is seq order). */
  snapshotEntry(entry: EntryRecord, line: RawLine): void;
  /** An entry of the journal, in the order recovery applies them. */
  journalEntry(entry: EntryRecord): void;
  /**
   * When present, a v5 slot in force is not read line by line: only its header, trailer and table are
   * (checked as sectioned-snapshot.ts says), handed here; `snapshotEntry` then gets nothing from it.
   */
  snapshotTable?(table: SectionTable): void;
}

/** A slot in force read by its table only (v5, with a sink that takes tables); null for any other slot. */
async function tableOfSlot(fs: FileSystem, dir: string, name: string, sink: RecoverySink | null): Promise<SnapshotScan | null> {
  if (sink?.snapshotTable === undefined) return null;
  return guardRead(dir, name, async () => {
    const { version, header } = await slotVersion(fs, `${dir}/${name}`);
    if (!isSectioned(version) || header === null) return null;
    const table = await readSectionTable(fs, `${dir}/${name}`, header);
    sink.snapshotTable!(table);
    return { header: { version, gen: table.gen, clock: table.clock, count: null, embedder: table.embedder }, entries: table.count, truncated: 0 };
  });
}

/**
 * Reads the store in `dir` (the `moomem` folder) and applies the recovery
 * rules; throws `STORE_CORRUPTED` or `IO_FAILURE` and never writes.
 *
 * - `head` names a slot, which must be complete.
 * - `head` missing or unreadable: the complete slot with the larger gen whose
 *   journal exists (a v2 slot without its journal was never committed); with
 *   none, a store that never compacted (gen 0).
 * - The journal of that gen is replayed, each operation whole (a run of `"c":1`
 *   lines only with its last line); a torn tail, an operation left unfinished
 *   at the end included, is reported, damage throws.
 */
export async function recoverStore(fs: FileSystem, dir: string, sink: RecoverySink | null = null): Promise<RecoveredStore> {
  const names = await guardRead(dir, ".", () => fs.readdir(dir));
  const present = new Set(names ?? []);
  const journals = new Map<number, string>();
  for (const name of present) {
    const gen = journalGen(name);
    if (gen !== null) journals.set(gen, name);
  }

  const latest = new Map<string, EntryRecord>();
  const put = (entry: EntryRecord, line: RawLine): void => {
    if (sink === null) latest.set(entry.id, entry);
    else sink.snapshotEntry(entry, line);
  };

  let slot: 0 | 1 | null;
  let snapshot: SnapshotScan | null = null;
  const headBytes = present.has(HEAD) ? await guardRead(dir, HEAD, () => fs.readFile(`${dir}/${HEAD}`)) : null;
  const headSlot = headBytes === null ? null : parseHead(headBytes);
  if (headSlot !== null) {
    const name = slotName(headSlot);
    if (!present.has(name)) {
      throw corrupted(dir, HEAD, new FormatError(1, `head names ${name}, which does not exist`));
    }
    slot = headSlot;
    snapshot = (await tableOfSlot(fs, dir, name, sink)) ?? (await scanSlot(fs, dir, name, put));
  } else {
    slot = await pickSlot(fs, dir, present, journals, headBytes !== null);
    if (slot !== null) snapshot = (await tableOfSlot(fs, dir, slotName(slot), sink)) ?? (await scanSlot(fs, dir, slotName(slot), put));
  }

  const gen = snapshot?.header.gen ?? 0;
  const version = snapshot?.header.version ?? SNAPSHOT_FORMAT_VERSION;
  const journalFile = journalName(gen);
  let journal: (JournalScan & { size: number }) | null = null;
  if (present.has(journalFile)) {
    const scan = await scanJournal(fs, dir, journalFile, gen, (entries) => {
      for (const entry of entries) {
        if (sink === null) latest.set(entry.id, entry);
        else sink.journalEntry(entry);
      }
    });
    const size = await guardRead(dir, journalFile, () => fs.size(`${dir}/${journalFile}`));
    journal = { ...scan, size: size ?? scan.goodEnd };
  } else if (snapshot !== null && version !== SEED_SNAPSHOT_VERSION) {
    // Compaction creates and syncs the next journal before it commits head, so it cannot be missing.
    throw corrupted(dir, journalFile, new FormatError(0, `the journal of snapshot gen ${gen} (${slotName(slot ?? 0)}) is missing`));
  }

  const sizes = new Map<string, number>();
  for (const name of [HEAD, slotName(0), slotName(1), journalFile]) {
    if (!present.has(name)) continue;
    const size = await guardRead(dir, name, () => fs.size(`${dir}/${name}`));
    if (size !== null) sizes.set(name, size);
  }
  const stale: string[] = [];
  for (const [otherGen, name] of journals) if (otherGen !== gen) stale.push(name);
  for (const name of present) if (isOwnTempFile(name)) stale.push(name);
  // With a readable head the other slot is an older snapshot (left by a crash after a commit, or by the seed):
  // it may hold purged content. Without one it is kept, as evidence, until a compaction overwrites it.
  if (headSlot !== null && present.has(slotName(headSlot === 0 ? 1 : 0))) stale.push(slotName(headSlot === 0 ? 1 : 0));

  const tornTails: TornTail[] = [];
  if (snapshot !== null && snapshot.truncated > 0) {
    const name = slotName(slot ?? 0);
    tornTails.push({
      file: name,
      line: snapshot.entries + 2,
      bytes: 0,
      reason: "a half-written last line of a seed-format snapshot",
      writtenAt: null,
      entries: [],
    });
  }
  if (journal?.torn) tornTails.push(await describeTornTail(fs, dir, journalFile, journal.torn, journal.goodEnd, journal.size));

  const entries = [...latest.values()];
  if (!inSeqOrder(entries)) entries.sort((a, b) => a.seq - b.seq);
  return {
    gen,
    slot,
    // The older of the two files in force: a store that only has a v2 journal so far is a v2 store. A current
    // journal (v4) goes with a v4 or a v5 snapshot: the snapshot's version is the store's.
    formatVersion: journal === null || journal.version >= JOURNAL_FORMAT_VERSION ? version : Math.min(version, journal.version),
    embedder: snapshot?.header.embedder ?? null,
    entries,
    truncatedRecovered: (snapshot?.truncated ?? 0) + (journal?.torn ? 1 : 0),
    tornTails,
    lastWriteAt: journal?.lastTime ?? (version !== SEED_SNAPSHOT_VERSION ? (snapshot?.header.clock ?? null) : null),
    journal,
    sizes,
    stale,
  };
}

function inSeqOrder(entries: readonly EntryRecord[]): boolean {
  for (let i = 1; i < entries.length; i++) if (entries[i]!.seq <= entries[i - 1]!.seq) return false;
  return true;
}

/** The slot to trust when head says nothing usable; null for a store that never committed a compaction. */
async function pickSlot(
  fs: FileSystem,
  dir: string,
  present: ReadonlySet<string>,
  journals: ReadonlyMap<number, string>,
  headExists: boolean,
): Promise<0 | 1 | null> {
  let best: { slot: 0 | 1; gen: number } | null = null;
  const damaged: string[] = [];
  for (const candidate of [0, 1] as const) {
    const name = slotName(candidate);
    if (!present.has(name)) continue;
    let scan: SnapshotScan;
    try {
      scan = await scanSlot(fs, dir, name, null);
    } catch (error) {
      // A damaged slot is simply not a candidate; an unknown version is never guessed around.
      if (error instanceof MoomemError && error.code === "STORE_CORRUPTED" && !(error.cause instanceof FormatError && error.cause.kind === "version")) {
        damaged.push(name);
        continue;
      }
      throw error;
    }
    const { gen, version } = scan.header;
    const committed = version === SEED_SNAPSHOT_VERSION || journals.has(gen);
    if (!committed) continue;
    if (best === null || gen > best.gen) best = { slot: candidate, gen };
  }
  if (best !== null) return best.slot;
  // Nothing was ever committed: the first compaction died before writing head. Gen 0 is the truth.
  if (!headExists && [...journals.keys()].every((gen) => gen === 0)) return null;
  const why = headExists ? "head is unreadable" : "head is missing";
  const slots = damaged.length > 0 ? `${damaged.join(" and ")} cannot be trusted` : "no snapshot slot is complete with its journal";
  throw corrupted(dir, HEAD, new FormatError(0, `${why}, and ${slots}`));
}
