// Entries ⇄ rows of the `entries` table: what a write sends (one JSON parameter per statement) and what a read gets back from any driver.

import type { EntryRecord } from "../../types.ts";
import { entryFromJson, entryJsonText } from "../record-codec.ts";
import type { SqlRow } from "./sql-client.ts";

/** The entries table's columns, in the order reads select them. */
export const ENTRY_COLUMNS = "id, user_id, content, kind, key, status, created_at, updated_at, seq, superseded_by, metadata, lifecycle, embedding";

/**
 * The SQL that turns one JSON parameter (an array of record-codec entry objects,
 * vectors as base64 of little-endian float32) into rows. Entries travel as one
 * text parameter so every driver sends them the same way, whatever its type
 * mapping for arrays or bytes. Parsed as `json`, not `jsonb`, so metadata keeps
 * its key order.
 */
export function entryRowsFromJson(param: string): string {
  return `SELECT e->>'id', e->>'user_id', e->>'content', e->>'kind', e->>'key', e->>'status',
      (e->>'created_at')::double precision, (e->>'updated_at')::double precision, (e->>'seq')::bigint,
      e->>'superseded_by', e->'metadata', e->'lifecycle', decode(e->>'embedding', 'base64')
    FROM json_array_elements(${param}::json) AS e`;
}

/** The JSON text of `entries` for {@link entryRowsFromJson}: record-codec lines (dense vectors), joined as one array. */
export function entriesJsonText(entries: readonly EntryRecord[]): string {
  return `[${entries.map((entry) => entryJsonText(entry)).join(",")}]`;
}

/**
 * One row of `entries` (selected as {@link ENTRY_COLUMNS}) back into a record.
 * Drivers differ: `bigint` comes as a string (pg), a number or a bigint (PGlite);
 * `json` as an object or its text; `bytea` as bytes or `\x…` hex text. Every
 * field is then checked by the record codec, so a bad row names its field.
 * A row written before row format 3 has no lifecycle (NULL): the record codec
 * then takes the store's bookkeeping out of its metadata, as it was kept there.
 */
export function entryFromRow(row: SqlRow): EntryRecord {
  const lifecycle = row["lifecycle"];
  const entry = entryFromJson({
    id: row["id"],
    user_id: row["user_id"],
    content: row["content"],
    kind: row["kind"],
    key: row["key"],
    status: row["status"],
    created_at: numeric(row["created_at"]),
    updated_at: numeric(row["updated_at"]),
    seq: numeric(row["seq"]),
    superseded_by: row["superseded_by"],
    metadata: typeof row["metadata"] === "string" ? (JSON.parse(row["metadata"]) as unknown) : row["metadata"],
    ...(lifecycle === null || lifecycle === undefined ? {} : { lifecycle: typeof lifecycle === "string" ? (JSON.parse(lifecycle) as unknown) : lifecycle }),
    embedding: null,
  });
  entry.embedding = vectorFromBytes(row["embedding"]);
  return entry;
}

/** A numeric column as a JS number (drivers return int8 as text or bigint so as not to lose digits; seqs and times fit). */
export function numeric(value: unknown): unknown {
  if (typeof value === "string" && value.trim() !== "") return Number(value);
  if (typeof value === "bigint") return Number(value);
  return value;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A `bytea` of float32 little-endian values as a vector (a copy, so it is aligned and owns its memory); null stays null. */
export function vectorFromBytes(value: unknown): Float32Array | null {
  if (value === null || value === undefined) return null;
  let bytes: Uint8Array;
  if (value instanceof Uint8Array) {
    bytes = value;
  } else if (typeof value === "string" && /^\\x(?:[0-9a-fA-F]{2})*$/.test(value)) {
    bytes = new Uint8Array((value.length - 2) / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(value.slice(2 + 2 * i, 4 + 2 * i), 16);
  } else {
    throw new Error(`field "embedding" is invalid (${typeof value})`);
  }
  if (bytes.length % 4 !== 0) throw new Error(`field "embedding" is invalid (${bytes.length} bytes, not a multiple of 4)`);
  const vector = new Float32Array(bytes.length / 4);
  if (littleEndian) {
    new Uint8Array(vector.buffer).set(bytes);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(4 * i, true);
  }
  return vector;
}
