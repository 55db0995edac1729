// The Node file backend: dual-slot snapshot + head, CRC-checked journal with group commit, crash-safe compaction, writer lock.

import type { SyncMode, TornTail } from "../../types.ts";
import type { EntryRecord } from "../../types.ts";
import type {
  BackendStats,
  Batch,
  EmbedderIdentity,
  LoadedState,
  PersistenceBackend,
  RefreshedState,
  SnapshotSource,
  StoreCatalog,
  UserLoading,
} from "../backend.ts";
import { MoomemError, describeError, invalidArgument } from "../../errors.ts";
import { errorCode, type FileSystem, type WritableFile } from "./file-system.ts";
import { NodeFileSystem, pathFromFileUrl } from "./node-file-system.ts";
import { DEFAULT_LEASE_MS, FileLock, MAX_LEASE_MS, MIN_LEASE_MS } from "./file-lock.ts";
import { HEAD, LOCK, STORE_FOLDER, TEMP_SUFFIX, journalName, slotName } from "./file-layout.ts";
import { recoverStore, type RecoveredStore, type RecoverySink } from "./file-recovery.ts";
import { catchUp, followPoint, headIdentity, type FollowPoint } from "./file-follower.ts";
import { encodeJournalHeader, encodeJournalRecord, JOURNAL_FORMAT_VERSION } from "./journal-format.ts";
import { ENTRY_LINES_SNAPSHOT_VERSION, SNAPSHOT_FORMAT_VERSION } from "./snapshot-format.ts";
import { encodeSectionedSnapshot, type SectionTable } from "./sectioned-snapshot.ts";
import { UserIndex } from "./user-index.ts";
import { SectionIndex } from "./section-index.ts";
import {
  checkReplacedLines,
  entriesByUser,
  readUserEntries,
  readUserEntriesV5,
  settleSections,
  storedEntries,
  storedEntriesV5,
  type SnapshotPlace,
} from "./stored-entries.ts";
import { concat, encodeUtf8 } from "../line-reader.ts";

/** Options of {@link FileBackend}. */
export interface FileBackendOptions {
  /**
   * When an acknowledged write is on disk (README, "On-disk layout and recovery"): `"always"` (default)
   * fdatasyncs each write group before it resolves; `"interval"` at most every
   * `syncIntervalMs`; `"none"` only at compaction and close. A killed process
   * loses nothing acknowledged in any mode; a power loss may lose the unsynced tail.
   */
  sync?: SyncMode;
  /** Period of the background fdatasync with `sync: "interval"`, in ms (default 100). */
  syncIntervalMs?: number;
  /**
   * Open without the writer lock and never write (inspect a store an agent is
   * using). The folder must hold a store: a read-only open never creates one
   * (`STORE_NOT_FOUND`). `refresh()` then catches up with what the writer
   * committed since.
   */
  readOnly?: boolean;
  /** Journal size in bytes above which `wantsCompaction()` says yes (default: the larger of 1 MiB and the snapshot's size). */
  compactAfterBytes?: number;
  /** The file-system seam (tests inject failures through it). Default: `node:fs`. */
  fs?: FileSystem;
  /** Source of the write times recorded in the journal (ms since epoch). Default `Date.now`. */
  now?: () => number;
  /**
   * Only where the store folder cannot hold a Unix socket (Windows, some
   * network and FUSE file systems): the writer lock is then a lease renewed
   * every quarter of this many ms, and a writer that died blocks the store
   * for at most this long after its last renewal. Default 10000; 200 to
   * 600000. See docs/security.md.
   */
  lockLeaseMs?: number;
}

const SYNC_MODES: readonly SyncMode[] = ["always", "interval", "none"];
/** Every method of the FileSystem seam (a seam written for moomem 0.1 lacks the lock's and the follower's). */
const SEAM_METHODS = [
  "mkdirp",
  "readdir",
  "size",
  "stat",
  "readFile",
  "readChunks",
  "open",
  "createExclusive",
  "link",
  "touch",
  "rename",
  "unlink",
  "syncDir",
  "processAlive",
  "listenSocket",
  "probeSocket",
  "identity",
] as const;
const MIN_COMPACT_BYTES = 1024 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;

function ioAdvice(error: unknown): string {
  switch (errorCode(error)) {
    case "ENOSPC":
    case "EDQUOT":
      return "the disk is full: free some space";
    case "EACCES":
    case "EPERM":
      return "check the permissions of the store folder";
    case "EROFS":
      return "the file system is read-only: open with { readOnly: true }";
    case "ENOTDIR":
      return "a part of the path is a file, not a folder: pass a folder path";
    case "ENOENT":
      return "pass a folder on a disk moomem can write to";
    default:
      return "check the disk";
  }
}

function reason(error: unknown): string {
  const code = errorCode(error);
  const text = describeError(error);
  return code === undefined || text.includes(code) ? text : `${code}: ${text}`;
}

type State = "new" | "loading" | "open" | "closed";

/**
 * Keeps a store in `<dir>/moomem/`: `head` names the slot (`slot0.jsonl` /
 * `slot1.jsonl`) holding the last snapshot; `journal.<gen>.jsonl` holds every
 * batch committed since, one CRC-checked line each; `LOCK.<n>` is the
 * writer lock (see file-lock.ts).
 *
 * - A write group is one `write` and (with `sync: "always"`) one `fdatasync`,
 *   so a write costs the same however large the store is.
 * - A large operation (batches chained by `continues`) is several lines
 *   flagged `"c":1` up to its last; recovery applies them only together, so
 *   a crash keeps the whole operation or none of it.
 * - A failed write is cut back off the journal and rejected; a failed
 *   fdatasync poisons the backend: every later call rejects until the store
 *   is reopened (an fsync is never retried, since the kernel may have dropped
 *   the data it could not write).
 * - Compaction streams the snapshot into the inactive slot and commits by
 *   renaming `head`; a crash at any step reopens to the same state.
 * - `load()` only reads: it takes the lock, finds the torn journal tail (an
 *   unfinished operation included; counted in `truncatedRecovered`, described
 *   in `tornTails`) and refuses damage with `STORE_CORRUPTED` naming file and
 *   line. The tail is cut and leftovers deleted by `accept()` (or the first
 *   write), so an open the store refuses changes no file.
 * - A read-only backend takes no lock, writes nothing, and `refresh()`
 *   catches up with what a writer committed since.
 *
 * @example
 * ```ts
 * const backend = new FileBackend("./memory", { sync: "interval" });
 * const mem = await MemoryStore.open("./memory", { backend });
 * ```
 */
