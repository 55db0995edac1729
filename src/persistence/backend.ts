// The interface every persistence backend (memory, files, IndexedDB) implements.

import type { EntryRecord, TornTail, UserSummary } from "../types.ts";
import { MoomemError } from "../errors.ts";

/** Identity of the embedding space a store's vectors live in. */
export interface EmbedderIdentity {
  id: string;
  dim: number;
}

/**
 * One atomic unit of change: every entry an `add`/`forget`/`restore`/`import`
 * created or changed, in full (later versions of an id replace earlier ones).
 * After a crash either the whole batch is there or none of it.
 *
 * A large operation is split into several batches (so no journal line grows
 * without bound) chained by `continues`: the run
 * `continues: true, …, true, <last batch without continues>` inside one
 * `append` call is one operation, which a backend must keep all or nothing,
 * across crashes, exactly like a single batch.
 */
export interface Batch {
  entries: EntryRecord[];
  /**
   * True: this batch is atomic together with the next batch of the same
   * `append` call (and, through it, with the rest of the run). The last batch
   * of a call must not have it; the file backend rejects such a call with
   * `INVALID_ARGUMENT`. Absent or false: the batch ends an operation.
   */
  continues?: boolean;
  /**
   * The one user every entry of this operation belongs to, for an operation written for one user
   * (`add`, `forget`, `restore`, `reextract`); absent for one over several users (`import`). A backend
   * may use it (per-user locks, versions) and must not trust it over the entries' own `userId`.
   */
  userId?: string;
}

/** What a backend found when it opened. */
export interface LoadedState {
  /** Latest version of every entry, in `seq` order. */
  entries: EntryRecord[];
  /** Embedder the stored vectors were made with; null for a new or empty store. */
  embedder: EmbedderIdentity | null;
  /** Torn journal tails cut off during recovery. */
  truncatedRecovered: number;
  /** What each torn tail held (optional: backends that never tear report none). */
  tornTails?: TornTail[];
  /** Persisted format version that was read (the current one for a new store). */
  formatVersion: number;
  /**
   * True when what was read is in an older format than the backend writes, and only a compaction
   * rewrites it (the file backend: a snapshot or journal before v4). A writable open then compacts at
   * once, so every later write is in the current format. Absent means false.
   */
  outdated?: boolean;
  /** ms since epoch of the last write found on disk, or null. */
  lastWriteAt: number | null;
}

/**
 * What a read-only backend found written since `load()` or its previous
 * `refresh()`: either newer versions of some entries, to apply on top of
 * what was read (`replace: false`), or the whole state again (`replace:
 * true`: after a compaction, or whenever the backend cannot tell what changed).
 */
export interface RefreshedState {
  replace: boolean;
  /** Latest version of each entry that changed (or, with `replace`, of every entry), in `seq` order. */
  entries: EntryRecord[];
  embedder: EmbedderIdentity | null;
  formatVersion: number;
  lastWriteAt: number | null;
  /** With `replace`: what the new full read found torn off (see `LoadedState.tornTails`). */
  tornTails?: TornTail[];
}

/** What compaction writes: the whole current state. */
export interface SnapshotSource {
  embedder: EmbedderIdentity;
  count: number;
  /** Entries in `seq` order; iterated once, lazily (never one giant string). */
  entries: Iterable<EntryRecord>;
}

/**
 * One user as a backend's catalog lists it: what `users()` and `stats()` report for a user whose entries
 * are not loaded, and the largest seq the user's entries hold, so new entries never reuse one.
 */
export interface CatalogUser extends UserSummary {
  /** The largest seq among the user's entries, and among the seqs their ids name (an imported id may name one not reached yet). */
  maxSeq: number;
}

/**
 * What a backend that loads users one at a time found when it opened: everything `load()` reports but
 * the entries, and the users with their counts. See {@link UserLoading}.
 */
export interface StoreCatalog extends Omit<LoadedState, "entries"> {
  /** Every user with at least one entry, in any order. */
  users: CatalogUser[];
}

