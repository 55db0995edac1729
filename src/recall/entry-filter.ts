// Filters shared by recall and list: time window, kind, exact-match metadata (always inside one user).

import type { EntryKind, EntryRecord, JsonValue, Metadata } from "../types.ts";
import { checkKind, checkMetadata, checkTime } from "../validation/arguments.ts";
import { invalidArgument } from "../errors.ts";

export interface EntryFilter {
  since?: number;
  until?: number;
  kind?: EntryKind;
  metadata?: Metadata;
}

/** Reads and validates the filter options of a call; undefined when no filter is set. */
export function readFilter(options: Record<string, unknown>, call: string): EntryFilter | undefined {
  const filter: EntryFilter = {};
  if (options["since"] !== undefined) filter.since = checkTime(options["since"], `${call}: since`);
  if (options["until"] !== undefined) filter.until = checkTime(options["until"], `${call}: until`);
  if (options["kind"] !== undefined) filter.kind = checkKind(options["kind"], `${call}: kind`);
  if (options["metadata"] !== undefined) filter.metadata = checkMetadata(options["metadata"], `${call}: metadata`);
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    throw invalidArgument(
      `${call}: since (${new Date(filter.since).toISOString()}) is after until (${new Date(filter.until).toISOString()}); nothing could match`,
    );
  }
  return Object.keys(filter).length === 0 ? undefined : filter;
}

export function matchesFilter(record: EntryRecord, filter: EntryFilter): boolean {
  if (filter.since !== undefined && record.createdAt < filter.since) return false;
  if (filter.until !== undefined && record.createdAt > filter.until) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  if (filter.metadata !== undefined) {
    for (const [key, want] of Object.entries(filter.metadata)) {
      // Own keys only: `metadata["__proto__"]` of an entry without that key is Object.prototype, which would equal `{}`.
      if (!Object.hasOwn(record.metadata, key) || !jsonEqual(record.metadata[key], want)) return false;
    }
  }
  return true;
}

function jsonEqual(a: JsonValue | undefined, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, JsonValue>)[k], (b as Record<string, JsonValue>)[k]!));
}
