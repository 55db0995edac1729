// One entry <-> its persisted JSON object (snake_case, as on disk and in exports).

import type { EntryKind, EntryLifecycle, EntryRecord, EntryStatus, Metadata } from "../types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../types.ts";
import { base64ToVector, sparseBase64ToVector, vectorToBase64, vectorToSparseBase64 } from "./base64.ts";
import { HomedRecord, type VectorHome } from "./homed-record.ts";
import { copyLifecycle, foldLegacy, lifecycleFromJson, lifecycleToJson, liftLegacy, type LifecycleJson } from "./lifecycle-codec.ts";

/**
 * The newest shape of an entry line, as the file backend's snapshot and journal of the same version hold
 * it (a memory store reports it too). v4: the store's bookkeeping in its own `lifecycle` object, apart
 * from the caller's `metadata` (before, it was kept in `metadata`); v3: mostly-zero vectors written by
 * their non-zero components; v2: dense base64 vectors.
 */
export const ENTRY_FORMAT_VERSION = 4;

/** A vector stored by its non-zero components (format v3): `sparse` is {@link vectorToSparseBase64} of it. */
export interface SparseVectorJson {
  dim: number;
  sparse: string;
}

/** Persisted shape of one entry (format v2 to v4). */
export interface EntryJson {
  id: string;
  user_id: string;
  content: string;
  kind: EntryKind;
  key?: string;
  status: EntryStatus;
  created_at: number;
  updated_at: number;
  superseded_by: string | null;
  seq: number;
  /** base64 of little-endian float32 (v2, v3), its non-zero components (v3), a number array (seed v1), or null. */
  embedding: string | SparseVectorJson | number[] | null;
  metadata: Metadata;
  /** The store's bookkeeping (v4; absent before, when `metadata` held it: see lifecycle-codec.ts). */
  lifecycle?: LifecycleJson;
}

/**
 * The persisted object of one entry; `JSON.stringify` of it is one line. With `legacy`, in the shape of
 * entry formats before 4 (the lifecycle folded into `metadata`; see `foldLegacy` for when that throws).
 */
export function entryToJson(entry: EntryRecord, legacy = false): EntryJson {
  const lifecycle = lifecycleOf(entry);
  const out: EntryJson = {
    ...headFields(entry),
    embedding: entry.embedding === null ? null : vectorToBase64(entry.embedding),
    metadata: legacy ? foldLegacy(entry.metadata, lifecycle, entry.id) : entry.metadata,
  };
  if (!legacy) out.lifecycle = lifecycleToJson(lifecycle);
  if (entry.key !== undefined) out.key = entry.key;
  return out;
}

/** An entry's lifecycle; none (a record a host built before entry format 4 and hands a backend directly) is an empty one. */
function lifecycleOf(entry: EntryRecord): EntryLifecycle {
  return entry.lifecycle ?? {};
}

/** The fields that come before `embedding`, in their on-disk order. */
function headFields(entry: EntryRecord): Omit<EntryJson, "embedding" | "metadata" | "key"> {
  return {
    id: entry.id,
    user_id: entry.userId,
    content: entry.content,
    kind: entry.kind,
    status: entry.status,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
    superseded_by: entry.supersededBy ?? null,
    seq: entry.seq,
  };
}

/**
 * `JSON.stringify(entryToJson(entry))`, byte for byte, at a fraction of the cost: the vector's base64
 * (most of the line) is spliced in rather than built as a property and scanned again by the stringifier
 * (base64 needs no escaping). Every journal line, snapshot line and export line is written this way.
 *
 * With `sparse` (format v3 and later files), a vector that is mostly zeros is written as
 * `{"dim":D,"sparse":"<base64>"}` instead; the line is then what `entryToJson` gives with that object
 * as `embedding`. Exports stay dense, so any moomem can import them. `legacy`: see {@link entryToJson}.
 *
 * With `apart` (format-6 snapshot sections, file/section-blocks.ts), `embedding` is the vector's dimension
 * only: its components are in the section's binary block, and {@link entryFromJson} reads them from there.
 */
