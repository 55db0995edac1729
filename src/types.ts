// The data shapes and plug-in interfaces every layer shares.

/** Any JSON value (what `metadata` may hold). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Free-form JSON object kept on an entry. */
export type Metadata = { [key: string]: JsonValue };

/** Lifecycle state of an entry (PRD state machine). */
export type EntryStatus = "active" | "superseded" | "deleted" | "unstructured";

/** What kind of memory an entry is; `unstructured` is raw text nobody extracted facts from. */
export type EntryKind = "fact" | "preference" | "event" | "unstructured";

export const ENTRY_STATUSES: readonly EntryStatus[] = ["active", "superseded", "deleted", "unstructured"];
export const ENTRY_KINDS: readonly EntryKind[] = ["fact", "preference", "event", "unstructured"];

/** One chat message, in the shape OpenAI and the Vercel AI SDK use. */
export interface ChatMessage {
  role: string;
  content: string;
}

/** What `add` accepts: plain text or a whole chat transcript. */
export type AddInput = string | readonly ChatMessage[];

/** One remembered thing, as the public API shows it. */
export interface MemoryEntry {
  id: string;
  userId: string;
  content: string;
  kind: EntryKind;
  /** The slot this fact fills (e.g. `home_city`), when the extractor named one. */
  key?: string;
  status: EntryStatus;
  /** When the fact was observed, ms since epoch. */
  createdAt: number;
  /** When this entry last changed state, ms since epoch. */
  updatedAt: number;
  /** Id of the entry that replaced this one (status `superseded`). */
  supersededBy?: string;
  /** Store-wide insertion order. */
  seq: number;
  metadata: Metadata;
}

/** Internal form of an entry: the public fields plus its vector (null when it could not be embedded). */
export interface EntryRecord extends MemoryEntry {
  embedding: Float32Array | null;
}

/** A fact an extractor found in the input. */
export interface ExtractedFact {
  content: string;
  kind: EntryKind;
  /** Slot the fact fills, e.g. `home_city`, `allergy`; lets a judge see that a new value replaces an old one. */
  key?: string;
  /** The part of the input the fact came from. */
  sourceSpan?: string;
}

/** Turns text into vectors. Must return one vector of length `dim` per text. */
export interface Embedder {
  readonly dim: number;
  /** Names the embedding space (model and settings); stored in the snapshot so a store is never read with another embedder. */
  readonly id?: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Filled in by an extractor during one `extract` call. */
export interface ExtractionReport {
  retried: boolean;
}

/** Finds the facts worth remembering in an input. */
export interface Extractor {
  /** Short name recorded in each entry's metadata (`raw`, `llm`, …). */
  readonly mode: string;
  /**
   * `report` lets a model-backed extractor say it needed its retry
   * (`report.retried = true`); the store then judges conflicts offline, so one
   * add never makes more than two model calls.
   */
  extract(userId: string, input: string | readonly ChatMessage[], report?: ExtractionReport): Promise<ExtractedFact[]>;
}

/** A judge's answer about one candidate. */
export interface Verdict {
  /** The candidate entry's id. */
  id: string;
  decision: "replace" | "coexist" | "ignore";
  reason?: string;
}

/** One new fact and the existing entries it might replace, as a judge sees them. */
export interface JudgeItem {
  fact: ExtractedFact & { embedding?: Float32Array };
  candidates: Array<MemoryEntry & { embedding?: Float32Array }>;
}

/** Decides whether a new fact replaces, coexists with, or is unrelated to existing entries. */
export interface ConflictJudge {
  /** Short name recorded in metadata (`similarity`, `llm`, …). */
  readonly name?: string;
  /** `candidates` carry their vector (`embedding`) when they have one. */
  judge(fact: ExtractedFact & { embedding?: Float32Array }, candidates: Array<MemoryEntry & { embedding?: Float32Array }>): Promise<Verdict[]>;
  /**
   * Optional: judges every new fact of one add in a single call (a model-backed
   * judge uses it to keep an add within two model calls). Result `i` answers
   * `items[i]`. Facts of one add are judged against existing entries, not
   * against each other.
   */
  judgeAll?(items: JudgeItem[]): Promise<Verdict[][]>;
}

/** Source of time, ms since epoch. Inject a fixed one in tests. */
export interface Clock {
  now(): number;
}

/** What happened to one extracted fact during `add`. */
export interface FactOutcome {
  content: string;
  kind: EntryKind;
  key?: string;
  action: "inserted" | "duplicate";
  /** The new entry's id, or the existing entry's id for a duplicate. */
  id: string;
  /** Ids of entries this fact superseded. */
  replaced?: string[];
  /** Ids of entries this fact now coexists with (flagged as a possible conflict). */
  conflicts?: string[];
  /**
   * Set when the fact was longer than `maxContentChars` (open option, default 8192) and only its first
   * `maxContentChars` characters were kept (`content` is what was kept); `originalChars` is its length before.
   */
  truncated?: { originalChars: number };
}

/** Result of `add`. */
export interface AddSummary {
  extracted: number;
  inserted: number;
  duplicates: number;
  superseded: number;
  conflicts: number;
  /** True when extraction or embedding failed and the input was stored in degraded form. */
  degraded: boolean;
  facts: FactOutcome[];
}

/** One recall result. */
export interface RecallHit {
  id: string;
  userId: string;
  content: string;
  kind: EntryKind;
  key?: string;
  status: EntryStatus;
  createdAt: number;
  metadata: Metadata;
  /** Fused RRF score. */
  score: number;
  /** 1-based rank in the vector route, when that route returned the entry. */
  vectorRank?: number;
  /** 1-based rank in the keyword (BM25) route, when that route returned the entry. */
  keywordRank?: number;
  /** True when the query could not be embedded and only keywords were used. */
  degraded?: true;
}

/** Result of `stats()`. */
export interface StoreStats {
  total: number;
  active: number;
  superseded: number;
  deleted: number;
  unstructured: number;
  users: number;
  bytesOnDisk: number;
  /** ms since epoch of the last acknowledged write, or null for a store never written. */
  lastWriteAt: number | null;
  truncatedRecovered: number;
  extractorMode: string;
  formatVersion: number;
}

/** Result of `import`. */
export interface ImportSummary {
  entries: number;
  users: number;
  /** Lines skipped (blank lines, the export header). */
  skipped: number;
}

/** Durability of an acknowledged write (DESIGN §5). */
export type SyncMode = "always" | "interval" | "none";

/** Recall route selection. */
export type RecallMode = "hybrid" | "vector" | "keyword";