export class FileBackend implements PersistenceBackend, UserLoading {
  readonly location: string;
  readonly #dir: string;
  readonly #fs: FileSystem;
  readonly #sync: SyncMode;
  readonly #syncIntervalMs: number;
  readonly #readOnly: boolean;
  readonly #compactAfterBytes: number | null;
  readonly #now: () => number;
  readonly #leaseMs: number;
  /** The folder the user named, which holds the store folder. */
  readonly #base: string;

  #state: State = "new";
  #poison: MoomemError | null = null;
  #lock: FileLock | null = null;
  #journal: WritableFile | null = null;
  #gen = 0;
  #slot: 0 | 1 | null = null;
  /** Records in the current journal. */
  #records = 0;
  /** Records known to be on disk (fdatasynced). */
  #synced = 0;
  #journalSize = 0;
  #journalHeaderSize = 0;
  /** Version of the open journal's header: lines appended to it are written in that version. */
  #journalVersion = JOURNAL_FORMAT_VERSION;
  /** Version of the snapshot in force (the one loaded, until a compaction writes the current one). */
  #formatVersion: number = SNAPSHOT_FORMAT_VERSION;
  #sizes = new Map<string, number>();
  #lastWriteAt: number | null = null;
  #chain: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastSyncAt = 0;
  /** Old journals and temp files whose deletion failed; retried after the next compaction (and deleted by the next writable open). */
  #leftovers: string[] = [];
  /** Set by close(): new calls are refused, queued ones still run. */
  #closing = false;
  /** A writable open's recovery, until accept() (or the first write) repairs the files and opens the journal. */
  #pending: RecoveredStore | null = null;
  #embedder: EmbedderIdentity | null = null;
  #tornTails: TornTail[] = [];
  /** A read-only open's place in the writer's files (see refresh). */
  #follow: FollowPoint | null = null;
  /** Opened with `openCatalog()`: where each user's entries are (the entries themselves stay on disk): per entry for v4 and older, per user for v5. */
  #index: UserIndex | SectionIndex | null = null;

  constructor(dir: string, options: FileBackendOptions = {}) {
    if (typeof dir !== "string" || dir.trim().length === 0 || dir.includes("\0")) {
      throw invalidArgument(`FileBackend needs a directory path, got ${JSON.stringify(dir) ?? String(dir)}; pass e.g. "./memory"`);
    }
    if (typeof options !== "object" || options === null) throw invalidArgument(`FileBackend options must be an object, got ${String(options)}`);
    const {
      sync = "always",
      syncIntervalMs = 100,
      readOnly = false,
      compactAfterBytes,
      fs = new NodeFileSystem(),
      now = Date.now,
      lockLeaseMs = DEFAULT_LEASE_MS,
    } = options;
    if (!SYNC_MODES.includes(sync)) throw invalidArgument(`sync must be "always", "interval" or "none", got ${JSON.stringify(sync) ?? String(sync)}`);
    if (typeof syncIntervalMs !== "number" || !Number.isFinite(syncIntervalMs) || syncIntervalMs <= 0 || syncIntervalMs > 3_600_000) {
      throw invalidArgument(`syncIntervalMs must be a number of ms in (0, 3600000], got ${String(syncIntervalMs)}`);
    }
    if (typeof readOnly !== "boolean") throw invalidArgument(`readOnly must be true or false, got ${String(readOnly)}`);
    if (compactAfterBytes !== undefined && (typeof compactAfterBytes !== "number" || !Number.isSafeInteger(compactAfterBytes) || compactAfterBytes < 1)) {
      throw invalidArgument(`compactAfterBytes must be a positive whole number of bytes, got ${String(compactAfterBytes)}`);
    }
    if (typeof fs !== "object" || fs === null) throw invalidArgument("fs must implement the FileSystem seam (see src/persistence/file/file-system.ts)");
    const missing = SEAM_METHODS.filter((m) => typeof (fs as unknown as Record<string, unknown>)[m] !== "function");
    if (missing.length > 0) {
      throw invalidArgument(`fs must implement the FileSystem seam (see src/persistence/file/file-system.ts); it has no ${missing.join(", ")}`);
    }
    if (typeof now !== "function") throw invalidArgument(`now must be a function returning ms since epoch, got ${typeof now}`);
    if (typeof lockLeaseMs !== "number" || !Number.isSafeInteger(lockLeaseMs) || lockLeaseMs < MIN_LEASE_MS || lockLeaseMs > MAX_LEASE_MS) {
      throw invalidArgument(`lockLeaseMs must be a whole number of ms in [${MIN_LEASE_MS}, ${MAX_LEASE_MS}], got ${String(lockLeaseMs)}`);
    }
    dir = folderPath(dir);
    this.location = dir;
    this.#base = dir.replace(/[\\/]+$/, "") || "/";
    this.#dir = `${this.#base}/${STORE_FOLDER}`.replace(/^\/\//, "/");
    this.#leaseMs = lockLeaseMs;
    this.#fs = fs;
    this.#sync = sync;
    this.#syncIntervalMs = syncIntervalMs;
    this.#readOnly = readOnly;
    this.#compactAfterBytes = compactAfterBytes ?? null;
    this.#now = now;
  }

  // ---------------------------------------------------------------- open