export function entryJsonText(entry: EntryRecord, sparse = false, legacy = false, apart = false): string {
  const head = headText(entry);
  const embedding = entry.embedding === null ? "null" : apart ? String(entry.embedding.length) : vectorText(entry.embedding, sparse);
  const key = entry.key === undefined ? "" : `,"key":${JSON.stringify(entry.key)}`;
  const lifecycle = lifecycleOf(entry);
  const tail = legacy
    ? `"metadata":${JSON.stringify(foldLegacy(entry.metadata, lifecycle, entry.id))}`
    : `"metadata":${JSON.stringify(entry.metadata)},"lifecycle":${isEmpty(lifecycle) ? "{}" : JSON.stringify(lifecycleToJson(lifecycle))}`;
  return `${head},"embedding":${embedding},${tail}${key}}`;
}

/**
 * `JSON.stringify(headFields(entry))` without its closing brace. Built from its parts when every field
 * has the type an entry gives it (a finite number prints as `JSON.stringify` prints it): this spares
 * an object and the stringifier's walk of it on every line written. Anything else (a record a host
 * built by hand) goes through `JSON.stringify` itself, so the bytes are the same in every case.
 */
function headText(entry: EntryRecord): string {
  const { id, userId, content, kind, status, createdAt, updatedAt, seq } = entry;
  const by = entry.supersededBy ?? null;
  if (
    typeof id !== "string" ||
    typeof userId !== "string" ||
    typeof content !== "string" ||
    typeof kind !== "string" ||
    typeof status !== "string" ||
    !Number.isFinite(createdAt) ||
    !Number.isFinite(updatedAt) ||
    !Number.isFinite(seq) ||
    (by !== null && typeof by !== "string")
  ) {
    return JSON.stringify(headFields(entry)).slice(0, -1);
  }
  return (
    `{"id":${JSON.stringify(id)},"user_id":${JSON.stringify(userId)},"content":${JSON.stringify(content)},"kind":${JSON.stringify(kind)},` +
    `"status":${JSON.stringify(status)},"created_at":${createdAt},"updated_at":${updatedAt},"superseded_by":${by === null ? "null" : JSON.stringify(by)},"seq":${seq}`
  );
}

/**
 * The metadata of every decoded entry that has none: one frozen object instead of an empty one per
 * record (most entries have none; records are never changed in place, and the public API hands out
 * copies: state/public-entry.ts). About 50 bytes less per loaded entry.
 */
const NO_METADATA: Metadata = Object.freeze({});

/** The lifecycle last decoded, frozen (see {@link shared}). */
let lastLifecycle: EntryLifecycle | null = null;

/**
 * `lifecycle`, or the equal one decoded just before (frozen, shared by both records) when every field of
 * both is a string or a number: entries written by one extractor mostly carry the same lifecycle
 * (`{ extractor: "patterns" }`), and a store read whole or a user loaded then holds one object for a run
 * of them instead of one each. Records are never changed in place, and the public API hands out copies
 * (state/public-entry.ts).
 */
function shared(lifecycle: EntryLifecycle): EntryLifecycle {
  const fields = lifecycle as Record<string, unknown>;
  const keys = Object.keys(fields);
  for (const key of keys) if (typeof fields[key] !== "string" && typeof fields[key] !== "number") return lifecycle;
  const last = lastLifecycle as Record<string, unknown> | null;
  if (last !== null) {
    // The same fields in the same order (a copy of either spreads alike) with the same values.
    const lastKeys = Object.keys(last);
    let same = lastKeys.length === keys.length;
    for (let i = 0; same && i < keys.length; i++) same = lastKeys[i] === keys[i] && last[keys[i]!] === fields[keys[i]!];
    if (same) return last;
  }
  lastLifecycle = Object.freeze(lifecycle);
  return lifecycle;
}

/** The fields and values of the persisted object {@link lastLifecycle} was last read from, copied (null: none, or it was not shared). */
let lastJsonKeys: string[] | null = null;
let lastJsonValues: unknown[] = [];

