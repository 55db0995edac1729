// Records whose vector is kept elsewhere (a vector index, a snapshot section's block) and read from there when asked.

import type { EntryKind, EntryLifecycle, EntryRecord, EntryStatus, Metadata } from "../types.ts";
import type { TextForms, TextFormsSlot } from "./text-forms.ts";

/**
 * What holds a record's vector, found by the record's `seq`: a user's vector index (state/lean-record.ts)
 * or the block of the snapshot section the record was read from ({@link BlockVectors}).
 */
export interface VectorHome {
  /** Components of every vector it holds. */
  readonly dim: number;
  /** A new copy of the vector held for `seq`, or undefined when there is none. */
  vector(seq: number): Float32Array | undefined;
  /** Non-zero components of the vector held for `seq` (0 when there is none). */
  nonZero(seq: number): number;
}

/** What a search offers each scored doc to (the vector index's top k and moments: indexes/score-sink.ts). */
export interface ScoreOffer {
  offer(doc: number, score: number): void;
}

/** What takes a unit-length vector as its non-zero pairs (a user's vector index: `VectorIndex.addSparse`). */
export interface SparsePairSink {
  /**
   * Adds the vector of `doc` (of the sink's dimension) whose non-zero components are `count` pairs: components
   * ascending in `components` from `componentsAt`, values in `values` from `valuesAt`. False when the sink would
   * not keep it as pairs (too many of them): nothing was added.
   */
  addSparse(doc: number, components: Uint8Array | Uint16Array, componentsAt: number, values: Float32Array, valuesAt: number, count: number): boolean;
}

/**
 * Vectors read from a section's block and not copied out yet: a record read from a format-6 snapshot
 * points here until its user's indexes are built, when it moves to the vector index or gets its own
 * copy (state/entry-state.ts). One shared array for a section's vectors instead of a 1 KiB array per
 * record: a user loaded and not yet used costs its vectors' stored bytes, and a load allocates nothing
 * per vector (docs/design.md, "Load path").
 */
export interface BlockVectors extends VectorHome {
  /** Writes the vector held for `seq` into `out` (of {@link dim} components, all of them written); false when there is none. */
  copyInto(seq: number, out: Float32Array): boolean;
  /**
   * Hands the vector held for `seq` to `sink` as its pairs, when it is stored sparse and unit length
   * as stored (normalising would change none of its values: `unitAsStored`, embedding/vector-math.ts)
   * and `sink` takes it; false otherwise, and nothing was handed: the caller adds it the general way.
   */
  addUnitTo(seq: number, sink: SparsePairSink): boolean;
  /**
   * Marks the vector held for `seq` as one a user's vector index reads here rather than holding it yet
   * (state/entry-state.ts: a user's vectors are added to its index on its first write or after a few
   * reads); false when there is none. Only the state of the one user whose records were read with this
   * block marks it.
   */
  defer(seq: number): boolean;
  /** How many vectors are marked by {@link defer}. */
  readonly deferred: number;
  /**
   * Offers `sink` each marked vector's score against `query` (its components as doubles) when above 0:
   * the score the vector index gives the vector once it holds it (normalised as `normalize` does it,
   * summed in `dotAt`'s order: embedding/vector-math.ts), to the bit.
   */
  scanDeferred(query: Float64Array, sink: ScoreOffer): void;
  /** The score {@link scanDeferred} gives the marked vector of `seq`; undefined when `seq` has no marked vector here. */
  scoreDeferred(seq: number, query: Float64Array): number | undefined;
  /** Forgets every mark (the index holds those vectors now). */
  undefer(): void;
  /** The text forms read with `record` (one of this block's), when the block keeps them (persistence/text-forms.ts); `take`: forgotten there. */
  forms(record: EntryRecord): TextForms | undefined;
  /** {@link forms}, into `slot`, and forgotten here (text-forms.ts, `TextFormsSlot`: no object, no lower-case copy); false when there are none. */
  takeFormsInto(record: EntryRecord, slot: TextFormsSlot): boolean;
}

/** The block a record read from a format-6 section still reads its vector from; undefined for any other record. */
export function blockHome(record: EntryRecord): BlockVectors | undefined {
  if (!(record instanceof HomedRecord)) return undefined;
  const home = HomedRecord.home(record);
  return home instanceof Float32Array || !("copyInto" in home) ? undefined : (home as BlockVectors);
}

/**
 * A record whose `embedding` is read from its home. A class (its fields in the object itself, and
 * where its vector is in a private field, which a spread does not copy): 32 bytes less per entry than a
 * plain object given the same fields one by one. It has an EntryRecord's own enumerable properties in
 * the record codec's order (`embedding` in its place after `lifecycle`, `key` and `supersededBy`
 * last); `embedding` is an accessor, so reading it, spreading the record (`{ ...record, status }`),
 * `structuredClone` and `JSON.stringify` all see the vector. Assigning it throws (records are immutable).
 */
export class HomedRecord {
  /** The `embedding` accessor every record defines: one descriptor, not a new one per record. */
  static readonly #embedding: PropertyDescriptor = { get: HomedRecord.#read, enumerable: true, configurable: false };
  /** The home holding the vector (found there by `seq`), or the record's own copy. */
  #home: VectorHome | Float32Array;
  declare readonly embedding: Float32Array;

  constructor(
    id: string,
    userId: string,
    content: string,
    kind: EntryKind,
    status: EntryStatus,
    createdAt: number,
    updatedAt: number,
    seq: number,
    metadata: Metadata,
    lifecycle: EntryLifecycle,
    home: VectorHome,
    key: string | undefined,
    supersededBy: string | undefined,
  ) {
    const self = this as unknown as Record<string, unknown>;
    self["id"] = id;
    self["userId"] = userId;
    self["content"] = content;
    self["kind"] = kind;
    self["status"] = status;
    self["createdAt"] = createdAt;
    self["updatedAt"] = updatedAt;
    self["seq"] = seq;
    self["metadata"] = metadata;
    self["lifecycle"] = lifecycle;
    Object.defineProperty(this, "embedding", HomedRecord.#embedding);
    if (key !== undefined) self["key"] = key;
    if (supersededBy !== undefined) self["supersededBy"] = supersededBy;
    this.#home = home;
  }

  /** The record's fields with its vector at `home`. */
  static of(record: EntryRecord, home: VectorHome): HomedRecord {
    return new HomedRecord(
      record.id,
      record.userId,
      record.content,
      record.kind,
      record.status,
      record.createdAt,
      record.updatedAt,
      record.seq,
      record.metadata,
      record.lifecycle,
      home,
      record.key,
      record.supersededBy,
    );
  }

  /**
   * The `embedding` getter: a new copy of the home's vector each time (a caller changing it changes
   * nothing of the store's), or the record's own copy.
   */
  static #read(this: HomedRecord): Float32Array {
    const home = this.#home;
    if (home instanceof Float32Array) return home;
    const seq = (this as unknown as EntryRecord).seq;
    const vector = home.vector(seq);
    if (vector === undefined) throw new Error(`internal: the vector of entry seq ${seq} left its home before its record was given its own copy`);
    return vector;
  }

  static home(record: HomedRecord): VectorHome | Float32Array {
    return record.#home;
  }

  /** Moves the record's vector to `home` (which holds that very vector) or to the record's own copy. */
  static move(record: HomedRecord, home: VectorHome | Float32Array): void {
    record.#home = home;
  }
}