  async load(): Promise<LoadedState> {
    if (this.#state !== "new") {
      throw new MoomemError(
        this.#state === "closed" ? "STORE_CLOSED" : "INVALID_ARGUMENT",
        `FileBackend.load() may be called once per instance (${this.location}); create a new FileBackend to open the store again`,
      );
    }
    this.#state = "loading";
    try {
      const recovered = this.#readOnly ? await this.#loadReadOnly() : await this.#loadWritable();
      return { entries: recovered.entries, ...(await this.#opened(recovered)) };
    } catch (error) {
      this.#state = "closed";
      throw error;
    }
  }

  /**
   * Opens like `load()` (the same lock, recovery rules and refusals: every line is read and checked) but
   * keeps only where each user's entries are (user-index.ts), not the entries: a store then loads a
   * user with `loadUser`. Writable opens only (a read-only store follows its writer with `load()`).
   */
  async openCatalog(): Promise<StoreCatalog> {
    if (this.#readOnly) {
      throw invalidArgument(`openCatalog() is for writable opens; a read-only FileBackend (${this.location}) is opened with load(), which follows a writer`);
    }
    if (this.#state !== "new") {
      throw new MoomemError(
        this.#state === "closed" ? "STORE_CLOSED" : "INVALID_ARGUMENT",
        `FileBackend.openCatalog() may be called once per instance (${this.location}); create a new FileBackend to open the store again`,
      );
    }
    this.#state = "loading";
    try {
      let index: UserIndex | SectionIndex = new UserIndex();
      const sink: RecoverySink = {
        snapshotEntry: (entry, line) => (index as UserIndex).addSnapshot(entry, line.start, line.bytes.length),
        journalEntry: (entry) => (index instanceof SectionIndex ? index.addJournal(entry) : index.addJournal(entry, false)),
        // A v5 slot: only its table is read (sectioned-snapshot.ts).
        snapshotTable: (table) => (index = new SectionIndex(table)),
      };
      const recovered = await this.#loadWritable(sink);
      try {
        const place = { fs: this.#fs, dir: this.#dir, slot: recovered.slot === null ? null : slotName(recovered.slot) };
        if (index instanceof SectionIndex) {
          await settleSections(place, index);
          index.releaseSeqs();
        } else await checkReplacedLines(place, index);
      } catch (error) {
        if (this.#lock !== null) await releaseQuietly(this.#lock);
        this.#lock = null;
        if (error instanceof MoomemError) throw error;
        throw new MoomemError("IO_FAILURE", `could not read the store in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}, then open again`, {
          cause: error,
        });
      }
      const opened = await this.#opened(recovered);
      this.#index = index;
      return { users: index.catalog(), ...opened };
    } catch (error) {
      this.#state = "closed";
      throw error;
    }
  }

  /** The snapshot in force, for reading through the user index. */
  #place(): SnapshotPlace {
    return { fs: this.#fs, dir: this.#dir, slot: this.#slot === null ? null : slotName(this.#slot) };
  }

  #assertIndexed(what: string): UserIndex | SectionIndex {
    if (this.#state === "closed" || this.#closing) throw new MoomemError("STORE_CLOSED", `cannot ${what}: the file backend for ${this.location} is closed`);
    if (this.#state !== "open" || this.#index === null) {
      throw new MoomemError("INVALID_ARGUMENT", `cannot ${what}: the file backend for ${this.location} was not opened with openCatalog()`);
    }
    if (this.#poison !== null) throw this.#poison;
    return this.#index;
  }

  /** One user's entries (latest versions, seq order), read from the user's snapshot lines and the journal. */
  loadUser(userId: string): Promise<EntryRecord[]> {
    try {
      this.#assertIndexed("load a user");
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // After any write or compaction in flight: a compaction changes the snapshot the index points into.
    return this.#exclusive(async () => {
      const index = this.#assertIndexed("load a user");
      try {
        return index instanceof SectionIndex ? await readUserEntriesV5(this.#place(), index, userId) : await readUserEntries(this.#place(), index, userId);
      } catch (error) {
        if (error instanceof MoomemError) throw error;
        throw new MoomemError("IO_FAILURE", `could not read user ${userId}'s entries in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}, then retry`, {
          cause: error,
        });
      }
    });
  }

  /** Every entry, streamed in seq order (the store writes nothing while it iterates). */
  async *scan(): AsyncGenerator<EntryRecord, void, undefined> {
    const index = this.#assertIndexed("read every entry");
    try {
      yield* index instanceof SectionIndex ? storedEntriesV5(this.#place(), index) : storedEntries(this.#place(), index);
    } catch (error) {
      if (error instanceof MoomemError) throw error;
      throw new MoomemError("IO_FAILURE", `could not read the entries in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}, then retry`, { cause: error });
    }
  }

  /** Compaction from the store's own files: the snapshot in force merged with the journal, streamed into the new slot. */
  compactStored(embedder: EmbedderIdentity): Promise<void> {
    let index: UserIndex | SectionIndex;
    try {
      this.#assertUsable("compact");
      index = this.#assertIndexed("compact");
      checkEmbedder(embedder);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#exclusive(async () => {
      const place = this.#place();
      // User by user: each user's section read once (v5) or its lines (v4 and older), merged with the journal.
      await this.#compactNow((gen, onTable) => encodeSectionedSnapshot({ gen, clock: this.#lastWriteAt }, embedder, entriesByUser(place, index), { onTable }));
      this.#embedder = { id: embedder.id, dim: embedder.dim };
    });
  }

  /**
   * Ends an open that read `recovered`: unless close() was called meanwhile (then it gives back the lock
   * and throws STORE_CLOSED), takes it over and reports what `load()` and `openCatalog()` both report.
   */
  async #opened(recovered: RecoveredStore): Promise<Omit<LoadedState, "entries">> {
    if (this.#closing) {
      if (this.#lock !== null) await releaseQuietly(this.#lock);
      this.#lock = null;
      throw new MoomemError("STORE_CLOSED", `the file backend for ${this.location} was closed while it was opening`);
    }
    this.#adopt(recovered);
    this.#state = "open";
    return {
      embedder: recovered.embedder,
      truncatedRecovered: recovered.truncatedRecovered,
      tornTails: recovered.tornTails,
      formatVersion: recovered.formatVersion,
      // A v4 snapshot is current enough (its journal is the current one): it becomes v5 at the next compaction.
      outdated: recovered.formatVersion < ENTRY_LINES_SNAPSHOT_VERSION,
      lastWriteAt: recovered.lastWriteAt,
    };
  }

  /** Takes over what a full read found. */
  #adopt(recovered: RecoveredStore): void {
    this.#gen = recovered.gen;
    this.#slot = recovered.slot;
    this.#lastWriteAt = recovered.lastWriteAt;
    this.#formatVersion = recovered.formatVersion;
    this.#embedder = recovered.embedder;
    this.#tornTails = recovered.tornTails;
    this.#sizes = recovered.sizes;
    this.#journalSize = recovered.journal?.goodEnd ?? 0;
    this.#journalHeaderSize = recovered.journal?.headerEnd ?? 0;
  }

  /**
   * Refuses paths that cannot hold a store, with what is wrong: a file where
   * the folder should be, and (read-only) a folder that holds no store.
   */
  async #checkPath(): Promise<void> {
    const fs = this.#fs;
    const look = async (path: string): Promise<Awaited<ReturnType<FileSystem["stat"]>>> => {
      try {
        return await fs.stat(path);
      } catch (error) {
        if (errorCode(error) === "ENOTDIR") {
          throw invalidArgument(`the store path ${this.location} runs through a file (${reason(error)}); pass a folder path, e.g. "./memory"`);
        }
        throw new MoomemError("IO_FAILURE", `could not look at ${path} (${reason(error)}); ${ioAdvice(error)}`, { cause: error });
      }
    };
    const base = await look(this.#base);
    if (base !== null && base.kind !== "directory") {
      throw invalidArgument(
        `the store path ${this.location} is a file, not a folder; pass the folder moomem should keep its store in (it uses ${this.#dir}/), e.g. "./memory"`,
      );
    }
    const store = base === null ? null : await look(this.#dir);
    if (store !== null && store.kind !== "directory") {
      throw invalidArgument(`${this.#dir} is a file, but moomem keeps its store in a folder of that name; move the file away, or pass another folder`);
    }
    if (this.#readOnly && store === null) {
      throw new MoomemError(
        "STORE_NOT_FOUND",
        `there is no store at ${this.location} (${this.#dir} does not exist); check the path. A read-only open never creates a store: the first writable open does.`,
      );
    }
  }

  async #loadReadOnly(): Promise<RecoveredStore> {
    await this.#checkPath();
    // A writer may compact while we read (head flips, the old journal goes): read again when head moved.
    for (let attempt = 1; ; attempt++) {
      const headBefore = await this.#headForRetry();
      try {
        const recovered = await recoverStore(this.#fs, this.#dir);
        this.#follow = await followPoint(this.#fs, this.#dir, recovered, headBefore);
        return recovered;
      } catch (error) {
        if (attempt >= 5 || !(error instanceof MoomemError)) throw error;
        const headAfter = await this.#headForRetry();
        if (headAfter === headBefore) throw error;
      }
    }
  }

  async #headForRetry(): Promise<string | null> {
    try {
      return await headIdentity(this.#fs, this.#dir);
    } catch (error) {
      // Only used to notice a concurrent compaction; an unreadable head is reported by recovery itself.
      return `error:${reason(error)}`;
    }
  }

  async #loadWritable(sink: RecoverySink | null = null): Promise<RecoveredStore> {
    const fs = this.#fs;
    await this.#checkPath();
    try {
      // A new store's folders are made durable at once: each one's name in its parent.
      for (const created of await fs.mkdirp(this.#dir)) await fs.syncDir(parentFolder(created));
    } catch (error) {
      if (error instanceof MoomemError) throw error;
      throw new MoomemError("IO_FAILURE", `could not create the store folder ${this.#dir} (${reason(error)}); ${ioAdvice(error)}`, { cause: error });
    }
    let lock: FileLock;
    try {
      lock = await FileLock.acquire(fs, this.#dir, this.location, this.#leaseMs);
    } catch (error) {
      if (error instanceof MoomemError) throw error;
      throw new MoomemError("IO_FAILURE", `could not take the writer lock in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}`, { cause: error });
    }
    try {
      const recovered = await recoverStore(fs, this.#dir, sink);
      await this.#countLockFiles(recovered.sizes);
      this.#lock = lock;
      this.#pending = recovered;
      return recovered;
    } catch (error) {
      await releaseQuietly(lock);
      if (error instanceof MoomemError) throw error;
      throw new MoomemError("IO_FAILURE", `could not recover the store in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}, then open again`, {
        cause: error,
      });
    }
  }

  /**
   * The store accepted what `load()` read: only now are files changed (a torn
   * tail cut, a missing journal created, leftovers deleted, older lock files
   * removed), so an open that is refused (`EMBEDDER_MISMATCH`, …) changes
   * nothing. A writable backend that is written without `accept()` accepts
   * on its first write. Nothing to do for a read-only open.
   */
  accept(): Promise<void> {
    if (this.#state !== "open" || this.#closing) {
      return Promise.reject(
        new MoomemError(
          this.#state === "closed" || this.#closing ? "STORE_CLOSED" : "INVALID_ARGUMENT",
          `cannot accept: the file backend for ${this.location} is not open`,
        ),
      );
    }
    if (this.#readOnly) return Promise.resolve();
    return this.#exclusive(() => this.#acceptNow());
  }

  async #acceptNow(): Promise<void> {
    const recovered = this.#pending;
    if (recovered === null) return;
    if (this.#poison !== null) throw this.#poison;
    this.#pending = null;
    try {
      await this.#lock!.settle();
      await this.#repair(recovered);
    } catch (error) {
      await this.#closeJournalQuietly();
      // The files may be half repaired: only a new open may go on from them.
      this.#poison ??=
        error instanceof MoomemError && error.code === "STORE_LOCKED"
          ? error
          : new MoomemError("IO_FAILURE", `could not recover the store in ${this.#dir} (${reason(error)}); ${ioAdvice(error)}, then open again`, {
              cause: error,
            });
      throw this.#poison;
    }
  }

  /** After a successful read: cut a torn tail, create a missing journal, delete leftovers; then hold the journal open. */
  async #repair(recovered: RecoveredStore): Promise<void> {
    const fs = this.#fs;
    const name = journalName(recovered.gen);
    const path = `${this.#dir}/${name}`;
    const sizes = recovered.sizes;
    if (recovered.journal === null) {
      await this.#writeFileAtomically(name, encodeUtf8(encodeJournalHeader(recovered.gen)));
      this.#journal = await fs.open(path, "existing");
      this.#records = 0;
      this.#journalVersion = JOURNAL_FORMAT_VERSION;
      this.#journalHeaderSize = encodeUtf8(encodeJournalHeader(recovered.gen)).length;
      this.#journalSize = this.#journalHeaderSize;
    } else {
      const journal = recovered.journal;
      this.#journal = await fs.open(path, "existing");
      if (journal.size > journal.goodEnd) await this.#journal.truncate(journal.goodEnd);
      // Whatever a killed predecessor wrote but did not sync becomes durable now, so `s` stays truthful.
      await this.#journal.datasync();
      this.#records = journal.records;
      // A v2 journal gets v2 lines (dense vectors) until compaction replaces it: an older moomem can still read it.
      this.#journalVersion = journal.version;
      this.#journalHeaderSize = journal.headerEnd;
      this.#journalSize = journal.goodEnd;
    }
    this.#synced = this.#records;
    sizes.set(name, this.#journalSize);
    if (recovered.stale.length > 0) {
      for (const staleName of recovered.stale) {
        await fs.unlink(`${this.#dir}/${staleName}`);
        sizes.delete(staleName);
      }
      await fs.syncDir(this.#dir);
    }
    await this.#countLockFiles(sizes);
    this.#sizes = sizes;
    this.#lastSyncAt = performance.now();
  }

  /** Adds the lock's files to `sizes` (bytesOnDisk is the size of the whole folder), forgetting ones that are gone. */
  async #countLockFiles(sizes: Map<string, number>): Promise<void> {
    for (const name of [...sizes.keys()]) if (name === LOCK || name.startsWith(`${LOCK}.`)) sizes.delete(name);
    for (const name of (await this.#fs.readdir(this.#dir)) ?? []) {
      if (name === LOCK || (name.startsWith(`${LOCK}.`) && !name.endsWith(TEMP_SUFFIX))) sizes.set(name, (await this.#fs.size(`${this.#dir}/${name}`)) ?? 0);
    }
  }

  /** Writes a whole small file under a temp name, syncs it, renames it into place and syncs the folder. */
  async #writeFileAtomically(name: string, bytes: Uint8Array): Promise<void> {
    const temp = `${this.#dir}/${name}${TEMP_SUFFIX}`;
    const file = await this.#fs.open(temp, "create");
    try {
      await file.write(bytes, 0);
      await file.datasync();
    } finally {
      await file.close();
    }
    await this.#fs.rename(temp, `${this.#dir}/${name}`);
    await this.#fs.syncDir(this.#dir);
  }

  // ---------------------------------------------------------------- writes

  #assertUsable(what: string): void {
    if (this.#state === "closed" || this.#closing) throw new MoomemError("STORE_CLOSED", `cannot ${what}: the file backend for ${this.location} is closed`);
    if (this.#state !== "open") throw new MoomemError("INVALID_ARGUMENT", `cannot ${what} before load() finished (${this.location})`);
    if (this.#readOnly) {
      throw new MoomemError("READ_ONLY", `cannot ${what}: the store at ${this.location} was opened with { readOnly: true }; open it without readOnly to write`);
    }
    if (this.#poison !== null) throw this.#poison;
  }

  /** Runs `op` after every earlier operation of this backend (the background sync included) has finished. */
  #exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(op);
    // The caller gets `run`'s outcome; the chain only needs to know it is over.
    this.#chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  #poisonWith(error: unknown, what: string): MoomemError {
    this.#poison ??= new MoomemError(
      "IO_FAILURE",
      `${what} failed (${reason(error)}), so moomem cannot tell what reached the disk in ${this.#dir}. ` +
        "This store refuses further calls: close it and open it again (recovery keeps every write that was acknowledged).",
      { cause: error },
    );
    return this.#poison;
  }

  append(batches: readonly Batch[]): Promise<void> {
    try {
      this.#assertUsable("append");
      if (!Array.isArray(batches)) throw invalidArgument(`append takes an array of batches, got ${typeof batches}`);
      for (const batch of batches) {
        if (typeof batch !== "object" || batch === null || !Array.isArray((batch as Batch).entries)) {
          throw invalidArgument("every batch must be { entries: EntryRecord[], continues?: boolean }");
        }
        const continues: unknown = (batch as Batch).continues;
        if (continues !== undefined && typeof continues !== "boolean") {
          throw invalidArgument(`a batch's continues must be true, false or absent, got ${String(continues)}`);
        }
      }
      if (batches.length > 0 && batches[batches.length - 1]!.continues === true) {
        // A run must end inside the append that starts it: the journal could not tell it from a torn one otherwise.
        throw invalidArgument(
          "the last batch of an append has continues: true, but there is no next batch in this call to continue into; end the operation in the same call",
        );
      }
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (batches.length === 0) return Promise.resolve();
    return this.#exclusive(() => this.#appendNow(batches));
  }

  async #appendNow(batches: readonly Batch[]): Promise<void> {
    if (this.#poison !== null) throw this.#poison;
    await this.#acceptNow();
    // A lease that lapsed while the event loop was blocked is renewed (or found lost) before anything is written.
    await this.#holdLock();
    const journal = this.#journal;
    if (journal === null) throw new MoomemError("STORE_CLOSED", `cannot append: the journal of ${this.location} is closed`);
    const name = journalName(this.#gen);
    const start = this.#journalSize;
    const time = this.#now();
    const lines = batches.map((batch, i) =>
      encodeJournalRecord(
        this.#gen,
        { n: this.#records + 1 + i, synced: this.#synced, time, continues: batch.continues === true, entries: batch.entries },
        this.#journalVersion,
      ),
    );
    const bytes = concat(lines);
    try {
      await journal.write(bytes, start);
    } catch (error) {
      await this.#cutBack(journal, start, "cutting a failed write off the journal");
      throw new MoomemError(
        "IO_FAILURE",
        `could not write to ${this.#dir}/${name} (${reason(error)}); nothing of this write was kept. ${ioAdvice(error)}, then retry.`,
        { cause: error },
      );
    }
    if (this.#sync === "always") {
      try {
        await journal.datasync();
      } catch (error) {
        // Not acknowledged: take the bytes back so this process never shows them, then stop trusting the file.
        await this.#cutBack(journal, start, "cutting an unsynced write off the journal");
        throw this.#poisonWith(error, `fdatasync of ${this.#dir}/${name}`);
      }
      this.#synced = this.#records + batches.length;
      this.#lastSyncAt = performance.now();
    }
    this.#records += batches.length;
    this.#journalSize = start + bytes.length;
    this.#sizes.set(name, this.#journalSize);
    this.#lastWriteAt = Number.isFinite(time) ? Math.max(0, Math.round(time)) : 0;
    const index = this.#index;
    if (index instanceof SectionIndex) for (const batch of batches) for (const entry of batch.entries) index.addJournal(entry);
    else if (index !== null) for (const batch of batches) for (const entry of batch.entries) index.addJournal(entry, true);
    if (this.#sync === "interval") this.#scheduleSync();
  }

  /**
   * Throws unless this backend still holds the writer lock; a lost lock
   * poisons the backend (`STORE_LOCKED`: another writer owns the files now).
   * `thorough` also checks that the lock's file is still in place.
   */
  async #holdLock(thorough = false): Promise<void> {
    const lock = this.#lock;
    if (lock === null) throw new MoomemError("STORE_CLOSED", `the writer lock of ${this.location} was released`);
    try {
      await (thorough ? lock.verify() : lock.ensureHeld());
    } catch (error) {
      if (error instanceof MoomemError) {
        if (error.code === "STORE_LOCKED") this.#poison ??= error;
        throw error;
      }
      throw new MoomemError(
        "IO_FAILURE",
        `could not check the writer lock in ${this.#dir} (${reason(error)}); nothing was written. ${ioAdvice(error)}, then retry.`,
        { cause: error },
      );
    }
  }

  /** Truncates the journal back to `length`; when even that fails the file's content is unknown and the backend is poisoned. */
  async #cutBack(journal: WritableFile, length: number, what: string): Promise<void> {
    try {
      await journal.truncate(length);
    } catch (error) {
      this.#poisonWith(error, what);
    }
  }

  #scheduleSync(): void {
    if (this.#timer !== null || this.#synced === this.#records) return;
    const delay = Math.max(0, this.#lastSyncAt + this.#syncIntervalMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#exclusive(() => this.#syncNow()).catch((error: unknown) => {
        // Nobody awaits the background sync: its failure poisons the backend, and the next call reports it.
        this.#poisonWith(error, `background fdatasync of ${this.#dir}/${journalName(this.#gen)}`);
      });
    }, delay);
    // Never keep the process alive just to sync; close() syncs what is left.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  async #syncNow(): Promise<void> {
    if (this.#journal === null || this.#poison !== null || this.#synced === this.#records) return;
    const target = this.#records;
    try {
      await this.#journal.datasync();
    } catch (error) {
      throw this.#poisonWith(error, `background fdatasync of ${this.#dir}/${journalName(this.#gen)}`);
    }
    this.#synced = target;
    this.#lastSyncAt = performance.now();
  }

  wantsCompaction(): boolean {
    if (this.#state !== "open" || this.#readOnly || this.#poison !== null) return false;
    const snapshotSize = this.#slot === null ? 0 : (this.#sizes.get(slotName(this.#slot)) ?? 0);
    const threshold = this.#compactAfterBytes ?? Math.max(MIN_COMPACT_BYTES, snapshotSize);
    return this.#journalSize - this.#journalHeaderSize >= threshold;
  }

  /**
   * Whether a compaction would change the files: the journal holds an operation (this process's or one
   * left by a process that never closed), the snapshot or journal is in an older format, or files a
   * compaction failed to delete (they may hold purged content) are left. A new store (no snapshot) too.
   * A poisoned backend says yes: the compaction is refused with the failure, so close reports it as before.
   */
  hasUncompacted(): boolean {
    if (this.#state !== "open" || this.#readOnly) return false;
    return (
      this.#poison !== null ||
      this.#journalSize > this.#journalHeaderSize ||
      this.#slot === null ||
      this.#formatVersion < SNAPSHOT_FORMAT_VERSION ||
      this.#journalVersion < JOURNAL_FORMAT_VERSION ||
      this.#leftovers.length > 0
    );
  }

  // ---------------------------------------------------------------- compaction

  compact(source: SnapshotSource): Promise<void> {
    try {
      this.#assertUsable("compact");
      if (typeof source !== "object" || source === null) throw invalidArgument("compact takes { embedder, count, entries }");
      const { embedder, count, entries } = source;
      checkEmbedder(embedder);
      if (!Number.isSafeInteger(count) || count < 0) throw invalidArgument(`compact needs count to be a whole number ≥ 0, got ${String(count)}`);
      if (entries === null || typeof (entries as Partial<Iterable<unknown>>)[Symbol.iterator] !== "function") {
        throw invalidArgument("compact needs entries to be an iterable of entries in seq order");
      }
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#exclusive(async () => {
      await this.#compactNow((gen, onTable) =>
        encodeSectionedSnapshot({ gen, clock: this.#lastWriteAt }, source.embedder, groupByUser(source.entries, source.count), {
          count: source.count,
          onTable,
        }),
      );
      if (this.#index !== null) this.#embedder = { id: source.embedder.id, dim: source.embedder.dim };
    });
  }

  /**
   * `lines`: the new snapshot's lines for generation `gen`, which hand `onTable` the new snapshot's
   * table once written (with a user index, the new index is made of it at the commit).
   */
  async #compactNow(lines: (gen: number, onTable: (table: SectionTable) => void) => Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<void> {
    if (this.#poison !== null) throw this.#poison;
    await this.#acceptNow();
    await this.#holdLock();
    const fs = this.#fs;
    const dir = this.#dir;
    const nextGen = this.#gen + 1;
    const target: 0 | 1 = this.#slot === 0 ? 1 : 0;
    const slotFile = slotName(target);
    const nextJournal = journalName(nextGen);
    const oldJournal = journalName(this.#gen);
    const oldSlot = this.#slot === null ? null : slotName(this.#slot);

    // Until head is renamed nothing is committed: a failure leaves the current snapshot + journal in force.
    let slotSize: number;
    let table: SectionTable | null = null;
    try {
      slotSize = await this.#writeSnapshot(
        `${dir}/${slotFile}${TEMP_SUFFIX}`,
        lines(nextGen, (t) => (table = t)),
      );
      if (table === null) throw new Error("internal: the snapshot was written without its table");
      // Each rename below changes a name a successor would use: none is made without the lock.
      await this.#holdLock(true);
      await fs.rename(`${dir}/${slotFile}${TEMP_SUFFIX}`, `${dir}/${slotFile}`);
      this.#sizes.set(slotFile, slotSize);
      await this.#writeTempFile(nextJournal, encodeUtf8(encodeJournalHeader(nextGen)));
      await this.#holdLock();
      await fs.rename(`${dir}/${nextJournal}${TEMP_SUFFIX}`, `${dir}/${nextJournal}`);
      await this.#syncDirOrPoison("before committing a compaction");
      await this.#writeTempFile(HEAD, encodeUtf8(String(target)));
      // The commit point: never taken by a writer that is no longer the writer.
      await this.#holdLock();
      await fs.rename(`${dir}/${HEAD}${TEMP_SUFFIX}`, `${dir}/${HEAD}`);
    } catch (error) {
      await this.#removeTemps([slotFile, nextJournal, HEAD]);
      if (error instanceof MoomemError) throw error;
      throw new MoomemError(
        "IO_FAILURE",
        `compaction of ${dir} failed (${reason(error)}); the store is unchanged and keeps working from its journal. ${ioAdvice(error)}.`,
        { cause: error },
      );
    }

    // Committed in the page cache; durable once the folder is synced.
    await this.#syncDirOrPoison("after committing a compaction");
    const previous = this.#journal;
    this.#journal = null;
    // The old journal's content now lives in the snapshot: failing to close its descriptor loses nothing.
    if (previous !== null) await closeQuietly(previous);
    try {
      this.#journal = await fs.open(`${dir}/${nextJournal}`, "existing");
    } catch (error) {
      throw this.#poisonWith(error, `opening the new journal ${dir}/${nextJournal}`);
    }
    const headerSize = encodeUtf8(encodeJournalHeader(nextGen)).length;
    this.#gen = nextGen;
    this.#slot = target;
    if (this.#index !== null) {
      this.#index = new SectionIndex(table);
      this.#index.releaseSeqs();
    }
    this.#records = 0;
    this.#synced = 0;
    this.#journalVersion = JOURNAL_FORMAT_VERSION;
    this.#formatVersion = SNAPSHOT_FORMAT_VERSION;
    this.#journalHeaderSize = headerSize;
    this.#journalSize = headerSize;
    this.#lastSyncAt = performance.now();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#sizes.delete(oldJournal);
    if (oldSlot !== null) this.#sizes.delete(oldSlot);
    this.#sizes.set(nextJournal, headerSize);
    this.#sizes.set(HEAD, 1);

    // The old journal and snapshot may hold purged content: they must go (head is durable, so the new
    // snapshot no longer needs them as a fallback). A failure is retried after the next compaction and at open.
    const doomed = [oldJournal, ...(oldSlot === null ? [] : [oldSlot]), ...this.#leftovers];
    this.#leftovers = [];
    for (const name of doomed) {
      try {
        await fs.unlink(`${dir}/${name}`);
      } catch (_error) {
        // Committed already; the file is stale and is deleted later (a purge's old content with it).
        this.#leftovers.push(name);
      }
    }
  }

  /** Streams the snapshot's lines into `path`, syncs and closes it; returns its size. */
  async #writeSnapshot(path: string, source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<number> {
    const file = await this.#fs.open(path, "create");
    let position = 0;
    let closed = false;
    try {
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      const lines = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
      for (;;) {
        let next: IteratorResult<Uint8Array, unknown>;
        try {
          next = await lines.next();
        } catch (error) {
          // The store's own files (compactStored) report their own damage and read errors.
          if (error instanceof MoomemError || errorCode(error) !== undefined) throw error;
          throw invalidArgument(`compaction got a bad snapshot source: ${describeError(error)}; the store is unchanged`);
        }
        if (next.done === true) break;
        pending.push(next.value);
        pendingBytes += next.value.length;
        if (pendingBytes >= WRITE_BUFFER_BYTES) {
          await file.write(concat(pending, pendingBytes), position);
          position += pendingBytes;
          pending = [];
          pendingBytes = 0;
        }
      }
      if (pendingBytes > 0) {
        await file.write(concat(pending, pendingBytes), position);
        position += pendingBytes;
      }
      try {
        await file.datasync();
      } catch (error) {
        throw this.#poisonWith(error, `fdatasync of the new snapshot ${path}`);
      }
      closed = true;
      await file.close();
    } finally {
      if (!closed) await closeQuietly(file);
    }
    return position;
  }

  /** Writes a small temp file next to `name` and syncs it (a sync failure poisons). */
  async #writeTempFile(name: string, bytes: Uint8Array): Promise<void> {
    const path = `${this.#dir}/${name}${TEMP_SUFFIX}`;
    const file = await this.#fs.open(path, "create");
    let closed = false;
    try {
      await file.write(bytes, 0);
      try {
        await file.datasync();
      } catch (error) {
        throw this.#poisonWith(error, `fdatasync of ${path}`);
      }
      closed = true;
      await file.close();
    } finally {
      if (!closed) await closeQuietly(file);
    }
  }

  async #syncDirOrPoison(when: string): Promise<void> {
    try {
      await this.#fs.syncDir(this.#dir);
    } catch (error) {
      throw this.#poisonWith(error, `fsync of the folder ${this.#dir} ${when}`);
    }
  }

  /** Best-effort removal of a failed compaction's temp files (any left are deleted at the next writable open). */
  async #removeTemps(names: readonly string[]): Promise<void> {
    for (const name of names) {
      try {
        await this.#fs.unlink(`${this.#dir}/${name}${TEMP_SUFFIX}`);
      } catch (_error) {
        // Temp files are never read; retried after the next compaction, and the next writable open removes them.
        this.#leftovers.push(`${name}${TEMP_SUFFIX}`);
      }
    }
  }

  // ---------------------------------------------------------------- following a writer

  /**
   * Read-only opens: what the writer committed since `load()` or the last
   * call (whole operations only), or null when nothing changed; a writable
   * open has nothing to follow and gets null. Costs two `stat`s when nothing
   * changed; new journal lines are read from where the last read stopped;
   * after a compaction (a new `head`) the store is read again whole.
   */
  refresh(): Promise<RefreshedState | null> {
    if (this.#state === "closed" || this.#closing)
      return Promise.reject(new MoomemError("STORE_CLOSED", `cannot refresh: the file backend for ${this.location} is closed`));
    if (this.#state !== "open") return Promise.reject(new MoomemError("INVALID_ARGUMENT", `cannot refresh before load() finished (${this.location})`));
    if (!this.#readOnly) return Promise.resolve(null);
    return this.#exclusive(() => this.#refreshNow());
  }

  async #refreshNow(): Promise<RefreshedState | null> {
    const point = this.#follow;
    if (point === null) return null;
    let found;
    try {
      found = await catchUp(this.#fs, this.#dir, point);
    } catch (error) {
      if (error instanceof MoomemError) throw error;
      throw new MoomemError(
        "IO_FAILURE",
        `could not read what was written to ${this.#dir} (${reason(error)}); nothing changed in this reader. ${ioAdvice(error)}, then retry.`,
        {
          cause: error,
        },
      );
    }
    if (found === null) return null;
    if (found === "reload") {
      const recovered = await this.#loadReadOnly();
      this.#adopt(recovered);
      return {
        replace: true,
        entries: recovered.entries,
        embedder: recovered.embedder,
        formatVersion: recovered.formatVersion,
        lastWriteAt: recovered.lastWriteAt,
        tornTails: recovered.tornTails,
      };
    }
    this.#follow = found.point;
    const scan = found.point.scan!;
    this.#journalSize = scan.goodEnd;
    this.#sizes.set(journalName(this.#gen), scan.goodEnd);
    if (scan.lastTime !== null) this.#lastWriteAt = scan.lastTime;
    if (found.entries.length === 0) return null;
    return { replace: false, entries: found.entries, embedder: this.#embedder, formatVersion: this.#formatVersion, lastWriteAt: this.#lastWriteAt };
  }

  /** Torn tails the last full read found (see `StoreStats.tornTails`). */
  get tornTails(): readonly TornTail[] {
    return this.#tornTails;
  }

  // ---------------------------------------------------------------- stats, close

  stats(): BackendStats {
    let bytes = 0;
    for (const size of this.#sizes.values()) bytes += size;
    return { bytesOnDisk: bytes, lastWriteAt: this.#lastWriteAt, formatVersion: this.#formatVersion };
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    if (this.#state !== "open") {
      // Not loaded (yet): a load in progress sees the flag and releases what it took.
      this.#closing = true;
      this.#state = "closed";
      return;
    }
    this.#closing = true;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    // Wait for a write or background sync in flight; then make the unsynced tail durable ("interval"/"none").
    // Typed by the assertion, not narrowed to null: the callback below may set it.
    let failure = null as MoomemError | null;
    await this.#exclusive(async () => {
      const journal = this.#journal;
      this.#journal = null;
      if (journal !== null && this.#poison === null && this.#synced < this.#records) {
        try {
          await journal.datasync();
          this.#synced = this.#records;
        } catch (error) {
          failure = this.#poisonWith(error, `fdatasync of ${this.#dir}/${journalName(this.#gen)} at close`);
        }
      }
      if (journal !== null) await closeQuietly(journal);
      const lock = this.#lock;
      this.#lock = null;
      if (lock !== null) await releaseQuietly(lock);
    });
    this.#state = "closed";
    if (failure !== null) throw failure;
  }

  async #closeJournalQuietly(): Promise<void> {
    const journal = this.#journal;
    this.#journal = null;
    if (journal !== null) await closeQuietly(journal);
  }
}

/**
 * The entries of a compaction from memory (in seq order, `count` promised), grouped by user for v5's
 * sections; users in user id order. Throws a plain Error when the source breaks its promises.
 */
function* groupByUser(entries: Iterable<EntryRecord>, count: number): Generator<readonly [string, EntryRecord[]], void, undefined> {
  const users = new Map<string, EntryRecord[]>();
  let lastSeq = -Infinity;
  let seen = 0;
  for (const entry of entries) {
    if (!(entry.seq > lastSeq)) throw new Error(`snapshot entries must come in increasing seq order: seq ${entry.seq} came after ${lastSeq}`);
    lastSeq = entry.seq;
    if (++seen > count) throw new Error(`the snapshot source promised ${count} entries but gave more`);
    let list = users.get(entry.userId);
    if (list === undefined) users.set(entry.userId, (list = []));
    list.push(entry);
  }
  yield* [...users.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function checkEmbedder(embedder: EmbedderIdentity): void {
  if (typeof embedder !== "object" || embedder === null || typeof embedder.id !== "string" || !Number.isSafeInteger(embedder.dim) || embedder.dim < 0) {
    throw invalidArgument(`compact needs embedder { id: string, dim: integer }, got ${JSON.stringify(embedder) ?? String(embedder)}`);
  }
}

async function closeQuietly(file: WritableFile): Promise<void> {
  try {
    await file.close();
  } catch (error) {
    // Closing is only about the descriptor: what had to be durable was synced (or reported) before.
    void error;
  }
}

async function releaseQuietly(lock: FileLock): Promise<void> {
  try {
    await lock.release();
  } catch (error) {
    // The lock is free anyway once its socket is closed (release closes it whatever else fails); a leased point lapses.
    void error;
  }
}

/** The folder a path names: file: URLs are converted (they would otherwise become a folder named "file:"); other URLs are refused. */
function folderPath(dir: string): string {
  if (/^file:/i.test(dir)) {
    try {
      return pathFromFileUrl(dir);
    } catch (error) {
      throw invalidArgument(
        `FileBackend got ${JSON.stringify(dir)}, which is not a usable file: URL (${describeError(error)}); pass a folder path, or a URL like file:///home/me/memory`,
      );
    }
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(dir)) {
    throw invalidArgument(`FileBackend needs a folder on this machine, got the URL ${JSON.stringify(dir)}; pass a folder path (file: URLs are accepted)`);
  }
  return dir;
}

/** The folder that holds `path`. */
function parentFolder(path: string): string {
  const at = path.replace(/[\\/]+$/, "").search(/[\\/][^\\/]*$/);
  if (at < 0) return ".";
  return at === 0 ? "/" : path.slice(0, at);
}
