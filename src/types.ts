// The data shapes and plug-in interfaces every layer shares.

/** Any JSON value (what `metadata` may hold). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Free-form JSON object kept on an entry. */
export type Metadata = { [key: string]: JsonValue };

/**
 * Lifecycle state of an entry (README, "API at a glance": add, forget, restore, supersede). `unstructured` is a degraded add: the extractor
 * failed, so the input was kept raw (still recalled) until `reextract` turns it into facts.
 */
export type EntryStatus = "active" | "superseded" | "deleted" | "unstructured";

/**
 * What kind of memory an entry is. The default extractor and the LLM extractor give `fact`,
 * `preference` or `event`; `unstructured` is raw text nobody extracted facts from (the
 * `RawExtractor`, or a degraded add).
 */
export type EntryKind = "fact" | "preference" | "event" | "unstructured";

export const ENTRY_STATUSES: readonly EntryStatus[] = ["active", "superseded", "deleted", "unstructured"];
export const ENTRY_KINDS: readonly EntryKind[] = ["fact", "preference", "event", "unstructured"];

/**
 * One chat message as extractors receive it: `role` in canonical form (`"user"`, `"assistant"`,
 * `"system"`, `"tool"`, …; `add` maps `"User"` and `"human"` to `"user"`) and the message's text.
 */
export interface ChatMessage {
  role: string;
  content: string;
}

/** A part of a message's content in the OpenAI and AI SDK shape; only `text` parts carry words to remember. */
export type ContentPart = { type: "text"; text: string } | { type: string; [field: string]: unknown };

/**
 * A chat message as `add` accepts it: the OpenAI / Vercel AI SDK shape, with `content` a string, an
 * array of parts (`[{ type: "text", text: "…" }, { type: "image", … }]`: the text parts are read,
 * other parts ignored), or null (an assistant turn that only called tools).
 */
export interface InputMessage {
  role: string;
  content: string | readonly ContentPart[] | null;
}

/** What `add` accepts: plain text or a whole chat transcript. */
export type AddInput = string | readonly InputMessage[];

/**
 * What the store records about an entry's life, apart from the caller's `metadata`: how it was made,
 * judged, forgotten, restored or re-extracted. The store writes these fields, never a caller, so no key
 * a caller puts in `metadata` changes what the store does (docs/decisions.md, "The store's bookkeeping").
 */
export interface EntryLifecycle {
  /** `mode` of the extractor that made the entry (`pattern`, `raw`, `llm`, …). */
  extractor?: string;
  /** The words of the input the fact came from, when the extractor named them. */
  sourceSpan?: string;
  /** The content was longer than `maxContentChars` and was cut: its length before. */
  truncated?: { originalChars: number };
  /** Why extraction failed: the entry holds the input as it was (status `unstructured`) until `reextract`. */
  extractionDegraded?: string;
  /** Why embedding failed: the entry has no vector and is found by keywords only. */
  embeddingDegraded?: string;
  /** Name of the judge that decided about the entry's candidates (`similarity`, `llm`, `similarity-fallback`, …). */
  judge?: string;
  /** Why the configured judge was not used, when the offline one decided instead. */
  judgeFallback?: string;
  /** Why this entry replaced others, or why it was replaced (the judge's reason, or a restore's). */
  conflictReason?: string;
  /** Ids of entries this one coexists with as a possible conflict (the newest 50). */
  conflict?: string[];
  /** The status the entry had when it was forgotten (while it is `deleted`). */
  deletedFrom?: EntryStatus;
  /** When it was forgotten (ms since epoch). */
  deletedAt?: number;
  /** When `forget(…, { purge: true })` erased its content: the entry is a tombstone and cannot be restored. */
  purgedAt?: number;
  /** When `restore` last brought it back. */
  restoredAt?: number;
  /** The unstructured entry `reextract` made this one from. */
  reextractedFrom?: string;
  /** The entries `reextract` made of this one. */
  reextractedInto?: string[];
  /** When `reextract` converted it. */
  reextractedAt?: number;
}

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
  /** The caller's own JSON, as given to `add` (the store never writes into it). */
  metadata: Metadata;
  /**
   * The store's bookkeeping: how the entry was made, judged, forgotten or restored. Every entry the
   * store returns has it (optional only so that entries a host builds, e.g. for a judge's tests, need none).
   */
  lifecycle?: EntryLifecycle;
}

