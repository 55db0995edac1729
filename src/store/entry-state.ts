// The in-memory truth of an open store: entries plus the per-user indexes derived from them.

import type { EntryRecord, EntryStatus } from "../types.ts";
import { VectorIndex } from "../indexes/vector-index.ts";
import { Bm25Index } from "../indexes/bm25-index.ts";
import { normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { normalize } from "../embedding/vector-math.ts";
import { MoomemError } from "../errors.ts";

/** Statuses whose entries are searchable (PRD: recall returns only these). */
export function isLive(status: EntryStatus): boolean {
  return status === "active" || status === "unstructured";
}

/** One user's derived indexes. Nothing here is shared between users. */
export interface UserShard {
  readonly vectors: VectorIndex;
  readonly keywords: Bm25Index;
  /** Normalised content → ids of the live entries holding it (dedup; the first is the original). */
  readonly dedup: Map<string, string[]>;
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
  readonly #byId = new Map<string, EntryRecord>();
  readonly #bySeq = new Map<number, EntryRecord>();
  readonly #shards = new Map<string, UserShard>();
  /** Shards whose entries were loaded but not indexed yet: a user's indexes are built when first used. */
  readonly #unbuilt = new Set<UserShard>();

  constructor(dim: number) {
    this.#dim = dim;
    this.#unit = new Float32Array(dim);
  }

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): EntryRecord | undefined {
    return this.#byId.get(id);
  }

  bySeq(seq: number): EntryRecord | undefined {
    return this.#bySeq.get(seq);
  }

  /** The user's shard (indexes built), or undefined when the user has no entries. Never another user's. */
  shard(userId: string): UserShard | undefined {
    const shard = this.#shards.get(userId);
    if (shard !== undefined) this.#ensureBuilt(shard);
    return shard;
  }

  /** The user's entries in seq order (any status), without building the user's indexes. */
  entriesOf(userId: string): readonly EntryRecord[] {
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
      throw new MoomemError("STORE_CORRUPTED", `entries ${other.id} (seq ${other.seq}) and ${record.id} (seq ${record.seq}) were both stored; the store's data is inconsistent`);
    }
    let shard = this.#shards.get(record.userId);
    if (shard === undefined) {
      shard = this.#newShard(record.userId);
      this.#unbuilt.add(shard);
    }
    insertBySeq(shard.entries, record);
    this.#byId.set(record.id, record);
    this.#bySeq.set(record.seq, record);
    if (!this.#unbuilt.has(shard)) this.#index(shard, record);
  }

  #ensureBuilt(shard: UserShard): void {
    if (!this.#unbuilt.has(shard)) return;
    this.#unbuilt.delete(shard);
    for (const record of shard.entries) this.#index(shard, record);
  }

  users(): IterableIterator<string> {
    return this.#shards.keys();
  }

  /** All entries in seq order (across users; for export, stats and compaction only). */
  *all(): IterableIterator<EntryRecord> {
    const seqs = [...this.#bySeq.keys()].sort((a, b) => a - b);
    for (const seq of seqs) yield this.#bySeq.get(seq)!;
  }

  /** Inserts or replaces a record (same id) and updates the indexes; returns the previous version. */
  put(record: EntryRecord): EntryRecord | undefined {
    const previous = this.#byId.get(record.id);
    const other = this.#bySeq.get(record.seq);
    if (other !== undefined && other.id !== record.id) {
      // Two entries with one seq would make one of them vanish from compaction: refuse loudly.
      throw new MoomemError("STORE_CORRUPTED", `entries ${other.id} and ${record.id} share seq ${record.seq}; the store's data is inconsistent`);
    }
    const shard = this.#shardFor(record.userId);
    if (previous !== undefined) {
      this.#unindex(shard, previous);
      const i = indexBySeq(shard.entries, previous.seq);
      if (i >= 0) shard.entries[i] = record;
      this.#bySeq.delete(previous.seq);
    } else {
      insertBySeq(shard.entries, record);
    }
    this.#byId.set(record.id, record);
    this.#bySeq.set(record.seq, record);
    this.#index(shard, record);
    return previous;
  }

  /** Removes a record entirely (used only to undo an insert). */
  remove(id: string): void {
    const record = this.#byId.get(id);
    if (record === undefined) return;
    const shard = this.#shards.get(record.userId)!;
    this.#ensureBuilt(shard);
    this.#unindex(shard, record);
    const i = indexBySeq(shard.entries, record.seq);
    if (i >= 0) shard.entries.splice(i, 1);
    this.#byId.delete(id);
    this.#bySeq.delete(record.seq);
    if (shard.entries.length === 0) this.#shards.delete(record.userId);
  }

  #shardFor(userId: string): UserShard {
    const shard = this.#shards.get(userId);
    if (shard === undefined) return this.#newShard(userId);
    this.#ensureBuilt(shard);
    return shard;
  }

  #newShard(userId: string): UserShard {
    const shard: UserShard = { vectors: new VectorIndex(this.#dim), keywords: new Bm25Index(), dedup: new Map(), keys: new Map(), entries: [] };
    this.#shards.set(userId, shard);
    return shard;
  }

  #index(shard: UserShard, record: EntryRecord): void {
    if (!isLive(record.status)) return;
    shard.keywords.add(record.seq, tokenize(record.content));
    if (record.embedding !== null && record.embedding.length === this.#dim) {
      // The index keeps a copy of its own: normalise in a scratch vector rather than a new one per entry.
      this.#unit.set(record.embedding);
      shard.vectors.add(record.seq, normalize(this.#unit));
    }
    const norm = normalizeForDedup(record.content);
    const holders = shard.dedup.get(norm);
    if (holders === undefined) shard.dedup.set(norm, [record.id]);
    else holders.push(record.id);
    if (record.key !== undefined) {
      const slot = shard.keys.get(record.key);
      if (slot === undefined) shard.keys.set(record.key, [record.seq]);
      else slot.push(record.seq);
    }
  }

  #unindex(shard: UserShard, record: EntryRecord): void {
    shard.keywords.remove(record.seq);
    shard.vectors.remove(record.seq);
    if (!isLive(record.status)) return;
    const norm = normalizeForDedup(record.content);
    const holders = shard.dedup.get(norm);
    const i = holders?.indexOf(record.id) ?? -1;
    if (holders !== undefined && i >= 0) holders.splice(i, 1);
    if (holders !== undefined && holders.length === 0) shard.dedup.delete(norm);
    if (record.key !== undefined) {
      const slot = shard.keys.get(record.key);
      const j = slot?.indexOf(record.seq) ?? -1;
      if (slot !== undefined && j >= 0) slot.splice(j, 1);
      if (slot !== undefined && slot.length === 0) shard.keys.delete(record.key);
    }
  }
}

/** Position of the record with this seq in a seq-ordered list, or -1. */
function indexBySeq(list: readonly EntryRecord[], seq: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = list[mid]!.seq;
    if (s === seq) return mid;
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function insertBySeq(list: EntryRecord[], record: EntryRecord): void {
  let i = list.length;
  while (i > 0 && list[i - 1]!.seq > record.seq) i--;
  list.splice(i, 0, record);
}

/**
 * Changes made by one operation, recorded so they can be undone if the write
 * that should make them durable fails.
 */
export class Change {
  readonly #state: EntryState;
  readonly #log: Array<{ id: string; before: EntryRecord | undefined }> = [];
  readonly #after = new Map<string, EntryRecord>();

  constructor(state: EntryState) {
    this.#state = state;
  }

  put(record: EntryRecord): void {
    const before = this.#state.put(record);
    this.#log.push({ id: record.id, before });
    this.#after.set(record.id, record);
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
      const { id, before } = this.#log[i]!;
      if (before === undefined) this.#state.remove(id);
      else this.#state.put(before);
    }
    this.#log.length = 0;
    this.#after.clear();
  }
}