/**
 * The optional capability of a backend that lets a store open without reading every user's entries
 * (README, "Many users: loading a user when asked"; docs/decisions.md). A backend has it when it has all
 * four methods; the store then calls `openCatalog()` instead of `load()` (and `accept()` after it, as
 * after `load()`), loads a user's entries on that user's first call, and asks the backend to compact
 * from what it holds. A backend without them (a host's own) is opened with `load()` as before.
 */
export interface UserLoading {
  /** Open (take the writer lock) and read what the store holds per user, changing nothing. Called once, instead of `load()`. */
  openCatalog(): Promise<StoreCatalog>;
  /**
   * The latest version of each of this user's entries, in seq order; `[]` for an unknown user. Never
   * another user's entry: the store refuses the load (`STORE_CORRUPTED`) if one comes back. Sees every
   * `append` that resolved before it was called.
   */
  loadUser(userId: string): Promise<EntryRecord[]>;
  /**
   * The latest version of every entry, in seq order, read as it is iterated (for export and import's
   * checks, which need every user without loading them all). Sees every `append` that resolved before
   * it was called; the store calls nothing else of the backend until the iteration ended.
   */
  scan(): AsyncIterable<EntryRecord>;
  /** Like `compact`, from what the backend holds (every `append` reached it): the store no longer has every entry in memory. */
  compactStored(embedder: EmbedderIdentity): Promise<void>;
}

/** Whether `backend` has the whole {@link UserLoading} capability (one method missing: it is opened with `load()`). */
export function loadsUsers(backend: PersistenceBackend): backend is PersistenceBackend & UserLoading {
  const b = backend as Partial<UserLoading>;
  return typeof b.openCatalog === "function" && typeof b.loadUser === "function" && typeof b.scan === "function" && typeof b.compactStored === "function";
}

/** What a backend found written for one user by other processes since the store's copy of the user was read. */
export interface UserCatchUp {
  /** True: `entries` are every entry of the user (its log was trimmed past the copy); false: only those that changed. */
  replace: boolean;
  /** Latest version of each entry, in seq order. */
  entries: EntryRecord[];
}

/**
 * The optional capability of a backend that several processes write at once (PostgreSQL; see
 * docs/postgres.md, "Consistency"). Such a backend also has {@link UserLoading}, keeps per user the
 * version the store's copy of the user is current as of (set by `loadUser`, by each `append` and by
 * `catchUpUser`), and refuses an `append` that touches a user whose version moved meanwhile with a
 * {@link WriteConflict}: the store then catches the user up and plans the write again.
 */
export interface SharedWriting {
  /** Reserves `count` consecutive seqs no other process will get, beyond `after`; resolves to the first. */
  reserveSeqs(count: number, after?: number): Promise<number>;
  /** Gives back `[first, end)`, the unused end of the last block this process reserved, when nobody reserved after it; otherwise does nothing. */
  releaseSeqs(first: number, end: number): Promise<void>;
  /** Whether another process wrote the user since the store's copy of it was read (one cheap lookup, before a call). */
  userMoved(userId: string): Promise<boolean>;
  /** What another process wrote for the user since the store's copy of it was read (null: nothing); the copy is then current. */
  catchUpUser(userId: string): Promise<UserCatchUp | null>;
}

/** Whether `backend` is written by several processes at once ({@link SharedWriting}, with {@link UserLoading}). */
export function writesShared(backend: PersistenceBackend): backend is PersistenceBackend & UserLoading & SharedWriting {
  const b = backend as Partial<SharedWriting>;
  return (
    loadsUsers(backend) &&
    typeof b.reserveSeqs === "function" &&
    typeof b.releaseSeqs === "function" &&
    typeof b.userMoved === "function" &&
    typeof b.catchUpUser === "function"
  );
}

/** Store-wide counts a {@link SharedCounts} backend reads from what it holds now. */
export interface StoreCounts {
  total: number;
  active: number;
  superseded: number;
  deleted: number;
  unstructured: number;
  /** Users with at least one entry. */
  users: number;
  /** ms since epoch of the last write any process made, or null for a store never written. */
  lastWriteAt: number | null;
}

