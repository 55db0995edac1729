// What the agent-facing tools answer (AI SDK tools and the MCP server alike): one shape, built in one place.

import type { AddSummary, EntryKind, EntryStatus, MemoryEntry, RecallHit } from "../types.ts";
import { relativeTime } from "../context/format-context.ts";

/** One fact of a `remember` call, as the tools report it. */
export interface RememberedFact {
  /** The new entry's id, or the id of the entry it duplicates. */
  id: string;
  content: string;
  kind: EntryKind;
  /** The slot the extractor gave the fact (e.g. `home_city`), when it gave one. */
  key?: string;
  action: "inserted" | "duplicate";
  /** Ids of older entries this fact replaced (kept as history). */
  replaced?: string[];
  /** Ids of entries it now stands beside as a possible conflict. */
  conflicts?: string[];
}

/** What `remember` answers: what the store did with the text. */
export interface RememberResult {
  /** New entries stored. */
  stored: number;
  /** Facts the store already knew. */
  duplicates: number;
  /** Older entries replaced (kept as history). */
  replaced: number;
  /** True when the model provider failed and the text was kept whole, as an `unstructured` memory (still recalled). */
  degraded: boolean;
  facts: RememberedFact[];
}

/** One memory as `recall` answers it, most relevant first. */
export interface RecalledMemory {
  id: string;
  content: string;
  kind: EntryKind;
  key?: string;
  /** When the user said it: ISO 8601 date-time (UTC). */
  observedAt: string;
  /** The same, relative to now: "just now", "3 hours ago", "2 days ago", or "on 2024-03-01" past 30 days. */
  when: string;
  /** Relevance (fused rank score; only the order matters). */
  score: number;
}

/** What `recall` answers. */
export interface RecallResult {
  memories: RecalledMemory[];
}

/** One memory as `list` (MCP) answers it, in the order it was stored. */
export interface ListedMemory {
  id: string;
  content: string;
  kind: EntryKind;
  key?: string;
  status: EntryStatus;
  observedAt: string;
  when: string;
  /** The entry that replaced this one, for a superseded memory. */
  supersededBy?: string;
}

/** The answer of `remember` for one add. */
export function rememberResult(summary: AddSummary): RememberResult {
  return {
    stored: summary.inserted,
    duplicates: summary.duplicates,
    replaced: summary.superseded,
    degraded: summary.degraded,
    facts: summary.facts.map((f) => ({
      id: f.id,
      content: f.content,
      kind: f.kind,
      ...(f.key === undefined ? {} : { key: f.key }),
      action: f.action,
      ...(f.replaced === undefined || f.replaced.length === 0 ? {} : { replaced: [...f.replaced] }),
      ...(f.conflicts === undefined || f.conflicts.length === 0 ? {} : { conflicts: [...f.conflicts] }),
    })),
  };
}

/** The answer of `recall`; `now` is what "2 days ago" is measured from. */
export function recallResult(hits: readonly RecallHit[], now: number): RecallResult {
  return {
    memories: hits.map((h) => ({
      id: h.id,
      content: h.content,
      kind: h.kind,
      ...(h.key === undefined ? {} : { key: h.key }),
      observedAt: isoTime(h.createdAt),
      when: relativeTime(h.createdAt, now),
      score: h.score,
    })),
  };
}

/** One entry as `list` answers it. */
export function listedMemory(entry: MemoryEntry, now: number): ListedMemory {
  return {
    id: entry.id,
    content: entry.content,
    kind: entry.kind,
    ...(entry.key === undefined ? {} : { key: entry.key }),
    status: entry.status,
    observedAt: isoTime(entry.createdAt),
    when: relativeTime(entry.createdAt, now),
    ...(entry.supersededBy === undefined ? {} : { supersededBy: entry.supersededBy }),
  };
}

/** ISO 8601 for any stored time; a time no `Date` can hold (never written by moomem itself) is named, not thrown. */
function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `invalid time (${String(ms)} ms)` : date.toISOString();
}
