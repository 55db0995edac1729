// The store's bookkeeping on an entry (EntryLifecycle) ⇄ its persisted object, and ⇄ the metadata keys
// that held it before entry format 4: the one table of those fields, their names and their types.

import type { EntryLifecycle, EntryStatus, JsonValue, Metadata } from "../types.ts";
import { ENTRY_STATUSES } from "../types.ts";
import { MoomemError } from "../errors.ts";

/** A lifecycle object as persisted: the same fields, snake_case (`purged_at`), as entry lines name fields. */
export type LifecycleJson = { [name: string]: JsonValue };

/** The entry a legacy key is read from: a key is the store's only when the entry's state agrees. */
interface LegacyEntry {
  status: EntryStatus;
  content: string;
  updatedAt: number;
}

/** One field: its name on disk, how a persisted value is read (undefined: not a value of this field). */
interface Field {
  key: keyof EntryLifecycle;
  name: string;
  read: (value: unknown) => EntryLifecycle[keyof EntryLifecycle] | undefined;
  /** Before format 4 a caller's metadata could hold the same key: taken as the store's only when this holds. */
  legacyWhen?: (entry: LegacyEntry) => boolean;
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const time = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const ids = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((id) => typeof id === "string") ? [...v] : undefined);
const status = (v: unknown): EntryStatus | undefined => (ENTRY_STATUSES.includes(v as EntryStatus) ? (v as EntryStatus) : undefined);
const truncated = (v: unknown): { originalChars: number } | undefined => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const chars = (v as Record<string, unknown>)["originalChars"];
  return typeof chars === "number" && Number.isSafeInteger(chars) && chars >= 0 && Object.keys(v).length === 1 ? { originalChars: chars } : undefined;
};
const deleted = (entry: LegacyEntry): boolean => entry.status === "deleted";

/**
 * Every lifecycle field, in the order they are written. A new field is added here (and to
 * `EntryLifecycle`); it never needs a legacy name, since no metadata key ever held it.
 */
const FIELDS: readonly Field[] = [
  { key: "extractor", name: "extractor", read: text },
  { key: "sourceSpan", name: "source_span", read: text },
  { key: "truncated", name: "truncated", read: truncated },
  { key: "extractionDegraded", name: "extraction_degraded", read: text },
  { key: "embeddingDegraded", name: "embedding_degraded", read: text },
  { key: "judge", name: "judge", read: text },
  { key: "judgeFallback", name: "judge_fallback", read: text },
  { key: "conflictReason", name: "conflict_reason", read: text },
  { key: "conflict", name: "conflict", read: ids },
  { key: "deletedFrom", name: "deleted_from", read: status, legacyWhen: deleted },
  { key: "deletedAt", name: "deleted_at", read: time, legacyWhen: deleted },
  // Before format 4 a purge also wrote `purged: true` (see liftLegacy).
  { key: "purgedAt", name: "purged_at", read: time, legacyWhen: (e) => deleted(e) && e.content === "" },
  { key: "restoredAt", name: "restored_at", read: time },
  { key: "reextractedFrom", name: "reextracted_from", read: text },
  { key: "reextractedInto", name: "reextracted_into", read: ids },
  { key: "reextractedAt", name: "reextracted_at", read: time },
];

const BY_NAME: ReadonlyMap<string, Field> = new Map(FIELDS.map((f) => [f.name, f]));

/**
 * The metadata keys the store used for its bookkeeping before entry format 4. Exports in an older entry
 * format (for an older moomem) write the lifecycle under these names, so an entry whose own metadata
 * uses one cannot be written in them.
 */
export const LEGACY_METADATA_KEYS: readonly string[] = [...FIELDS.map((f) => f.name), "purged"];

