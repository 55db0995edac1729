// One page of a user's memory table: filter, sort and cut on the server, so the page never receives more than one page of rows.

import type { EntryKind, EntryStatus, MemoryEntry, Metadata } from "../types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import type { EntryRow } from "./api-types.ts";
import { QueryParams } from "./query-params.ts";

export const ENTRY_SORTS = ["seq", "createdAt", "updatedAt"] as const;
export type EntrySort = (typeof ENTRY_SORTS)[number];

/** Most rows one request may ask for. */
export const MAX_PAGE_ROWS = 200;
/** Characters of content a table row shows; the memory's own page shows it whole. */
export const PREVIEW_CHARS = 240;

/** What the memory table asks for. */
export interface EntryQuery {
  status: EntryStatus | "all";
  kind?: EntryKind;
  key?: string;
  /** Case-insensitive substring of the content. */
  text?: string;
  since?: number;
  until?: number;
  /** Exact values per key, as `list({ metadata })` matches them. */
  metadata?: Metadata;
  sort: EntrySort;
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

const PARAMS = ["status", "kind", "key", "text", "since", "until", "metadata", "sort", "order", "offset", "limit"] as const;

/** Reads `GET api/users/<user>/entries?…`; throws `INVALID_ARGUMENT` naming the bad parameter. */
export function parseEntryQuery(search: URLSearchParams): EntryQuery {
  const p = new QueryParams(search, PARAMS, "entries");
  const query: EntryQuery = {
    status: p.choice("status", [...ENTRY_STATUSES, "all"], "all"),
    sort: p.choice("sort", ENTRY_SORTS, "seq"),
    order: p.choice("order", ["asc", "desc"], "desc"),
    offset: p.integer("offset", 0, 1_000_000_000, 0),
    limit: p.integer("limit", 1, MAX_PAGE_ROWS, 50),
  };
  const kind = p.choice("kind", ENTRY_KINDS);
  if (kind !== undefined) query.kind = kind;
  const key = p.text("key", 200);
  if (key !== undefined) query.key = key;
  const text = p.text("text", 500);
  if (text !== undefined) query.text = text;
  const since = p.time("since");
  if (since !== undefined) query.since = since;
  const until = p.time("until");
  if (until !== undefined) query.until = until;
  if (since !== undefined && until !== undefined && since > until) {
    throw invalidArgument(`entries: "since" (${new Date(since).toISOString()}) is after "until" (${new Date(until).toISOString()}); nothing could match`);
  }
  const metadata = p.jsonObject("metadata");
  if (metadata !== undefined) query.metadata = metadata;
  return query;
}

/**
 * The rows of one page and how many entries matched in all. `entries` is every entry of one user, any status,
 * already narrowed to the query's metadata filter when it has one (the store's `list({ metadata })`).
 */
export function selectEntries(entries: readonly MemoryEntry[], query: EntryQuery): { total: number; rows: EntryRow[] } {
  const needle = query.text?.toLowerCase();
  const matched = entries.filter(
    (e) =>
      (query.status === "all" || e.status === query.status) &&
      (query.kind === undefined || e.kind === query.kind) &&
      (query.key === undefined || e.key === query.key) &&
      (query.since === undefined || e.createdAt >= query.since) &&
      (query.until === undefined || e.createdAt <= query.until) &&
      (needle === undefined || e.content.toLowerCase().includes(needle)),
  );
  const field = query.sort;
  const sign = query.order === "asc" ? 1 : -1;
  // seq breaks ties, so a page boundary never splits entries of equal time differently on two requests.
  matched.sort((a, b) => sign * (a[field] - b[field] || a.seq - b.seq));
  const rows = matched.slice(query.offset, query.offset + query.limit).map(toRow);
  return { total: matched.length, rows };
}

function toRow(e: MemoryEntry): EntryRow {
  const truncated = e.content.length > PREVIEW_CHARS;
  const row: EntryRow = {
    id: e.id,
    content: truncated ? `${e.content.slice(0, PREVIEW_CHARS)}…` : e.content,
    truncated,
    kind: e.kind,
    status: e.status,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    seq: e.seq,
    metadataKeys: Object.keys(e.metadata).length,
  };
  if (e.key !== undefined) row.key = e.key;
  if (e.supersededBy !== undefined) row.supersededBy = e.supersededBy;
  return row;
}