/**
 * `shared(lifecycleFromJson(value))`, without reading `value` again when it holds the same fields in the same
 * order with the same values, each a string or a number, as the object read just before: both then give the
 * same lifecycle, and the shared one is returned. Most entry lines of a snapshot carry the same lifecycle.
 */
function readLifecycle(value: unknown): EntryLifecycle {
  if (lastJsonKeys !== null && typeof value === "object" && value !== null && !Array.isArray(value) && isLastJson(value as Record<string, unknown>)) {
    return lastLifecycle!;
  }
  const lifecycle = shared(lifecycleFromJson(value));
  if (lifecycle === lastLifecycle) {
    lastJsonKeys = Object.keys(value as object);
    lastJsonValues = lastJsonKeys.map((key) => (value as Record<string, unknown>)[key]);
  } else {
    lastJsonKeys = null;
  }
  return lifecycle;
}

/** Whether `o` has the fields {@link lastJsonKeys} names, in that order, with their values (strings and numbers only). */
function isLastJson(o: Record<string, unknown>): boolean {
  const keys = Object.keys(o);
  const last = lastJsonKeys!;
  if (keys.length !== last.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const v = o[keys[i]!];
    if (keys[i] !== last[i] || (typeof v !== "string" && typeof v !== "number") || v !== lastJsonValues[i]) return false;
  }
  return true;
}

/** True for an object with no own field holding a value (`lifecycleToJson` of it is `{}`). */
function isEmpty(o: object): boolean {
  for (const key in o) if ((o as Record<string, unknown>)[key] !== undefined) return false;
  return true;
}

function vectorText(vector: Float32Array, sparse: boolean): string {
  const components = sparse ? vectorToSparseBase64(vector) : null;
  return components === null ? `"${vectorToBase64(vector)}"` : `{"dim":${vector.length},"sparse":"${components}"}`;
}

/**
 * Parses one persisted entry object (v2 to v4, or the seed's v1 with `embedding` as an array and no
 * `updated_at`; with `vectors`, a format-6 section's line, whose `embedding` is a dimension). An object with a `lifecycle` field is v4; one without holds the store's bookkeeping in
 * its metadata (v1 to v3), which is lifted out (lifecycle-codec.ts). Throws a plain `Error` naming the
 * bad field; callers wrap it with the file and line.
 */
export function entryFromJson(value: unknown, vectors?: VectorSource): EntryRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("entry is not a JSON object");
  const o = value as Record<string, unknown>;
  const id = str(o, "id");
  const userId = str(o, "user_id");
  const content = typeof o["content"] === "string" ? o["content"] : fail("content", o["content"]);
  const kind = o["kind"];
  if (!ENTRY_KINDS.includes(kind as EntryKind)) fail("kind", kind);
  const status = o["status"];
  if (!ENTRY_STATUSES.includes(status as EntryStatus)) fail("status", status);
  const createdAt = num(o, "created_at");
  const updatedAt = o["updated_at"] === undefined ? createdAt : num(o, "updated_at");
  const seq = num(o, "seq");
  if (!Number.isSafeInteger(seq) || seq < 0) fail("seq", seq);
  const supersededBy = o["superseded_by"];
  if (supersededBy !== null && supersededBy !== undefined && typeof supersededBy !== "string") fail("superseded_by", supersededBy);
  const metadata = o["metadata"] ?? {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) fail("metadata", metadata);
  if (!nestedAtMost(metadata, MAX_METADATA_DEPTH)) fail("metadata", `nested deeper than ${MAX_METADATA_DEPTH} levels`);
  const own = Object.hasOwn(o, "lifecycle")
    ? { lifecycle: readLifecycle(o["lifecycle"]), metadata: isEmpty(metadata) ? NO_METADATA : (metadata as Metadata) }
    : liftLegacy(metadata as Metadata, { status: status as EntryStatus, content, updatedAt });
  const raw = o["embedding"];
  // A format-6 section's vector stays in the section's block until the record's user is built (persistence/homed-record.ts).
  const home = typeof raw === "number" && vectors?.homeVector !== undefined ? vectors.homeVector(raw, seq) : null;
  if (home !== null) {
    const key = o["key"];
    if (key !== undefined && key !== null && typeof key !== "string") fail("key", key);
    const homed = new HomedRecord(
      id,
      userId,
      content,
      kind as EntryKind,
      status as EntryStatus,
      createdAt,
      updatedAt,
      seq,
      own.metadata,
      own.lifecycle,
      home,
      typeof key === "string" ? key : undefined,
      typeof supersededBy === "string" ? supersededBy : undefined,
    );
    return homed as unknown as EntryRecord;
  }
  const entry: EntryRecord = {
    id,
    userId,
    content,
    kind: kind as EntryKind,
    status: status as EntryStatus,
    createdAt,
    updatedAt,
    seq,
    metadata: own.metadata,
    lifecycle: own.lifecycle,
    embedding: decodeEmbedding(raw, vectors),
  };
  const key = o["key"];
  if (key !== undefined && key !== null) {
    if (typeof key !== "string") fail("key", key);
    entry.key = key;
  }
  if (typeof supersededBy === "string") entry.supersededBy = supersededBy;
  return entry;
}

