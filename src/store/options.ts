// The options and results of MemoryStore's calls (open's are in open-options.ts).

import type { EntryStatus, FactOutcome, MemoryEntry, Metadata, RecallMode } from "../types.ts";

/** Options of {@link MemoryStore.add}. */
export interface AddOptions {
  /** JSON object kept on every entry this add creates. */
  metadata?: Metadata;
  /** When the user said it (Date or ms since epoch), for importing old conversations. Default: now. */
  observedAt?: Date | number;
}

/** Options of {@link MemoryStore.recall}. */
export interface RecallOptions {
  /** How many hits at most, 1..100 (default 5). */
  topK?: number;
  /** `"hybrid"` (default), `"vector"` or `"keyword"`. */
  mode?: RecallMode;
  /** Only entries created at or after this time. */
  since?: Date | number;
  /** Only entries created at or before this time. */
  until?: Date | number;
  /** Only entries of this kind. */
  kind?: MemoryEntry["kind"];
  /** Only entries whose metadata has these exact values. */
  metadata?: Metadata;
}

/** Options of {@link MemoryStore.list}. */
export interface ListOptions {
  /** One status, or `"all"` (default). */
  status?: EntryStatus | "all";
  since?: Date | number;
  until?: Date | number;
  kind?: MemoryEntry["kind"];
  metadata?: Metadata;
}

/** Result of {@link MemoryStore.reextract}. */
export interface ReextractSummary {
  /** Unstructured entries looked at. */
  processed: number;
  /** Entries turned into facts (or found to hold none). */
  converted: number;
  /** Entries whose extraction failed again (left unstructured). */
  failed: number;
  /** What happened to each extracted fact. */
  facts: FactOutcome[];
}

/** Options of {@link MemoryStore.export}. */
export interface ExportOptions {
  /** Only this user's entries (default: every user's). */
  userId?: string;
  /**
   * Entry format of the lines: 4 (default), or 2 for a moomem before 0.2 to import: the store's
   * bookkeeping (`lifecycle`) is then written into each entry's metadata under its old names
   * (`purged`, `deleted_from`, `judge`, …), so an export of an entry whose own metadata uses one of those
   * names is refused with `INVALID_ARGUMENT`.
   */
  entryFormat?: 2 | 4;
}

/** Options of {@link MemoryStore.import}. */
export interface ImportOptions {
  /**
   * Accept an import whose header is missing or announces another number of entries than the lines
   * hold (an export cut short): import what is there. Every line is still checked. Default false.
   */
  partial?: boolean;
}

/** What {@link MemoryStore.forget} removes: one entry, or all of the user's. */
export type ForgetTarget = { id: string } | { all: true };

/** Options of {@link MemoryStore.forget}. */
export interface ForgetOptions {
  /** Also erase the content: after the next compaction only a content-free tombstone remains on disk. */
  purge?: boolean;
}