/**
 * The optional capability of a {@link SharedWriting} backend to count what it holds at call time, for
 * `users()` and `stats()` of a writable store: other processes add users and entries this process never
 * reads, so its own copy (the catalog read at open, plus the users it served) would miss them
 * (docs/postgres.md, "Consistency").
 */
export interface SharedCounts {
  /** Every user with at least one entry, with counts per status and the largest `updatedAt`, sorted by user id. */
  countUsers(): Promise<UserSummary[]>;
  /** Entries per status, users, and the last write time, in one snapshot. */
  countEntries(): Promise<StoreCounts>;
}

/** Whether `backend` is written by several processes and counts what it holds ({@link SharedCounts}). */
export function countsShared(backend: PersistenceBackend): backend is PersistenceBackend & SharedWriting & SharedCounts {
  const b = backend as Partial<SharedCounts>;
  return writesShared(backend) && typeof b.countUsers === "function" && typeof b.countEntries === "function";
}

/**
 * What `append` of a {@link SharedWriting} backend throws when another process wrote one of the users
 * first: nothing of the group was stored. The store catches `users` up and retries; only after several
 * attempts does the caller see it (code `WRITE_CONFLICT`).
 */
export class WriteConflict extends MoomemError {
  /** The users whose version moved. */
  readonly users: readonly string[];

  constructor(location: string, users: readonly string[]) {
    super(
      "WRITE_CONFLICT",
      `${location}: another process wrote user ${users.map((u) => JSON.stringify(u)).join(", ")} while this write was planned; nothing of it was stored`,
    );
    this.users = users;
  }
}

/** Sizes a backend reports for `stats()`. */
export interface BackendStats {
  bytesOnDisk: number;
  lastWriteAt: number | null;
  /** Format version of what the backend holds now (after a compaction: the one it writes); omitted when it is the version loaded. */
  formatVersion?: number;
}

/**
 * Where a store's entries live. The store serialises calls: it never calls
 * `append` or `compact` while another `append`/`compact` is running.
 *
 * @example
 * ```ts
 * const store = await MemoryStore.open("any-name", { backend: new MemoryBackend() });
 * ```
 */
export interface PersistenceBackend {
  /** Human-readable location for messages, e.g. a directory. */
  readonly location: string;
  /**
   * Open (take the writer lock unless read-only) and read the store, changing
   * nothing that was there (no repair yet: see `accept`). Called once.
   */
  load(): Promise<LoadedState>;
  /**
   * Optional. Called once, after `load()`, when the store accepted what was
   * read (the embedder matches, nothing was refused) and before any
   * `append`/`compact`: only now may the backend change files (cut a torn
   * tail, delete leftovers). An open that is refused calls `close()` instead,
   * so a refused open leaves every file as it was.
   */
  accept?(): Promise<void>;
  /**
   * Optional, for read-only opens: what a writer committed since `load()` or
   * the previous call; null when nothing changed. Backends that cannot be
   * written by anyone else (memory) leave it out.
   */
  refresh?(): Promise<RefreshedState | null>;
  /**
   * Durably write these batches in order, as one group (one write, one sync).
   * Each operation (a batch, or a run of batches chained by
   * {@link Batch.continues}) is atomic: after a crash it is there whole or not
   * at all. Throws `IO_FAILURE` when nothing of the group may be considered written.
   */
  append(batches: readonly Batch[]): Promise<void>;
  /** True when the journal has grown enough that the store should call `compact`. */
  wantsCompaction(): boolean;
  /**
   * Optional. True when a compaction would change what is stored: operations written since the last one
   * (a journal to fold, event logs to trim), data in an older format than the backend writes, files left
   * to delete. `close()` compacts only then, so a store opened, read and closed rewrites nothing
   * (docs/design.md, "Compaction"). Absent: the store compacts at every close.
   */
  hasUncompacted?(): boolean;
  /** Replace snapshot + journal with one snapshot of `source`. */
  compact(source: SnapshotSource): Promise<void>;
  stats(): BackendStats;
  /** Release the lock and any handles. Idempotent. */
  close(): Promise<void>;
}
