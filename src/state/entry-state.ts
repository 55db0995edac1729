// The in-memory truth of an open store: entries plus the per-user indexes derived from them.

import type { EntryRecord, EntryStatus } from "../types.ts";
import { VectorIndex } from "../indexes/vector-index.ts";
import { Bm25Index } from "../indexes/bm25-index.ts";
import { normalizeForDedup, normalizeForDedupOnce, tokenize, tokenizeOnce } from "../text/tokenizer.ts";
import { allFinite, dot, normalize } from "../embedding/vector-math.ts";
import { indexBySeq, insertBySeq } from "./seq-order.ts";
import { MoomemError, invalidArgument } from "../errors.ts";
import { UserEntries } from "./user-entries.ts";
import { DedupIndex } from "./dedup-index.ts";
import type { CatalogUser } from "../persistence/backend.ts";
import { countEntry, emptyCatalogUser } from "../persistence/user-catalog.ts";
import { takeTextFormsInto, textFormsSlot, type TextFormsSlot } from "../persistence/text-forms.ts";
import type { BlockVectors, SparsePairSink } from "../persistence/homed-record.ts";
import { contentBytes, countRecord, emptyCounts, type StatusCounts } from "./entry-counts.ts";
import { blockOf, detach, isLean, leanRecord, leaveBlock, vectorLayout, vectorLength } from "./lean-record.ts";

import { MAX_TIME_MS } from "../clock.ts";

/** Reads of a user (recalls) served with its vectors still in their section's block before they are added to its index ({@link EntryState}, `shard`). */
const DEFERRED_READS = 4;

export { MAX_TIME_MS };

/** Statuses whose entries are searchable: recall returns only these (README, "API at a glance"). */
export function isLive(status: EntryStatus): boolean {
  return status === "active" || status === "unstructured";
}

/** One user's derived indexes. Nothing here is shared between users. */
export interface UserShard {
  readonly vectors: VectorIndex;
  readonly keywords: Bm25Index;
  /** Normalised content → ids of the live entries holding it (dedup; the first is the original), keyed by a hash of it. */
  readonly dedup: DedupIndex;
  /** Slot key → seqs of the live entries filling it (so a judge always sees the slot's current value). */
  readonly keys: Map<string, number[]>;
  /** Every entry of this user (any status), in seq order. */
  readonly entries: EntryRecord[];
}

/**
 * Entries by id and per user, with each user's vector, BM25 and dedup indexes
 * kept in step on every change. Records are immutable: a change puts a new
 * object, which is what makes undo a matter of putting the old one back.
 */
export class EntryState {
  readonly #dim: number;
  /** Scratch for the unit-length copy of a vector that the vector index copies again. */
  readonly #unit: Float32Array;
  /** Scratch for a vector read out of a section's block (state/lean-record.ts, `leaveBlock`). */
  readonly #scratch: Float32Array;
  /** Scratch for the text forms of the record being indexed in a build. */
  readonly #forms: TextFormsSlot = textFormsSlot();
  readonly #byId = new Map<string, EntryRecord>();
  readonly #bySeq = new Map<number, EntryRecord>();
  readonly #shards = new Map<string, UserShard>();
  /** Shards whose entries were loaded but not indexed yet: a user's indexes are built when first used. */
  readonly #unbuilt = new Set<UserShard>();
  /**
   * Built shards whose vector index reads the vectors still in their section's block there (VectorIndex.defer), with
   * the reads of the shard so far: the vectors are added on the shard's first write, or at its {@link DEFERRED_READS}th read.
   */
  readonly #vectorsDeferred = new Map<UserShard, number>();
  /** Unbuilt shards whose entries all came through {@link insert} (checked): more inserts stay unindexed until first use. */
  readonly #deferred = new Set<UserShard>();
  /** Users whose entries are not in memory (a backend that loads users when asked): what the catalog says of each. */
  readonly #cold = new Map<string, CatalogUser>();
  /** Entries of the users in {@link #cold}, per status (the catalog's counts, summed as users come and go). */
  readonly #coldCounts = emptyCounts();
  /** The entries in {@link #byId}, per status, and their estimated bytes: kept on every change, so reading them costs nothing. */
  readonly #loadedCounts = emptyCounts();
  /** Bumped by every {@link insertCold} and its undo: a load that read a user while this moved reads again (store/user-loading.ts). */
  #coldWrites = 0;
  /** Each vector held once (see `vectorLayout`, state/lean-record.ts). */
  readonly #compact = vectorLayout.compact;
  /** The record of a seq, for the shards' dedup indexes (which hold seqs). */
  readonly #recordOf = (seq: number): EntryRecord | undefined => this.#bySeq.get(seq);

  constructor(dim: number) {
    this.#dim = dim;
    this.#unit = new Float32Array(dim);
    this.#scratch = new Float32Array(dim);
  }

  /** Entries in the store: those in memory and those of the users not loaded. */
  get size(): number {
    return this.#byId.size + this.#coldCounts.total;
  }

  /** Entries in memory (of the loaded users). */
  get loadedSize(): number {
    return this.#byId.size;
  }