/**
 * Metadata nested deeper than this never comes from add or import (they allow 32 levels). JSON.parse
 * reads any depth, but every later JSON.stringify or structuredClone of a value nested some thousands
 * deep overflows the stack: such a line is refused as damage rather than loaded to fail later.
 */
const MAX_METADATA_DEPTH = 64;

/** True when no value inside `value` is nested more than `levels` deep (recursion bounded by `levels`). */
function nestedAtMost(value: object, levels: number): boolean {
  if (levels < 0) return false;
  for (const key in value) {
    const inner: unknown = (value as Record<string, unknown>)[key];
    if (typeof inner === "object" && inner !== null && !nestedAtMost(inner, levels - 1)) return false;
  }
  return true;
}

/** Where the components of a vector written {@link entryJsonText}'s `apart` come from (a format-6 section's block). */
export interface VectorSource {
  /** The next vector of the block, of `dim` components; throws a plain Error when the block holds no such vector. */
  nextVector(dim: number): Float32Array;
  /**
   * The next vector of the block, of `dim` components, checked and left in the block for the entry of
   * `seq` to read from there; null when the block keeps no vector of that dimension (then
   * {@link nextVector} reads it). Throws a plain Error when the block holds no such vector.
   */
  homeVector?(dim: number, seq: number): VectorHome | null;
}

function decodeEmbedding(value: unknown, vectors: VectorSource | undefined): Float32Array | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" && vectors !== undefined) return vectors.nextVector(value);
  if (typeof value === "string") {
    const vector = base64ToVector(value);
    if (vector === null) fail("embedding", `${value.slice(0, 24)}…: not base64 of finite float32 values`);
    return vector;
  }
  if (typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const dim = o["dim"];
    const components = o["sparse"];
    if (typeof dim !== "number" || typeof components !== "string" || Object.keys(o).length !== 2) return fail("embedding", JSON.stringify(value).slice(0, 40));
    return sparseBase64ToVector(components, dim) ?? fail("embedding", components.slice(0, 24));
  }
  if (Array.isArray(value)) {
    const vector = new Float32Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      if (typeof x !== "number") fail("embedding", x);
      vector[i] = x;
      // Checked after the conversion: a finite double beyond float32's range (1e39) becomes Infinity.
      if (!Number.isFinite(vector[i]!)) fail("embedding", x);
    }
    return vector;
  }
  return fail("embedding", value);
}

function str(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (typeof v !== "string" || v.length === 0) fail(field, v);
  return v;
}

function num(o: Record<string, unknown>, field: string): number {
  const v = o[field];
  if (typeof v !== "number" || !Number.isFinite(v)) fail(field, v);
  return v;
}

function fail(field: string, value: unknown): never {
  throw new Error(`field "${field}" is invalid (${JSON.stringify(value) ?? String(value)})`);
}

/** Deep copy of an entry, so callers never share mutable state with the store. */
export function cloneEntry(entry: EntryRecord): EntryRecord {
  const copy: EntryRecord = { ...entry, metadata: structuredClone(entry.metadata), lifecycle: copyLifecycle(entry.lifecycle) };
  return copy;
}