/** The persisted object of a lifecycle: its fields in table order, snake_case names. */
export function lifecycleToJson(lifecycle: EntryLifecycle): LifecycleJson {
  const out: LifecycleJson = {};
  for (const field of FIELDS) {
    const value = lifecycle[field.key];
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}

/** Reads a persisted lifecycle object; throws a plain `Error` naming the bad field (the record codec names the line). */
export function lifecycleFromJson(value: unknown): EntryLifecycle {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`field "lifecycle" is invalid (${JSON.stringify(value)})`);
  const out: EntryLifecycle = {};
  for (const [name, raw] of Object.entries(value)) {
    const field = BY_NAME.get(name);
    const read = field?.read(raw);
    if (field === undefined || read === undefined)
      throw new Error(`field "lifecycle.${name}" is invalid (${JSON.stringify(raw as JsonValue)?.slice(0, 60) ?? String(raw)})`);
    (out as Record<string, unknown>)[field.key] = read;
  }
  return out;
}

/**
 * An entry read in a format before 4 (its bookkeeping in its metadata): the lifecycle taken out of
 * the metadata, and the metadata left. A key is taken only with a value of the field's type and when
 * the entry's state agrees (`deleted_from` on a deleted entry, `purged` on an erased one): anything
 * else was the caller's own and stays in the metadata.
 */
export function liftLegacy(metadata: Metadata, entry: LegacyEntry): { lifecycle: EntryLifecycle; metadata: Metadata } {
  let lifecycle: EntryLifecycle | null = null;
  let rest: Metadata | null = null;
  const take = (name: string): void => {
    rest ??= { ...metadata };
    delete rest[name];
  };
  for (const field of FIELDS) {
    if (!Object.hasOwn(metadata, field.name)) continue;
    if (field.legacyWhen !== undefined && !field.legacyWhen(entry)) continue;
    if (field.key === "purgedAt" && metadata["purged"] !== true) continue;
    const value = field.read(metadata[field.name]);
    if (value === undefined) continue;
    (lifecycle ??= {})[field.key] = value as never;
    take(field.name);
  }
  // A purge wrote `purged: true` and `purged_at`; a tombstone with only the first was purged when it last changed.
  if (metadata["purged"] === true && entry.status === "deleted" && entry.content === "") {
    (lifecycle ??= {}).purgedAt ??= entry.updatedAt;
    take("purged");
  }
  return { lifecycle: lifecycle ?? {}, metadata: rest ?? metadata };
}

/**
 * The entry's metadata with its lifecycle folded in under the legacy names, as entry formats before 4
 * hold it (for a journal of an older version, or an export for an older moomem). Throws `INVALID_ARGUMENT`
 * when the caller's metadata uses one of those names: an older moomem would take it for the store's own.
 */
export function foldLegacy(metadata: Metadata, lifecycle: EntryLifecycle, id: string): Metadata {
  checkFoldable(metadata, id);
  const folded = lifecycleToJson(lifecycle);
  if (Object.keys(folded).length === 0) return metadata;
  const out: Metadata = { ...metadata };
  for (const [name, value] of Object.entries(folded)) {
    if (name === "purged_at") out["purged"] = true;
    out[name] = value;
  }
  return out;
}

/** Throws what {@link foldLegacy} throws when `metadata` uses a name entry formats before 4 keep the store's bookkeeping under. */
export function checkFoldable(metadata: Metadata, id: string): void {
  for (const key of LEGACY_METADATA_KEYS) {
    if (Object.hasOwn(metadata, key)) {
      throw new MoomemError(
        "INVALID_ARGUMENT",
        `entry ${id} cannot be written in an entry format before 4: its metadata has the key ${JSON.stringify(key)}, which those formats use for the store's own bookkeeping; write the current format instead`,
      );
    }
  }
}

/** A deep copy (the arrays too), so a caller never shares a record's lifecycle. */
export function copyLifecycle(lifecycle: EntryLifecycle): EntryLifecycle {
  const out: EntryLifecycle = { ...lifecycle };
  if (lifecycle.conflict !== undefined) out.conflict = [...lifecycle.conflict];
  if (lifecycle.reextractedInto !== undefined) out.reextractedInto = [...lifecycle.reextractedInto];
  if (lifecycle.truncated !== undefined) out.truncated = { ...lifecycle.truncated };
  return out;
}