/** Internal form of an entry: the public fields, its lifecycle (always there), and its vector (null when it could not be embedded). */
export interface EntryRecord extends MemoryEntry {
  lifecycle: EntryLifecycle;
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

/**
 * What an embedder's vectors capture. `"lexical"`: the words of the text (the built-in `HashingEmbedder`
 * hashes the same tokens BM25 indexes), so its route mostly repeats the keyword route. `"semantic"`:
 * meaning learned by a model (OpenAI, Ollama, sentence encoders), which finds memories that share no
 * word with the query.
 */
export type EmbedderKind = "lexical" | "semantic";

/** Turns text into vectors. Must return one vector of length `dim` per text. */
export interface Embedder {
  readonly dim: number;
  /** Names the embedding space (model and settings); stored in the snapshot so a store is never read with another embedder. */
  readonly id?: string;
  /**
   * What the vectors capture; recall derives its fusion defaults (`rrfK`, `vectorWeight`,
   * `minSimilarity`) from it. Optional: an embedder that does not say is taken as `"semantic"`.
   * Set `"lexical"` on a word-hashing or sparse embedder of your own.
   */
  readonly kind?: EmbedderKind;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Filled in by an extractor during one `extract` call. */
export interface ExtractionReport {
  retried: boolean;
}

/** Finds the facts worth remembering in an input. */
export interface Extractor {
  /** Short name recorded in each entry's lifecycle (`raw`, `llm`, …). */
  readonly mode: string;
  /**
   * True when the extractor keeps the input as it is rather than finding facts in it (the built-in
   * `RawExtractor`): `reextract` then has nothing to do and refuses. Optional; absent means false.
   */
  readonly verbatim?: boolean;
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
  /** Short name recorded in each judged entry's lifecycle (`similarity`, `llm`, …). */
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
  /**
   * Why nothing was extracted, when moomem can tell before asking the extractor: e.g. no message of
   * the transcript is from the user (only the user's own messages are remembered).
   */
  nothingExtracted?: string;
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
  /** The store's bookkeeping (see `MemoryEntry.lifecycle`); every hit has it. */
  lifecycle?: EntryLifecycle;
  /**
   * Fused score, higher is better: by default the sum of the routes' weighted z-scores (how many standard
   * deviations above the user's average the memory scores), plus neighbouring-turn context; with
   * `fusion: "rrf"`, Σ weight / (k + rank). Compare it between hits of one recall, not across recalls.
   */
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
  /** Entries of status `unstructured`: degraded adds waiting for `reextract` (not the kind of the same name). */
  unstructured: number;
  users: number;
  bytesOnDisk: number;
  /** ms since epoch of the last acknowledged write, or null for a store never written. */
  lastWriteAt: number | null;
  /** Torn tails found when the store was opened (0 or 1 per file); `tornTails` says what each held. */
  truncatedRecovered: number;
  /**
   * What was cut off when the store was opened (read-only: what was ignored), one item per torn tail:
   * the end of a write that never completed (a crash mid-write, acknowledged by no one), or a last
   * record damaged after it was written, which cannot be told apart. Empty after a clean close.
   */
  tornTails: TornTail[];
  extractorMode: string;
  formatVersion: number;
  /** Users whose entries and indexes are in memory now (with a backend that loads users when asked, those used lately; otherwise every user). */
  loadedUsers: number;
  /** A rough estimate, in bytes, of the memory the loaded users' entries and indexes take (README, "Many users: loading a user when asked"). */
  loadedBytes: number;
}

/** A torn tail recovery cut off a store file (see `StoreStats.tornTails` and README "On-disk layout and recovery"). */
export interface TornTail {
  /** File (inside the store folder) and 1-based line where the cut starts. */
  file: string;
  line: number;
  /** Bytes cut off (read-only opens: ignored). */
  bytes: number;
  /** Why that line was not accepted, e.g. `CRC mismatch (stored 1, computed 2)` or `no newline at the end (the write was cut short)`. */
  reason: string;
  /** Write time (ms since epoch) the first cut record carries, when its frame is still legible; else null. */
  writtenAt: number | null;
  /**
   * Entries the cut lines seem to hold: a best guess read from damaged bytes (any of these fields may be
   * wrong, and entries may be missing). The write they belong to is lost.
   */
  entries: { id: string; userId: string | null; seq: number | null }[];
}

/** Result of `import`. */
export interface ImportSummary {
  entries: number;
  users: number;
  /** Lines skipped (blank lines, the export header). */
  skipped: number;
}

/** Durability of an acknowledged write (README, "On-disk layout and recovery"). */
export type SyncMode = "always" | "interval" | "none";

/** Recall route selection. */
export type RecallMode = "hybrid" | "vector" | "keyword";

/** One user of a store, as `MemoryStore.users()` lists them. */
export interface UserSummary {
  userId: string;
  /** Entries of every status. */
  total: number;
  active: number;
  superseded: number;
  deleted: number;
  unstructured: number;
  /** ms since epoch of the user's latest change: the largest `updatedAt` among their entries. */
  lastWriteAt: number;
}