  /** Users with entries in memory now (O(1)). */
  get loadedUserCount(): number {
    return this.#shards.size;
  }

  /** The entries in memory per status, and their estimated bytes: running counts, O(1) (a copy). */
  loadedCounts(): StatusCounts {
    return { ...this.#loadedCounts };
  }

  /** The entries of the users not loaded, per status (from the catalog; bytes 0): running counts, O(1) (a copy). */
  coldCounts(): StatusCounts {
    return { ...this.#coldCounts };
  }

  /** Whether the user's indexes are built (false for a user loaded but not used yet, and for a user not in memory). */
  indexesBuilt(userId: string): boolean {
    const shard = this.#shards.get(userId);
    return shard !== undefined && !this.#unbuilt.has(shard);
  }

  /** Whether the user's entries are in memory (false for a cold user and for one with no entries). */
  isLoaded(userId: string): boolean {
    return this.#shards.has(userId);
  }

  /** Moves on with every entry written for a user not in memory (see {@link insertCold}). */
  get coldWrites(): number {
    return this.#coldWrites;
  }

  /**
   * Counts a new entry of a user whose entries are not in memory (cold, or with none yet) without
   * loading the user: the write that carries it makes it durable, and the user's first call loads it
   * from the backend with the rest. Checked as {@link insert} checks a record, apart from its id and
   * seq against the user's entries on disk (an import checks those against the backend: see
   * transfer/import-check.ts). Used by an import under `maxLoadedUsers`, so that it loads no user.
   */
  insertCold(record: EntryRecord): void {
    if (this.#shards.has(record.userId)) throw new Error(`internal: user ${record.userId} is loaded, its entries go through insert`);
    const sameId = this.#byId.get(record.id);
    if (sameId !== undefined) throw refused(record, `an entry with id ${record.id} already exists (seq ${sameId.seq}); a new entry never replaces one`);
    const sameSeq = this.#bySeq.get(record.seq);
    if (sameSeq !== undefined) throw refused(record, `entry ${sameSeq.id} already has seq ${record.seq}`);
    this.#checkRecord(record, undefined);
    let summary = this.#cold.get(record.userId);
    if (summary === undefined) {
      summary = emptyCatalogUser(record.userId);
      this.#cold.set(record.userId, summary);
    }
    countEntry(summary, record, 1);
    this.#coldCounts.total++;
    this.#coldCounts[record.status]++;
    this.#coldWrites++;
  }

  /** Undoes {@link insertCold} (used only by {@link Change.undo}). */
  removeCold(record: EntryRecord): void {
    const summary = this.#cold.get(record.userId);
    if (summary === undefined) return;
    countEntry(summary, record, -1);
    this.#coldCounts.total--;
    this.#coldCounts[record.status]--;
    if (summary.total <= 0) this.#cold.delete(record.userId);
    this.#coldWrites++;
  }

  /** Users whose entries are not in memory (O(1)). */
  get coldUserCount(): number {
    return this.#cold.size;
  }

  /** Records a user whose entries stay where they are until {@link loadUser} (see backend.ts, `UserLoading`). */
  addCold(summary: CatalogUser): void {
    if (summary.total <= 0 || this.#shards.has(summary.userId) || this.#cold.has(summary.userId)) return;
    this.#setCold({ ...summary });
  }

  #setCold(summary: CatalogUser): void {
    this.#cold.set(summary.userId, summary);
    countCold(this.#coldCounts, summary, 1);
  }

  #deleteCold(summary: CatalogUser): void {
    this.#cold.delete(summary.userId);
    countCold(this.#coldCounts, summary, -1);
  }

  /** True while the user's entries are not in memory: they must be loaded before any call reads or writes them. */
  isCold(userId: string): boolean {
    return this.#cold.has(userId);
  }

  /** What the catalog said of each user not loaded. */
  coldUsers(): IterableIterator<CatalogUser> {
    return this.#cold.values();
  }

  /** Users whose entries are in memory. */
  loadedUsers(): IterableIterator<string> {
    return this.#shards.keys();
  }

  /**
   * Puts a cold user's entries (from the backend, in seq order) in memory, each checked as {@link load}
   * checks it; an entry of another user is refused (`STORE_CORRUPTED`): a backend's answer never reaches
   * the wrong user. All or nothing: a refused load leaves the user cold.
   */
  loadUser(userId: string, records: readonly EntryRecord[]): void {
    const summary = this.#cold.get(userId);
    if (summary === undefined) return;
    for (const record of records) {
      if (record.userId !== userId) {
        throw new MoomemError(
          "STORE_CORRUPTED",
          `loading user ${userId} gave entry ${record.id} of another user; the store's data is inconsistent, nothing of it was loaded`,
        );
      }
    }
    this.#deleteCold(summary);
    // records[0..done) are in: what a refused load takes out again.
    let done = 0;
    try {
      for (const record of records) {
        this.load(record);
        done++;
      }
    } catch (error) {
      for (let i = 0; i < done; i++) this.remove(records[i]!.id);
      this.#setCold(summary);
      throw error;
    }
  }

  /**
   * Drops a loaded user's entries and indexes from memory, keeping their counts (the backend holds the
   * entries: the caller unloads only a user with no write pending). Returns false for a user not loaded.
   */
  unloadUser(userId: string): boolean {
    const shard = this.#shards.get(userId);
    if (shard === undefined) return false;
    const summary = emptyCatalogUser(userId);
    const indexed = !this.#unbuilt.has(shard);
    for (const record of shard.entries) {
      countEntry(summary, record, 1);
      this.#byId.delete(record.id);
      this.#bySeq.delete(record.seq);
      countRecord(this.#loadedCounts, record, -1, indexed);
    }
    this.#shards.delete(userId);
    this.#unbuilt.delete(shard);
    this.#deferred.delete(shard);
    this.#vectorsDeferred.delete(shard);
    if (summary.total > 0) this.#setCold(summary);
    return true;
  }

  #assertLoaded(userId: string): void {
    // A bug guard: reading a user that is not loaded would answer as if the user had nothing.
    if (this.#cold.has(userId)) throw new Error(`internal: user ${userId} is read before being loaded`);
  }

  get(id: string): EntryRecord | undefined {
    return this.#byId.get(id);
  }

  bySeq(seq: number): EntryRecord | undefined {
    return this.#bySeq.get(seq);
  }

  /** The entry with this id when it belongs to `userId`; undefined otherwise (another user's entry is never returned). */
  getOf(userId: string, id: string): EntryRecord | undefined {
    this.#assertLoaded(userId);
    const record = this.#byId.get(id);
    return record !== undefined && record.userId === userId ? record : undefined;
  }

  /**
   * The entry that replaced `record`, when it is another entry of the same user. A link that names
   * another user's entry, a missing one or the entry itself (which only a damaged or crafted file can
   * hold) is never followed.
   */
  successor(record: EntryRecord): EntryRecord | undefined {
    if (record.supersededBy === undefined || record.supersededBy === record.id) return undefined;
    return this.getOf(record.userId, record.supersededBy);
  }

  /** The user's shard (indexes built), or undefined when the user has no entries. Never another user's. */
  shard(userId: string): UserShard | undefined {
    this.#assertLoaded(userId);
    const shard = this.#shards.get(userId);
    if (shard === undefined) return undefined;
    const built = this.#ensureBuilt(shard);
    const reads = this.#vectorsDeferred.get(built);
    if (reads !== undefined) {
      if (reads + 1 >= DEFERRED_READS) this.#addDeferred(built);
      else this.#vectorsDeferred.set(built, reads + 1);
    }
    return built;
  }

  /** The part of the state one user's calls work on (see {@link UserEntries}). */
  user(userId: string): UserEntries {
    this.#assertLoaded(userId);
    return new UserEntries(this, userId);
  }

  /** The user's entries in seq order (any status), without building the user's indexes. */
  entriesOf(userId: string): readonly EntryRecord[] {
    this.#assertLoaded(userId);
    return this.#shards.get(userId)?.entries ?? [];
  }

  /**
   * Adds a record read from storage (the latest version of an entry, in seq order) without indexing
   * it: opening a store then costs reading it, and each user's indexes are built on first use. On a
   * server holding many users, the ones nobody asks about never cost index time.
   */
  load(record: EntryRecord): void {
    const other = this.#bySeq.get(record.seq) ?? this.#byId.get(record.id);
    if (other !== undefined) {
      throw new MoomemError(
        "STORE_CORRUPTED",
        `entries ${other.id} (seq ${other.seq}) and ${record.id} (seq ${record.seq}) were both stored; the store's data is inconsistent`,
      );
    }
    // The decoders refuse such vectors already; this keeps any other source (a host's backend) from
    // loading one that would make building the user's indexes fail. (A lean record's vector was checked
    // where it is: a section's block, or an index; reading it here would copy it.)
    if (!isLean(record) && record.embedding !== null && !allFinite(record.embedding)) {
      throw new MoomemError("STORE_CORRUPTED", `entry ${record.id} was stored with a vector holding NaN or Infinity; the store's data is inconsistent`);
    }
    let shard = this.#shards.get(record.userId);
    if (shard === undefined) {
      shard = this.#newShard(record.userId);
      this.#unbuilt.add(shard);
    } else this.#addDeferred(shard);
    const built = !this.#unbuilt.has(shard);
    // Records come in seq order (a user's load, a snapshot read): appended, with no search and no splice.
    const entries = shard.entries;
    if (entries.length === 0 || entries[entries.length - 1]!.seq < record.seq) entries.push(record);
    else insertBySeq(entries, record);
    this.#byId.set(record.id, record);
    this.#bySeq.set(record.seq, record);
    countRecord(this.#loadedCounts, record, 1, built);
    if (built) {
      this.#index(shard, record);
      this.#leaveBlock(shard, record);
    }
  }

  /**
   * The shard with its indexes built. They are built into new indexes that replace the empty ones
   * only once every entry is in: a build that throws leaves the user unbuilt (the next call tries
   * again and fails the same way) rather than marked built over a partial index.
   */
  #ensureBuilt(shard: UserShard): UserShard {
    if (!this.#unbuilt.has(shard)) return shard;
    const built = this.#emptyShard(shard.entries);
    // One allocation for the vectors, and no tokenizer memo: a build sees each text once (a large
    // user's first use, docs/bench/cold-start.md). The indexes come out as single adds make them.
    // The vectors still in a section's block stay there: the index reads them where they are until the user's first
    // write (or a few reads), so a user's first recall does not wait for them to be added (docs/design.md, "Load path").
    let vectors = 0;
    for (const record of shard.entries) if (isLive(record.status) && this.#fits(record) && blockOf(record) === undefined) vectors++;
    built.vectors.reserve(vectors);
    const tile = new VectorTile(this.#dim, built.vectors);
    const blocks: BlockVectors[] = [];
    // The dedup forms, when the dedup index is filled later (a user read from a section: see below): per live entry its
    // seq and form (null: its ASCII content in lower case; undefined: not stored, computed then).
    const dedup: DeferredDedup = { seqs: [], forms: [] };
    for (const record of shard.entries) this.#index(built, record, tile, blocks, dedup);
    // The slot would keep the section's shared token arrays alive.
    Object.assign(this.#forms, textFormsSlot());
    tile.flush();
    built.vectors.trim();
    let bytes = 0;
    if (blocks.length === 0) {
      this.#fillDedup(built, dedup);
      bytes = this.#slimAll(built, null);
    } else {
      // Counted now, moved off the block when the vectors are added (#addDeferred): the counts do not depend on where a vector is.
      for (const record of shard.entries) bytes += contentBytes(record);
      for (const block of blocks) built.vectors.defer(block);
      this.#vectorsDeferred.set(built, 0);
      // A recall reads no dedup form: the index is filled when something reads or changes it, or with the vectors.
      built.dedup.defer(() => this.#fillDedup(built, dedup));
    }
    const userId = shard.entries[0]!.userId;
    this.#unbuilt.delete(shard);
    this.#deferred.delete(shard);
    this.#shards.set(userId, built);
    this.#loadedCounts.bytes += bytes;
    return built;
  }

  /**
   * Adds the vectors a built shard's index reads in their section's block (see {@link #ensureBuilt}) to the index, then
   * moves each record's vector off the block: to the index when it holds it bit for bit, else to the record's own copy.
   * A vector stored sparse and unit length as stored goes from the block's pairs straight in; the others are normalised.
   * Every write to the shard runs this first, so no change ever meets a deferred vector.
   */
  #addDeferred(shard: UserShard): void {
    if (!this.#vectorsDeferred.delete(shard)) return;
    shard.dedup.settle();
    const index = shard.vectors;
    index.reserve(index.size);
    index.undefer();
    const tile = new VectorTile(this.#dim, index);
    const entries = shard.entries;
    // held[i]: entry i's vector went from its block to the index unchanged by normalising, so the index holds it bit for bit.
    const held = new Uint8Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const record = entries[i]!;
      const block = blockOf(record);
      if (block === undefined || !isLive(record.status) || !this.#fits(record)) continue;
      if (tile.addFrom(block, record.seq)) held[i] = 1;
      else if (block.copyInto(record.seq, this.#scratch) && tile.add(record.seq, this.#scratch)) held[i] = 1;
    }
    tile.flush();
    index.trim();
    this.#slimAll(shard, held);
  }

  /** Adds the dedup forms a build collected ({@link #index}) to the shard's dedup index, in seq order. */
  #fillDedup(shard: UserShard, dedup: DeferredDedup): void {
    const { seqs, forms } = dedup;
    for (let i = 0; i < seqs.length; i++) {
      const seq = seqs[i]!;
      const form = forms[i];
      if (form === null) shard.dedup.addLowerAscii(this.#bySeq.get(seq)!.content, seq);
      else shard.dedup.add(form ?? normalizeForDedupOnce(this.#bySeq.get(seq)!.content), seq);
    }
    seqs.length = 0;
    forms.length = 0;
  }

  /** Every user with entries: loaded or not. */
  *users(): IterableIterator<string> {
    yield* this.#shards.keys();
    yield* this.#cold.keys();
  }

  /** All entries in seq order (across users; for export, stats and compaction only, with every user loaded). */
  *all(): IterableIterator<EntryRecord> {
    if (this.#cold.size > 0) throw new Error("internal: every entry is read while some users are not loaded");
    const seqs = [...this.#bySeq.keys()].sort((a, b) => a - b);
    for (const seq of seqs) yield this.#bySeq.get(seq)!;
  }

  /**
   * Adds a new entry and indexes it. Its id and seq must be new to the store: an insert never
   * replaces an entry (an id collision would silently hand one entry's slot to another, possibly
   * another user's). Every check runs before anything changes, so a refused insert leaves no trace.
   */
  insert(record: EntryRecord): void {
    const sameId = this.#byId.get(record.id);
    if (sameId !== undefined) throw refused(record, `an entry with id ${record.id} already exists (seq ${sameId.seq}); a new entry never replaces one`);
    const sameSeq = this.#bySeq.get(record.seq);
    if (sameSeq !== undefined) throw refused(record, `entry ${sameSeq.id} already has seq ${record.seq}`);
    this.#checkRecord(record, undefined);
    // A user new to the state gets its indexes built from all its entries on first use, as after an open:
    // an import into many users costs no index time until each is asked. A user read from storage is
    // built first (a record that cannot be indexed refuses the write, before anything changed).
    let shard = this.#shards.get(record.userId);
    if (shard === undefined) {
      shard = this.#newShard(record.userId);
      this.#unbuilt.add(shard);
      this.#deferred.add(shard);
    } else if (!this.#deferred.has(shard)) {
      shard = this.#ensureBuilt(shard);
      this.#addDeferred(shard);
    }
    insertBySeq(shard.entries, record);
    this.#byId.set(record.id, record);
    this.#bySeq.set(record.seq, record);
    countRecord(this.#loadedCounts, record, 1, !this.#unbuilt.has(shard));
    if (!this.#unbuilt.has(shard)) {
      this.#index(shard, record);
      this.#slim(shard, record);
    }
  }

  /**
   * Replaces an existing entry by a new version (same id, same user) and updates the indexes; returns
   * the previous version. Checked like {@link insert} first, so a refused update changes nothing.
   */
  put(record: EntryRecord): EntryRecord {
    const previous = this.#byId.get(record.id);
    if (previous === undefined) throw refused(record, `there is no entry ${record.id} to update`);
    if (previous.userId !== record.userId)
      throw refused(record, `entry ${record.id} belongs to user ${previous.userId}; an update never moves an entry to another user`);
    // A user's entries are kept in seq order and found by seq: an entry keeps its seq for life.
    if (previous.seq !== record.seq) throw refused(record, `entry ${record.id} has seq ${previous.seq}; an update never gives an entry another seq`);
    this.#checkRecord(record, previous);
    this.#replace(previous, record);
    return previous;
  }

  /** Puts back the version an undone change replaced, unchecked: it was in the state before (used only by {@link Change.undo}). */
  revert(before: EntryRecord): void {
    const current = this.#byId.get(before.id);
    if (current === undefined) throw new Error(`revert: entry ${before.id} is not in the state`);
    this.#replace(current, before);
  }

  #replace(previous: EntryRecord, record: EntryRecord): void {
    const shard = this.#shardFor(record.userId);
    this.#unindex(shard, previous);
    const i = indexBySeq(shard.entries, previous.seq);
    if (i >= 0) shard.entries[i] = record;
    this.#bySeq.delete(previous.seq);
    this.#byId.set(record.id, record);
    this.#bySeq.set(record.seq, record);
    countRecord(this.#loadedCounts, previous, -1, true);
    countRecord(this.#loadedCounts, record, 1, true);
    this.#index(shard, record);
    this.#slim(shard, record);
  }

  /**
   * Puts the lean twin of `record` (just indexed) in its place, when the vector index holds its vector
   * bit for bit: the vector is then in memory once (state/lean-record.ts).
   */
  #slim(shard: UserShard, record: EntryRecord): void {
    if (!this.#compact || !isLive(record.status)) return;
    const lean = leanRecord(record, shard.vectors);
    if (lean === undefined) return;
    const i = indexBySeq(shard.entries, record.seq);
    if (i >= 0) shard.entries[i] = lean;
    this.#byId.set(lean.id, lean);
    this.#bySeq.set(lean.seq, lean);
  }

  /**
   * A record read with its vector left in its section's block (persistence/homed-record.ts), once its
   * user is built: the vector moves to the index when it holds it bit for bit, else to the record's own
   * copy. The record stays the same object; no record keeps the block alive.
   */
  #leaveBlock(shard: UserShard, record: EntryRecord, held = false): boolean {
    const block = blockOf(record);
    if (block === undefined) return false;
    leaveBlock(record, block, this.#compact && isLive(record.status) ? shard.vectors : null, this.#scratch, held);
    return true;
  }

  /**
   * {@link #slim} (or {@link #leaveBlock}) for every entry of a shard just built; returns the indexes'
   * part of their bytes (entry-counts.ts), summed in the same pass while each record is at hand.
   */
  #slimAll(shard: UserShard, held: Uint8Array | null): number {
    const entries = shard.entries;
    let bytes = 0;
    for (let i = 0; i < entries.length; i++) {
      const record = entries[i]!;
      if (!this.#leaveBlock(shard, record, held?.[i] === 1) && this.#compact && isLive(record.status)) {
        const lean = leanRecord(record, shard.vectors);
        if (lean !== undefined) {
          entries[i] = lean;
          this.#byId.set(lean.id, lean);
          this.#bySeq.set(lean.seq, lean);
        }
      }
      bytes += contentBytes(entries[i]!);
    }
    return bytes;
  }

  /**
   * The invariants every entry written from now on keeps (entries loaded from a file are taken as
   * they are: a store must open, and the readers never follow a bad link):
   * - its vector, if any, is finite and has the store's dimension (or is the one it already had);
   * - its times are numbers a JS Date can hold;
   * - a live entry has no `supersededBy`, a superseded one has one, and no entry supersedes itself.
   */
  #checkRecord(record: EntryRecord, previous: EntryRecord | undefined): void {
    const vector = record.embedding;
    if (vector !== null && vector !== previous?.embedding) {
      if (!(vector instanceof Float32Array) || vector.length !== this.#dim) {
        throw refused(
          record,
          `its vector has ${vector instanceof Float32Array ? vector.length : "no"} components where the store's embedder makes ${this.#dim}`,
        );
      }
      if (!allFinite(vector)) throw refused(record, "its vector holds NaN or Infinity");
    }
    if (record.createdAt !== previous?.createdAt) checkTime(record, "createdAt", record.createdAt);
    if (record.updatedAt !== previous?.updatedAt) checkTime(record, "updatedAt", record.updatedAt);
    if (record.supersededBy === record.id) throw refused(record, "it would supersede itself");
    if (isLive(record.status) && record.supersededBy !== undefined) throw refused(record, `it is ${record.status} yet superseded by ${record.supersededBy}`);
    if (record.status === "superseded" && record.supersededBy === undefined) throw refused(record, "it is superseded but names no entry that replaced it");
  }

  /** Removes a record entirely (used only to undo an insert). */
  remove(id: string): void {
    const record = this.#byId.get(id);
    if (record === undefined) return;
    const shard = this.#ensureBuilt(this.#shards.get(record.userId)!);
    this.#addDeferred(shard);
    this.#unindex(shard, record);
    const i = indexBySeq(shard.entries, record.seq);
    if (i >= 0) shard.entries.splice(i, 1);
    this.#byId.delete(id);
    this.#bySeq.delete(record.seq);
    countRecord(this.#loadedCounts, record, -1, true);
    if (shard.entries.length === 0) this.#shards.delete(record.userId);
  }

  /** The user's shard, built and with every vector in its index, for a change. */
  #shardFor(userId: string): UserShard {
    const shard = this.#shards.get(userId);
    if (shard === undefined) return this.#newShard(userId);
    const built = this.#ensureBuilt(shard);
    this.#addDeferred(built);
    return built;
  }

  #newShard(userId: string): UserShard {
    const shard = this.#emptyShard([]);
    this.#shards.set(userId, shard);
    return shard;
  }

  #emptyShard(entries: EntryRecord[]): UserShard {
    return {
      vectors: new VectorIndex(this.#dim, { sparse: this.#compact }),
      keywords: new Bm25Index(),
      dedup: new DedupIndex(this.#recordOf),
      keys: new Map(),
      entries,
    };
  }

  /** Whether the record has a vector of the store's dimension (read without copying it out of where it is). */
  #fits(record: EntryRecord): boolean {
    const length = vectorLength(record);
    return length > 0 && length === this.#dim;
  }

  /**
   * `tile`: part of building a whole shard, where every text comes once (the tokenizer's memo of
   * recent texts is skipped); a vector still in its section's block is left there for the index to read
   * (its block goes to `deferTo`), the others go to the index a tile at a time; `dedup` collects the
   * dedup forms, filled later (see `#fillDedup`).
   */
  #index(shard: UserShard, record: EntryRecord, tile?: VectorTile, deferTo?: BlockVectors[], dedup?: DeferredDedup): void {
    if (!isLive(record.status)) return;
    const bulk = tile !== undefined;
    // Read with the record from a format-6 snapshot (persistence/text-forms.ts): its tokens, counted, and its dedup form.
    const forms = this.#forms;
    const known = bulk && takeTextFormsInto(record, forms);
    if (known) shard.keywords.addCounted(record.seq, forms.terms, forms.ids, forms.tfs, forms.start, forms.end);
    else shard.keywords.add(record.seq, bulk ? tokenizeOnce(record.content) : tokenize(record.content));
    if (this.#fits(record)) {
      if (bulk) {
        // A vector still in its section's block is read there by the index until #addDeferred adds it.
        const block = blockOf(record);
        if (block !== undefined && deferTo !== undefined && block.defer(record.seq)) {
          if (!deferTo.includes(block)) deferTo.push(block);
        } else tile.add(record.seq, record.embedding!);
      } else {
        // The index keeps a copy of its own: normalise in a scratch vector rather than a new one per entry.
        this.#unit.set(record.embedding!);
        shard.vectors.add(record.seq, normalize(this.#unit));
      }
    }
    if (dedup !== undefined) {
      dedup.seqs.push(record.seq);
      dedup.forms.push(known ? forms.dedup : undefined);
    } else shard.dedup.add(normalizeForDedup(record.content), record.seq);
    if (record.key !== undefined) {
      const slot = shard.keys.get(record.key);
      if (slot === undefined) shard.keys.set(record.key, [record.seq]);
      else slot.push(record.seq);
    }
  }

  #unindex(shard: UserShard, record: EntryRecord): void {
    shard.keywords.remove(record.seq);
    // Whoever still holds the record (an undo log, an export under way) keeps its vector.
    detach(record, shard.vectors);
    shard.vectors.remove(record.seq);
    if (!isLive(record.status)) return;
    shard.dedup.remove(normalizeForDedup(record.content), record.seq);
    if (record.key !== undefined) {
      const slot = shard.keys.get(record.key);
      const j = slot?.indexOf(record.seq) ?? -1;
      if (slot !== undefined && j >= 0) slot.splice(j, 1);
      if (slot !== undefined && slot.length === 0) shard.keys.delete(record.key);
    }
  }
}

/**
 * Vectors on their way into a {@link VectorIndex} during a bulk build: those that come as a section's stored
 * pairs, unit length as stored, are queued as where their pairs are and added a batch at a time
 * ({@link VectorIndex.addSparseRows}: whole inverted blocks straight from the batch); the others (about 1 %
 * of a hashing embedder's) are normalised into rows and added a tile at a time ({@link VectorIndex.addRows}).
 * The two queues are flushed apart, so the index's layout is not the one single adds in seq order make;
 * its answers are the same: a score is the vector's own, and equal scores are ordered by doc (top-k.ts).
 */
class VectorTile implements SparsePairSink {
  static readonly SIZE = 64;
  /** Vectors per batch of pairs: whole inverted blocks of the index's (512) come straight from a batch. */
  static readonly PAIRS = 4096;
  readonly #dim: number;
  readonly #index: VectorIndex;
  readonly #rows: Float32Array;
  readonly #docs: number[] = [];
  /** The queued pairs: the arrays they are in (one section's block), and per vector where and how many. */
  #components: Uint8Array | Uint16Array | null = null;
  #values: Float32Array | null = null;
  readonly #pairDocs: number[] = [];
  readonly #componentsAt = new Int32Array(VectorTile.PAIRS);
  readonly #valuesAt = new Int32Array(VectorTile.PAIRS);
  readonly #counts = new Int32Array(VectorTile.PAIRS);

  constructor(dim: number, index: VectorIndex) {
    this.#dim = dim;
    this.#index = index;
    this.#rows = new Float32Array(VectorTile.SIZE * dim);
  }

  /**
   * Adds the vector of `doc` (a seq) straight from its section's block as pairs, when the block holds it sparse and
   * unit length as stored and the index keeps it sparse ({@link BlockVectors.addUnitTo}): the index then holds it bit
   * for bit. False: nothing was added.
   */
  addFrom(block: BlockVectors, doc: number): boolean {
    return block.addUnitTo(doc, this);
  }

  /** Queues a vector as its pairs (the block's call back from {@link addFrom}); false when the index would not keep it sparse. */
  addSparse(doc: number, components: Uint8Array | Uint16Array, componentsAt: number, values: Float32Array, valuesAt: number, count: number): boolean {
    if (count > this.#index.sparseLimit) return false;
    if (components !== this.#components || values !== this.#values) {
      this.#flushPairs();
      this.#components = components;
      this.#values = values;
    }
    const i = this.#pairDocs.length;
    this.#pairDocs.push(doc);
    this.#componentsAt[i] = componentsAt;
    this.#valuesAt[i] = valuesAt;
    this.#counts[i] = count;
    if (i + 1 === VectorTile.PAIRS) this.#flushPairs();
    return true;
  }

  /**
   * Queues `vector` made unit-length, with the very values {@link normalize} gives (the same norm, the same divisions).
   * Returns whether the index will hold `vector` itself, bit for bit ({@link VectorIndex.holds}): normalising left
   * every component as it was (a stored vector is unit length already, so mostly it does), and none is -0 (which
   * a sparse layout keeps as +0). The build then need not compare each vector with the index's copy.
   */
  add(doc: number, vector: Float32Array): boolean {
    const dim = this.#dim;
    const rows = this.#rows;
    const at = this.#docs.length * dim;
    const norm = Math.sqrt(dot(vector, vector));
    let same = norm !== 0;
    if (norm === 0) rows.set(vector, at);
    else {
      for (let i = 0; i < dim; i++) {
        const value = vector[i] as number;
        // Compared as stored (float32), not as the double the division gives.
        const unit = Math.fround(value / norm);
        rows[at + i] = unit;
        if (unit !== value || (value === 0 && 1 / value < 0)) same = false;
      }
    }
    this.#docs.push(doc);
    if (this.#docs.length === VectorTile.SIZE) this.#flushRows();
    return same;
  }

  flush(): void {
    this.#flushPairs();
    this.#flushRows();
  }

  #flushRows(): void {
    if (this.#docs.length === 0) return;
    this.#index.addRows(this.#docs, this.#rows);
    this.#docs.length = 0;
  }

  #flushPairs(): void {
    const n = this.#pairDocs.length;
    if (n === 0) return;
    const batch = {
      docs: this.#pairDocs,
      components: this.#components!,
      componentsAt: this.#componentsAt,
      values: this.#values!,
      valuesAt: this.#valuesAt,
      counts: this.#counts,
    };
    this.#index.addSparseRows(batch, n);
    this.#pairDocs.length = 0;
  }
}

/** The dedup forms of a build's live entries, in seq order (see {@link EntryState}, `#fillDedup`). */
interface DeferredDedup {
  seqs: number[];
  /** null: the entry's ASCII content in lower case; undefined: computed from the content when filled. */
  forms: (string | null | undefined)[];
}

/** Adds (`sign` 1) or takes away (-1) a cold user's catalog counts (bytes stay 0: nothing of the user is in memory). */
function countCold(counts: StatusCounts, user: CatalogUser, sign: 1 | -1): void {
  counts.total += sign * user.total;
  counts.active += sign * user.active;
  counts.superseded += sign * user.superseded;
  counts.deleted += sign * user.deleted;
  counts.unstructured += sign * user.unstructured;
}

function checkTime(record: EntryRecord, name: string, time: unknown): void {
  if (!(typeof time === "number" && Math.abs(time) <= MAX_TIME_MS)) {
    throw refused(record, `its ${name} (${String(time)}) is not a time a JS Date can hold (±${MAX_TIME_MS} ms around 1970)`);
  }
}

/** The error for a record the state refuses: nothing was changed, and the message says why. */
function refused(record: EntryRecord, why: string): MoomemError {
  return invalidArgument(
    `refused to store entry ${record.id} of user ${record.userId}: ${why}; nothing was changed (a bug in moomem or in a plug-in's output)`,
  );
}

/**
 * Changes made by one operation, recorded so they can be undone if the write
 * that should make them durable fails.
 */
export class Change {
  readonly #state: EntryState;
  /** The one user this change may touch (a write for one user), or null (import: any). */
  readonly userId: string | null;
  /** `cold`: the record went to a user not in memory ({@link EntryState.insertCold}). */
  readonly #log: Array<{ id: string; before: EntryRecord | undefined; cold?: EntryRecord }> = [];
  readonly #after = new Map<string, EntryRecord>();

  constructor(state: EntryState, userId: string | null = null) {
    this.#state = state;
    this.userId = userId;
  }

  /** Adds a new entry (its id must be new to the store). */
  insert(record: EntryRecord): void {
    this.#checkUser(record);
    this.#state.insert(record);
    this.#logged(record, undefined);
  }

  /** Adds a new entry of a user not in memory, without loading the user (see {@link EntryState.insertCold}). */
  insertCold(record: EntryRecord): void {
    this.#checkUser(record);
    this.#state.insertCold(record);
    this.#log.push({ id: record.id, before: undefined, cold: record });
    this.#after.set(record.id, record);
  }

  /** Replaces an existing entry by its next version. */
  put(record: EntryRecord): void {
    this.#checkUser(record);
    this.#logged(record, this.#state.put(record));
  }

  /** A write for one user never touches another user's entry, whatever the code computing it does. */
  #checkUser(record: EntryRecord): void {
    if (this.userId !== null && record.userId !== this.userId) throw refused(record, `this write is for user ${this.userId} only`);
  }

  #logged(record: EntryRecord, before: EntryRecord | undefined): void {
    this.#log.push({ id: record.id, before });
    this.#after.set(record.id, record);
  }

  /**
   * Throws when the change made a `supersededBy` link to another user's entry. Links it did not touch
   * are not checked: forgetting an entry that a damaged file linked badly must still work. A link to
   * an entry not in the store is let through (a partial import may bring its target later); readers
   * follow a link only to an entry of the same user ({@link EntryState.successor}).
   */
  checkLinks(): void {
    let linked: Map<string, EntryRecord> | null = null;
    for (const record of this.#after.values()) {
      if (record.supersededBy !== undefined) (linked ??= new Map()).set(record.id, record);
    }
    if (linked === null) return; // most changes (an add, an import of live entries) link nothing
    const seen = new Set<string>();
    for (const { id, before } of this.#log) {
      // The first log entry of an id holds its version from before the change.
      if (seen.has(id)) continue;
      seen.add(id);
      const record = linked.get(id);
      const target = record?.supersededBy;
      if (record === undefined || target === undefined || before?.supersededBy === target) continue;
      const successor = this.#state.get(target);
      if (successor !== undefined && successor.userId !== record.userId) {
        throw refused(record, `it would be superseded by ${target}, which is another user's entry`);
      }
    }
  }

  /** Every record this change created or changed, in its final version. */
  records(): EntryRecord[] {
    return [...this.#after.values()];
  }

  get empty(): boolean {
    return this.#after.size === 0;
  }

  undo(): void {
    for (let i = this.#log.length - 1; i >= 0; i--) {
      const { id, before, cold } = this.#log[i]!;
      if (cold !== undefined) this.#state.removeCold(cold);
      else if (before === undefined) this.#state.remove(id);
      else this.#state.revert(before);
    }
    this.#log.length = 0;
    this.#after.clear();
  }
}
