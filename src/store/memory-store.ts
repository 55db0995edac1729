// MemoryStore: the public facade; it orchestrates extraction, indexes, fusion and persistence.

import type {
  AddInput,
  AddSummary,
  Clock,
  ConflictJudge,
  Embedder,
  EntryRecord,
  EntryStatus,
  Extractor,
  FactOutcome,
  ImportSummary,
  JudgeItem,
  MemoryEntry,
  Metadata,
  RecallHit,
  RecallMode,
  StoreStats,
  TornTail,
  SyncMode,
  Verdict,
} from "../types.ts";
import { ENTRY_STATUSES } from "../types.ts";
import type { EmbedderIdentity, PersistenceBackend } from "../persistence/backend.ts";
import { MemoryBackend } from "../persistence/memory/memory-backend.ts";
import { MoomemError, invalidArgument } from "../errors.ts";
import { SystemClock } from "../clock.ts";
import { HashingEmbedder } from "../embedding/hashing-embedder.ts";
import { PatternExtractor } from "../ingest/pattern-extractor.ts";
import { RawExtractor } from "../ingest/raw-extractor.ts";
import { nothingFromUser } from "../text/transcript.ts";
import { sharesContent } from "../text/relevance-floor.ts";
import { SimilarityJudge, type JudgeCandidate } from "../ingest/similarity-judge.ts";
import { ExtractionGuard, extractFacts, type PreparedFact } from "../ingest/extract.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { callBackend, callBackendSync, checkExtractorMode, checkJudgeName, checkPlugin, readClock, readEmbedderIdentity, wantsCompaction } from "../validation/plugin-checks.ts";
import { judgeFacts } from "../ingest/judge.ts";
import { addNeighborContext, embedderKind, fuseRoutes, fusionDefaults, type FusionMethod } from "../recall/ranking.ts";
import type { ScoreMoments } from "../indexes/vector-index.ts";
import { normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { normalize } from "../embedding/vector-math.ts";
import { EntryState, isLive, type Change } from "../state/entry-state.ts";
import { WriteQueue } from "./write-queue.ts";
import { makeEntryId, nextSeqAfter } from "../state/ids.ts";
import { toPublicEntry, toRecallHit } from "../state/public-entry.ts";
import { buildProfile, type UserProfile } from "./profile.ts";
import { summarizeUsers, type UserSummary } from "./user-summaries.ts";
import { matchesFilter, readFilter, type EntryFilter } from "../recall/entry-filter.ts";
import { EXPORT_ENTRY_FORMAT, EXPORT_FORMAT, entryLine, headerLine, parseImport } from "../transfer/jsonl-transfer.ts";
import { planImport } from "../transfer/import-check.ts";
import { StoreFollower } from "./store-follower.ts";
import {
  asArgumentError,
  checkAddInput,
  checkImportSource,
  checkIntegerIn,
  checkKnownKeys,
  checkMetadata,
  checkNumberIn,
  checkOptions,
  checkQuery,
  checkTime,
  checkUserId,
  describe,
  MAX_CONFLICT_IDS,
  MAX_CONTENT_CHARS,
} from "../validation/arguments.ts";

/** Options of {@link MemoryStore.open}. Every one is optional. */
export interface OpenOptions {
  /** Turns text into vectors. Default: `new HashingEmbedder()` (256 dims, offline). */
  embedder?: Embedder;
  /** Finds facts in what the user said. Default: `new PatternExtractor()` (offline: drops questions and small talk, keys common personal facts). */
  extractor?: Extractor;
  /** Decides whether a new fact replaces an old one. Default: `new SimilarityJudge({ threshold: supersedeThreshold })`. */
  judge?: ConflictJudge;
  /** Where entries live. Default: files under `path` (Node, Bun, Deno), IndexedDB (browser), memory for `":memory:"`. */
  backend?: PersistenceBackend;
  /** Source of time. Default: the system clock. */
  clock?: Clock;
  /** Durability of an acknowledged write: `"always"` (default), `"interval"`, `"none"`. */
  sync?: SyncMode;
  /** With `sync: "interval"`: how often to sync, in ms (default 100). */
  syncIntervalMs?: number;
  /**
   * Open without the writer lock and never write, to inspect a store another process is writing;
   * add/forget/restore/import then throw `READ_ONLY`. The store must exist (`STORE_NOT_FOUND`
   * otherwise: a read-only open creates nothing). What the writer commits later is read by
   * {@link MemoryStore.refresh}, or before every call with `follow`.
   */
  readOnly?: boolean;
  /**
   * With `readOnly`: catch up with the writer before every call (a cheap check — two `stat`s on
   * files — when nothing changed), so each call sees every write committed before it started.
   * Default false: the store shows what it read at open or at the last `refresh()`.
   */
  follow?: boolean;
  /**
   * How recall merges its vector and keyword routes. `"zscore"` (default): each route's scores
   * standardised over the user's memories, then summed with `vectorWeight`, so the route that is sure
   * of a query leads it. `"rrf"`: Reciprocal Rank Fusion over ranks (`rrfK`). Giving `rrfK` without
   * `fusion` means `"rrf"`. See docs/eval/tuning.md for what each measured.
   */
  fusion?: FusionMethod;
  /** RRF constant k, for `fusion: "rrf"` (default 60; 5 with a lexical embedder such as the built-in `HashingEmbedder`). */
  rrfK?: number;
  /**
   * Weight of the vector route, the keyword route weighing 1. Default from the embedder's `kind`:
   * 1 for a semantic embedder (any embedder that does not say otherwise), 0.1 for a lexical one such
   * as the built-in `HashingEmbedder`, whose vectors see the words BM25 sees: an equal vote only blurs
   * BM25's order; at 0.1 they break its ties and fill in when few keywords match (docs/eval/tuning.md).
   */
  vectorWeight?: number;
  /**
   * Vector hits at or below this cosine similarity are dropped (default 0; 0.15
   * with a lexical embedder such as the built-in `HashingEmbedder`, whose unrelated
   * texts still score about 0.1 through hash collisions). Keeps recall from
   * returning memories that share nothing with the query.
   */
  minSimilarity?: number;
  /**
   * Neighbouring-turn context: a candidate gains this share of the fused score of the user's memory
   * written just before or after it (within 30 minutes of it), when that memory is a candidate too.
   * Helps conversations stored turn by turn, where an answer sits beside the question that matched.
   * Default 0.25; 0 turns it off (docs/eval/tuning.md).
   */
  neighborWeight?: number;
  /** Candidates taken from each route before fusion (default `min(50, max(20, 2·topK))`, at least topK). */
  candidates?: number;
  /** Similarity at which the default judge replaces an old fact (default 0.82). */
  supersedeThreshold?: number;
  /**
   * Longer facts keep their first this many characters (default 8192, at most 1,000,000); the add reports
   * it in `facts[i].truncated`. An add's work grows with it (README, "Limits").
   */
  maxContentChars?: number;
  /** Journal size in bytes after which the file backend compacts (default: max(1 MiB, snapshot size)). */
  compactAfterBytes?: number;
  /**
   * When the store's vectors were made by another embedder: recompute them all
   * with `embedder` and rewrite the snapshot, instead of refusing to open
   * (`EMBEDDER_MISMATCH`).
   */
  reembed?: boolean;
}

/** Options the store hands to a default backend it creates. */
export interface BackendOptions {
  sync: SyncMode;
  syncIntervalMs: number;
  readOnly: boolean;
  compactAfterBytes?: number;
}

/** Picks the default backend for a path on one runtime (see the runtime entries). */
export type BackendFactory = (path: string, options: BackendOptions) => PersistenceBackend;

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

const OPEN_KEYS = [
  "embedder", "extractor", "judge", "backend", "clock", "sync", "syncIntervalMs", "readOnly", "follow",
  "fusion", "rrfK", "vectorWeight", "minSimilarity", "neighborWeight", "candidates", "supersedeThreshold", "maxContentChars", "compactAfterBytes", "reembed",
] as const;
const JUDGE_CANDIDATES_PER_ROUTE = 8;
/** Judging skips the configured judge when extraction already used its retry (2 model calls per add at most). */
const BUDGET_SPENT = "extraction used its retry; the add's budget of two model calls is spent";

/** What one add (or reextract) passes down to every fact it ingests. */
interface IngestContext {
  metadata: Metadata;
  createdAt: number;
  now: number;
  degraded: boolean;
  embeddingDegraded: string | undefined;
  judgeSkip: string | null;
}

interface Settings {
  fusion: FusionMethod;
  rrfK: number;
  vectorWeight: number;
  minSimilarity: number;
  neighborWeight: number;
  /** Conflict candidates also by vector (not for the built-in judge on hashing vectors: BM25 already finds its near matches). */
  judgeByVector: boolean;
  candidates: number | undefined;
  maxContentChars: number;
  /** Drop vector hits that share no content word with the query (lexical vectors only; text/relevance-floor.ts). */
  relevanceFloor: boolean;
}

/**
 * An embedded long-term memory: per-user facts that survive restarts,
 * recalled by meaning and keywords, replaced when they change.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "moomem";
 * const mem = await MemoryStore.open("./memory");
 * await mem.add("user-42", "I'm allergic to peanuts");
 * const hits = await mem.recall("user-42", "what should I cook for lunch?", { topK: 5 });
 * await mem.close();
 * ```
 */
export class MemoryStore {
  readonly #backend: PersistenceBackend;
  readonly #embedder: Embedder;
  readonly #extractor: Extractor;
  readonly #judge: ConflictJudge;
  readonly #fallbackJudge: SimilarityJudge;
  readonly #clock: Clock;
  readonly #settings: Settings;
  readonly #readOnly: boolean;
  readonly #state: EntryState;
  readonly #queue: WriteQueue;
  readonly #guard = new ExtractionGuard();
  readonly #identity: EmbedderIdentity;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #follower: StoreFollower;
  #nextSeq: number;
  #truncatedRecovered: number;
  #formatVersion: number;
  #closed = false;
  #closing: Promise<void> | null = null;
  #compactionQueued = false;

  protected constructor(parts: {
    backend: PersistenceBackend;
    embedder: Embedder;
    extractor: Extractor;
    judge: ConflictJudge;
    fallbackJudge: SimilarityJudge;
    clock: Clock;
    settings: Settings;
    readOnly: boolean;
    state: EntryState;
    nextSeq: number;
    truncatedRecovered: number;
    formatVersion: number;
    identity: EmbedderIdentity;
    follow: boolean;
    tornTails: TornTail[];
  }) {
    this.#backend = parts.backend;
    this.#embedder = parts.embedder;
    this.#extractor = parts.extractor;
    this.#judge = parts.judge;
    this.#fallbackJudge = parts.fallbackJudge;
    this.#clock = parts.clock;
    this.#settings = parts.settings;
    this.#readOnly = parts.readOnly;
    this.#state = parts.state;
    this.#nextSeq = parts.nextSeq;
    this.#truncatedRecovered = parts.truncatedRecovered;
    this.#formatVersion = parts.formatVersion;
    this.#identity = parts.identity;
    this.#queue = new WriteQueue(parts.state, parts.backend, () => this.#maybeCompact());
    this.#follower = new StoreFollower(parts.backend, parts.state, { readOnly: parts.readOnly, follow: parts.follow, identity: parts.identity, tornTails: parts.tornTails });
  }

  /**
   * Opens (or creates) the store at `path` and recovers it after a crash.
   * `":memory:"` keeps everything in memory. From the universal entry, other
   * paths need `options.backend`; `moomem/node` and `moomem/browser` (picked
   * automatically by `import "moomem"`) default to files and IndexedDB.
   *
   * @example
   * ```ts
   * const mem = await MemoryStore.open(":memory:");
   * ```
   */
  static open(path: string, options?: OpenOptions): Promise<MemoryStore> {
    return MemoryStore.openWith(path, options, (p) => {
      throw new MoomemError(
        "BACKEND_UNSUPPORTED",
        `no default storage for path ${describe(p, 300)} in this runtime; use ":memory:", pass { backend }, or import from "moomem/node" or "moomem/browser"`,
      );
    });
  }

  /** Opens with a runtime's default backend factory (used by the runtime entries). */
  static async openWith(path: string, options: OpenOptions | undefined, defaultBackend: BackendFactory): Promise<MemoryStore> {
    if (typeof path !== "string" || path.length === 0) {
      throw invalidArgument(`open: path must be a non-empty string (a directory, or ":memory:"), got ${describe(path)}`);
    }
    const o = checkOptions(options, "open options");
    checkKnownKeys(o, OPEN_KEYS, "open");
    const embedder = (o["embedder"] as Embedder | undefined) ?? new HashingEmbedder();
    checkPlugin(embedder, "embedder", ["embed"]);
    const identity: EmbedderIdentity = readEmbedderIdentity(embedder);
    const extractor = (o["extractor"] as Extractor | undefined) ?? new PatternExtractor();
    checkPlugin(extractor, "extractor", ["extract"]);
    checkExtractorMode(extractor);
    const threshold = o["supersedeThreshold"] === undefined ? 0.82 : checkNumberIn(o["supersedeThreshold"], "open: supersedeThreshold", 0.01, 1);
    const fallbackJudge = new SimilarityJudge({ threshold });
    const judge = (o["judge"] as ConflictJudge | undefined) ?? fallbackJudge;
    checkPlugin(judge, "judge", ["judge"]);
    checkJudgeName(judge);
    const clock = (o["clock"] as Clock | undefined) ?? new SystemClock();
    checkPlugin(clock, "clock", ["now"]);
    readClock(clock);
    const sync = (o["sync"] ?? "always") as SyncMode;
    if (sync !== "always" && sync !== "interval" && sync !== "none") throw invalidArgument(`open: sync must be "always", "interval" or "none", got ${describe(sync)}`);
    const syncIntervalMs = o["syncIntervalMs"] === undefined ? 100 : checkIntegerIn(o["syncIntervalMs"], "open: syncIntervalMs", 1, 3_600_000);
    const readOnly = o["readOnly"] ?? false;
    if (typeof readOnly !== "boolean") throw invalidArgument(`open: readOnly must be true or false, got ${describe(readOnly)}`);
    const follow = o["follow"] ?? false;
    if (typeof follow !== "boolean") throw invalidArgument(`open: follow must be true or false, got ${describe(follow)}`);
    if (follow && !readOnly) throw invalidArgument("open: follow is for readOnly stores (a writer sees its own writes); pass { readOnly: true, follow: true }");
    const kind = embedderKind(embedder);
    if (embedder.kind !== undefined && embedder.kind !== "lexical" && embedder.kind !== "semantic") {
      throw invalidArgument(`open: embedder.kind must be "lexical", "semantic" or left out (taken as "semantic"), got ${describe(embedder.kind)}`);
    }
    const lexical = kind === "lexical";
    const defaults = fusionDefaults(kind);
    const fusion = o["fusion"] ?? (o["rrfK"] === undefined ? defaults.fusion : "rrf");
    if (fusion !== "zscore" && fusion !== "rrf") throw invalidArgument(`open: fusion must be "zscore" or "rrf", got ${describe(fusion)}`);
    if (fusion !== "rrf" && o["rrfK"] !== undefined) throw invalidArgument(`open: rrfK applies to fusion "rrf" only, but fusion is ${describe(fusion)}; drop rrfK or set fusion: "rrf"`);
    const settings: Settings = {
      fusion,
      rrfK: o["rrfK"] === undefined ? defaults.rrfK : checkNumberIn(o["rrfK"], "open: rrfK", 1, 10_000),
      vectorWeight: o["vectorWeight"] === undefined ? defaults.vectorWeight : checkNumberIn(o["vectorWeight"], "open: vectorWeight", 0, 100),
      minSimilarity: o["minSimilarity"] === undefined ? defaults.minSimilarity : checkNumberIn(o["minSimilarity"], "open: minSimilarity", 0, 0.99),
      neighborWeight: o["neighborWeight"] === undefined ? defaults.neighborWeight : checkNumberIn(o["neighborWeight"], "open: neighborWeight", 0, 10),
      // A host's judge (an LLM) can use looser candidates, and costs far more than the scan anyway.
      judgeByVector: !lexical || o["judge"] !== undefined,
      candidates: o["candidates"] === undefined ? undefined : checkIntegerIn(o["candidates"], "open: candidates", 1, 10_000),
      maxContentChars: o["maxContentChars"] === undefined ? 8192 : checkIntegerIn(o["maxContentChars"], "open: maxContentChars", 16, MAX_CONTENT_CHARS),
      relevanceFloor: lexical,
    };
    const backendOptions: BackendOptions = { sync, syncIntervalMs, readOnly };
    if (o["compactAfterBytes"] !== undefined) backendOptions.compactAfterBytes = checkIntegerIn(o["compactAfterBytes"], "open: compactAfterBytes", 1, Number.MAX_SAFE_INTEGER);
    let backend = o["backend"] as PersistenceBackend | undefined;
    if (backend !== undefined) checkPlugin(backend, "backend", ["load", "append", "compact", "close", "stats", "wantsCompaction"]);
    backend ??= path === ":memory:" ? new MemoryBackend() : defaultBackend(path, backendOptions);

    const reembed = o["reembed"] ?? false;
    if (typeof reembed !== "boolean") throw invalidArgument(`open: reembed must be true or false, got ${describe(reembed)}`);
    if (reembed && readOnly) throw invalidArgument("open: reembed rewrites the store, so it cannot be combined with readOnly");

    const loaded = await callBackend(backend.location, "loading", () => backend.load());
    const mismatch = loaded.embedder !== null && (loaded.embedder.id !== identity.id || loaded.embedder.dim !== identity.dim);
    try {
      if (mismatch && !reembed) checkEmbedderMatch(loaded.embedder, identity, backend.location);
      if (mismatch) await reembedAll(embedder, loaded.entries, identity.dim);
    } catch (error) {
      await backend.close();
      throw error;
    }
    const state = new EntryState(identity.dim);
    let maxSeq = 0;
    try {
      for (const entry of loaded.entries) {
        state.load(entry);
        if (entry.seq > maxSeq) maxSeq = entry.seq;
      }
      // Every check passed: only now may the backend repair files (a refused open changes none).
      await backend.accept?.();
    } catch (error) {
      await backend.close();
      throw error;
    }
    const store = new MemoryStore({
      backend,
      embedder,
      extractor,
      judge,
      fallbackJudge,
      clock,
      settings,
      readOnly,
      state,
      // Past every seq in use and every seq an id names (an imported id may name one the store has not reached).
      nextSeq: nextSeqAfter(maxSeq, loaded.entries),
      truncatedRecovered: loaded.truncatedRecovered,
      formatVersion: loaded.formatVersion,
      identity,
      follow,
      tornTails: loaded.tornTails ?? [],
    });
    // A new store records its embedder at once; an old-format store is rewritten in the current one.
    if (!readOnly && (loaded.embedder === null || loaded.formatVersion < 2 || mismatch)) {
      try {
        await store.#compactNow();
      } catch (error) {
        await backend.close();
        throw error;
      }
    }
    return store;
  }

  /**
   * Remembers what the user said: extracts facts, skips duplicates, embeds,
   * supersedes facts that changed, and persists it all as one atomic write.
   *
   * @example
   * ```ts
   * const summary = await mem.add("user-42", "I moved to Shenzhen", { metadata: { channel: "chat" } });
   * console.log(summary.facts); // what was understood and what happened to each fact
   * ```
   */
  add(userId: string, input: AddInput, options?: AddOptions): Promise<AddSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      const text = checkAddInput(input);
      const o = checkOptions(options, "add options");
      checkKnownKeys(o, ["metadata", "observedAt"], "add");
      const metadata = o["metadata"] === undefined ? {} : checkMetadata(o["metadata"], "add: metadata");
      const observedAt = o["observedAt"] === undefined ? undefined : checkTime(o["observedAt"], "add: observedAt");
      const silent = typeof text === "string" ? null : nothingFromUser(text);
      if (silent !== null) return { extracted: 0, inserted: 0, duplicates: 0, superseded: 0, conflicts: 0, degraded: false, facts: [], nothingExtracted: silent };

      const extraction = await extractFacts(this.#extractor, userId, text, this.#settings.maxContentChars);
      if (this.#guard.record(extraction.degradedReason !== undefined)) {
        throw new MoomemError(
          "EXTRACTION_FAILURE",
          `the extractor (${this.#extractor.mode}) failed ${this.#guard.failures} adds in a row (last: ${extraction.degradedReason}); this text was NOT stored — check the model service, then add it again`,
        );
      }
      // Embedding needs no store state, so it runs before taking the write queue.
      const embedded = await embedTexts(this.#embedder, extraction.facts.map((f) => f.content), this.#identity.dim);
      return this.#queue.write(async (change) => {
        const summary: AddSummary = { extracted: extraction.facts.length, inserted: 0, duplicates: 0, superseded: 0, conflicts: 0, degraded: false, facts: [] };
        if (extraction.degradedReason !== undefined || embedded.degradedReason !== undefined) summary.degraded = true;
        const now = readClock(this.#clock);
        summary.facts = await this.#ingestFacts(change, userId, extraction.facts, embedded.vectors, {
          metadata,
          createdAt: observedAt ?? now,
          now,
          degraded: extraction.degradedReason !== undefined,
          embeddingDegraded: embedded.degradedReason,
          judgeSkip: extraction.usedRetry ? BUDGET_SPENT : null,
        });
        for (const outcome of summary.facts) {
          if (outcome.action === "duplicate") summary.duplicates++;
          else summary.inserted++;
          summary.superseded += outcome.replaced?.length ?? 0;
          summary.conflicts += outcome.conflicts?.length ?? 0;
        }
        return summary;
      });
    });
  }

  /**
   * Steps 4-7 of add for all facts of one input: dedup (against the user's
   * live entries and the earlier facts of this input), candidates, one judge
   * round for all new facts, then supersede/coexist and insert through `change`.
   */
  async #ingestFacts(change: Change, userId: string, facts: PreparedFact[], vectors: Float32Array[] | null, ctx: IngestContext): Promise<FactOutcome[]> {
    const shard = this.#state.shard(userId);
    const outcomes: FactOutcome[] = [];
    const fresh: Array<{ outcome: FactOutcome; record: EntryRecord; candidates: JudgeCandidate[] }> = [];
    const seenHere = new Map<string, string>();
    for (let i = 0; i < facts.length; i++) {
      const fact = facts[i]!;
      const outcome: FactOutcome = { content: fact.content, kind: fact.kind, action: "inserted", id: "" };
      if (fact.key !== undefined) outcome.key = fact.key;
      if (fact.truncated !== undefined) outcome.truncated = { ...fact.truncated };
      outcomes.push(outcome);
      const norm = normalizeForDedup(fact.content);
      const existing = shard?.dedup.get(norm)?.[0] ?? seenHere.get(norm);
      if (existing !== undefined) {
        outcome.action = "duplicate";
        outcome.id = existing;
        continue;
      }
      const seq = this.#nextSeq++;
      outcome.id = makeEntryId(seq);
      seenHere.set(norm, outcome.id);
      const vector = vectors?.[i] ?? null;
      const metadata: Metadata = { ...ctx.metadata, ...fact.metadata, extractor: this.#extractor.mode };
      if (fact.sourceSpan !== undefined) metadata["source_span"] = fact.sourceSpan;
      if (ctx.embeddingDegraded !== undefined) metadata["embedding_degraded"] = ctx.embeddingDegraded;
      const record: EntryRecord = {
        id: outcome.id,
        userId,
        content: fact.content,
        kind: fact.kind,
        status: ctx.degraded ? "unstructured" : "active",
        createdAt: ctx.createdAt,
        updatedAt: ctx.now,
        seq,
        metadata,
        embedding: vector,
      };
      if (fact.key !== undefined) record.key = fact.key;
      // A degraded entry is the raw input, not a fact: it never replaces anything.
      fresh.push({ outcome, record, candidates: ctx.degraded ? [] : this.#judgeCandidates(userId, fact.content, fact.key, vector) });
    }

    const judged = await judgeFacts(
      this.#judge,
      this.#fallbackJudge,
      fresh.map(({ record, candidates }) => ({ fact: judgeInput(record), candidates })),
      ctx.judgeSkip,
    );
    fresh.forEach(({ outcome, record, candidates }, j) => {
      const { verdicts, judge, fallbackReason } = judged[j]!;
      this.#applyVerdicts(change, record, verdicts, ctx.now, outcome);
      if (candidates.length > 0) record.metadata["judge"] = judge;
      if (fallbackReason !== undefined && candidates.length > 0) record.metadata["judge_fallback"] = fallbackReason;
      change.insert(record);
    });
    return outcomes;
  }

  /** Supersedes or flags the entries the judge named; records what happened on `record` and `outcome`. */
  #applyVerdicts(change: Change, record: EntryRecord, verdicts: Verdict[], now: number, outcome: FactOutcome): void {
    const reasons: string[] = [];
    const replaced: string[] = [];
    const conflicts: string[] = [];
    for (const verdict of verdicts) {
      const old = this.#state.get(verdict.id);
      if (old === undefined || old.userId !== record.userId || !isLive(old.status)) continue;
      if (verdict.decision === "replace") {
        if (old.createdAt > record.createdAt) {
          // The new fact was observed before the one it contradicts: it arrives already replaced.
          record.status = "superseded";
          record.supersededBy = old.id;
          record.metadata["conflict_reason"] = verdict.reason ?? "replaced by a later fact";
          continue;
        }
        change.put({ ...old, status: "superseded", supersededBy: record.id, updatedAt: now });
        replaced.push(old.id);
        reasons.push(verdict.reason ?? "replaces an older fact");
      } else if (verdict.decision === "coexist") {
        const theirs = Array.isArray(old.metadata["conflict"]) ? [...(old.metadata["conflict"] as string[])] : [];
        theirs.push(record.id);
        if (theirs.length > MAX_CONFLICT_IDS) theirs.splice(0, theirs.length - MAX_CONFLICT_IDS);
        change.put({ ...old, metadata: { ...old.metadata, conflict: theirs }, updatedAt: now });
        conflicts.push(old.id);
      }
    }
    if (reasons.length > 0) record.metadata["conflict_reason"] = reasons.join("; ");
    if (conflicts.length > 0) record.metadata["conflict"] = conflicts;
    if (replaced.length > 0) outcome.replaced = replaced;
    if (conflicts.length > 0) outcome.conflicts = conflicts;
  }

  /** The user's nearest live entries by vector and by keywords (8 each), plus the live entries with the same key. */
  #judgeCandidates(userId: string, content: string, key: string | undefined, vector: Float32Array | null): JudgeCandidate[] {
    const shard = this.#state.shard(userId);
    if (shard === undefined) return [];
    const seqs = new Set<number>();
    // The vector scan is O(entries) per add; with hashing vectors (the same words BM25 sees) it finds nothing BM25's top 8 misses.
    if (vector !== null && this.#settings.judgeByVector) {
      for (const hit of shard.vectors.search(normalize(Float32Array.from(vector)), JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(hit.doc);
    }
    for (const hit of shard.keywords.search(tokenize(content), JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(hit.doc);
    // The slot's current values, however differently they are worded ("I live in Beijing" / "moved to Shenzhen").
    if (key !== undefined) for (const seq of (shard.keys.get(key) ?? []).slice(-JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(seq);
    const out: JudgeCandidate[] = [];
    for (const seq of seqs) {
      const record = this.#state.bySeq(seq);
      if (record === undefined || !isLive(record.status)) continue;
      // No copy here: records are immutable, and judgeFacts copies what it hands to a host's judge.
      if (record.embedding !== null) {
        out.push(record as JudgeCandidate);
        continue;
      }
      const { embedding: _none, ...entry } = record;
      out.push(entry);
    }
    return out;
  }

  /**
   * Finds the user's memories most relevant to `query`: vector and BM25
   * routes fused (standardised scores by default, or RRF); only active and unstructured entries; `[]` when
   * nothing matches.
   *
   * @example
   * ```ts
   * const hits = await mem.recall("user-42", "food allergies", { topK: 3 });
   * for (const h of hits) console.log(h.score.toFixed(4), h.content);
   * ```
   */
  recall(userId: string, query: string, options?: RecallOptions): Promise<RecallHit[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      checkQuery(query, "recall");
      const o = checkOptions(options, "recall options");
      checkKnownKeys(o, ["topK", "mode", "since", "until", "kind", "metadata"], "recall");
      const topK = o["topK"] === undefined ? 5 : checkIntegerIn(o["topK"], "recall: topK", 1, 100);
      const mode = (o["mode"] ?? "hybrid") as RecallMode;
      if (mode !== "hybrid" && mode !== "vector" && mode !== "keyword") throw invalidArgument(`recall: mode must be "hybrid", "vector" or "keyword", got ${describe(mode)}`);
      const filter = readFilter(o, "recall");

      let queryVector: Float32Array | null = null;
      let degraded = false;
      if (mode !== "keyword") {
        const embedded = await embedTexts(this.#embedder, [query], this.#identity.dim);
        if (embedded.vectors === null) {
          if (mode === "vector") {
            throw new MoomemError("EMBEDDING_FAILURE", `recall in "vector" mode needs the query embedded, but ${embedded.degradedReason}; use mode "hybrid" to fall back to keywords`);
          }
          degraded = true;
        } else {
          queryVector = normalize(Float32Array.from(embedded.vectors[0]!));
        }
      }
      const tokens = mode === "vector" ? [] : tokenize(query);
      for (;;) {
        const barrier = this.#queue.barrier();
        const hits = this.#search(userId, queryVector, tokens, mode, topK, filter, degraded, query);
        // Answer only from writes that are durable; recompute if one was rolled back.
        if (barrier === null || (await barrier)) return hits;
      }
    });
  }

  #search(userId: string, queryVector: Float32Array | null, tokens: string[], mode: RecallMode, topK: number, filter: EntryFilter | undefined, degraded: boolean, query: string): RecallHit[] {
    const shard = this.#state.shard(userId);
    if (shard === undefined) return [];
    const depth = this.#settings.candidates ?? Math.max(topK, Math.min(50, Math.max(20, 2 * topK)));
    // With a filter, search deeper so filtered-out entries do not starve the routes.
    const k = filter === undefined ? depth : shard.entries.length;
    const keep = (seq: number): boolean => filter === undefined || matchesFilter(this.#state.bySeq(seq)!, filter);
    // Equal scores: the newer memory first by when it was observed (an imported old chat loses a tie), then by write order.
    const createdAt = (doc: number): number => this.#state.bySeq(doc)!.createdAt;
    const newerFirst = (a: { doc: number; score: number }, b: { doc: number; score: number }): number =>
      b.score - a.score || createdAt(b.doc) - createdAt(a.doc) || b.doc - a.doc;
    const route = (hits: Array<{ doc: number; score: number }>): Array<{ doc: number; score: number }> => hits.sort(newerFirst).filter((h) => keep(h.doc)).slice(0, depth);
    const floor = this.#settings.minSimilarity;
    const vectorMoments: ScoreMoments = { count: 0, sum: 0, sumSquares: 0 };
    // Relevance floor: a lexical vector hit sharing only function words with the query is noise (text/relevance-floor.ts).
    const relevant = (h: { doc: number }): boolean => !this.#settings.relevanceFloor || sharesContent(query, this.#state.bySeq(h.doc)!.content);
    const vectorHits = mode !== "keyword" && queryVector !== null ? route(shard.vectors.search(queryVector, k, vectorMoments).filter((h) => h.score > floor)).filter(relevant) : [];
    const keywordSearched = mode !== "vector" && tokens.length > 0 ? shard.keywords.search(tokens, k) : [];
    const routed = fuseRoutes(this.#settings, mode, {
      vector: vectorHits,
      vectorMoments,
      vectorScoreOf: (doc) => (queryVector === null ? 0 : Math.max(0, shard.vectors.score(doc, queryVector) ?? 0)),
      keyword: route([...keywordSearched]),
      keywordSearched,
      keywordCount: shard.keywords.size,
    });
    const fused = addNeighborContext(routed, shard.entries, this.#settings.neighborWeight).sort(newerFirst).slice(0, topK);
    return fused.map((f) => toRecallHit(this.#state.bySeq(f.doc)!, f.score, f.ranks[0], f.ranks[1], degraded));
  }

  /**
   * Forgets one entry (`{ id }`) or all of the user's (`{ all: true }`):
   * status `deleted`, out of the indexes, kept on disk (undo with `restore`)
   * unless `purge` erases the content. Resolves to the number of entries affected.
   *
   * @example
   * ```ts
   * await mem.forget("user-42", { id: hits[0].id });
   * await mem.forget("user-42", { all: true }, { purge: true }); // right to be forgotten
   * ```
   */
  forget(userId: string, target: ForgetTarget, options?: ForgetOptions): Promise<number> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      const t = checkOptions(target, "forget target");
      const byId = t["id"];
      const all = t["all"];
      if ((byId === undefined) === (all === undefined)) throw invalidArgument('forget: pass exactly one of { id: "<entry id>" } or { all: true }');
      if (byId !== undefined && (typeof byId !== "string" || byId.length === 0)) throw invalidArgument(`forget: id must be a non-empty string, got ${describe(byId)}`);
      if (all !== undefined && all !== true) throw invalidArgument(`forget: all must be true, got ${describe(all)}`);
      const o = checkOptions(options, "forget options");
      checkKnownKeys(o, ["purge"], "forget");
      const purge = o["purge"] ?? false;
      if (typeof purge !== "boolean") throw invalidArgument(`forget: purge must be true or false, got ${describe(purge)}`);

      return this.#queue.write(async (change) => {
        const now = readClock(this.#clock);
        const targets: EntryRecord[] = [];
        if (typeof byId === "string") {
          const record = this.#state.get(byId);
          if (record !== undefined && record.userId === userId) targets.push(record);
        } else {
          targets.push(...(this.#state.shard(userId)?.entries ?? []));
        }
        let affected = 0;
        for (const record of targets) {
          const alreadyGone = record.status === "deleted" && (!purge || record.metadata["purged"] === true);
          if (alreadyGone) continue;
          const metadata: Metadata = record.status === "deleted" ? { ...record.metadata } : { ...record.metadata, deleted_from: record.status, deleted_at: now };
          const next: EntryRecord = { ...record, status: "deleted", updatedAt: now, metadata };
          if (purge) {
            next.content = "";
            next.embedding = null;
            delete next.key;
            next.metadata = { purged: true, purged_at: now };
          }
          change.put(next);
          affected++;
        }
        return affected;
      });
    });
  }

  /**
   * Undoes a forget (deleted → its earlier status) or a wrong supersede (the
   * entry is active again and the entry that replaced it becomes superseded
   * by it). Resolves to the restored entry.
   *
   * @example
   * ```ts
   * const [old] = await mem.list("user-42", { status: "superseded" });
   * await mem.restore("user-42", old.id);
   * ```
   */
  restore(userId: string, id: string): Promise<MemoryEntry> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      if (typeof id !== "string" || id.length === 0) throw invalidArgument(`restore: id must be a non-empty string, got ${describe(id)}`);
      return this.#queue.write(async (change) => {
        const record = this.#state.get(id);
        if (record === undefined || record.userId !== userId) throw invalidArgument(`restore: user ${userId} has no entry ${describe(id, 100)}`);
        if (record.metadata["purged"] === true) throw invalidArgument(`restore: entry ${id} was purged; its content is gone and cannot be restored`);
        const now = readClock(this.#clock);
        const metadata: Metadata = { ...record.metadata, restored_at: now };
        let next: EntryRecord;
        if (record.status === "deleted") {
          const before = record.metadata["deleted_from"];
          const status: EntryStatus = ENTRY_STATUSES.includes(before as EntryStatus) && before !== "deleted" ? (before as EntryStatus) : record.kind === "unstructured" ? "unstructured" : "active";
          delete metadata["deleted_from"];
          delete metadata["deleted_at"];
          next = { ...record, status, metadata, updatedAt: now };
          if (isLive(status)) delete next.supersededBy;
        } else if (record.status === "superseded") {
          next = { ...record, status: record.metadata["extraction_degraded"] !== undefined ? "unstructured" : "active", metadata, updatedAt: now };
          delete next.supersededBy;
          const replacer = this.#state.successor(record);
          if (replacer !== undefined && isLive(replacer.status)) {
            change.put({ ...replacer, status: "superseded", supersededBy: id, updatedAt: now, metadata: { ...replacer.metadata, conflict_reason: `restored ${id} replaces it` } });
          }
        } else {
          throw invalidArgument(`restore: entry ${id} is ${record.status}; only deleted or superseded entries can be restored`);
        }
        change.put(next);
        return toPublicEntry(next);
      });
    });
  }

  /**
   * The user's entries in `seq` order (default: every status).
   *
   * @example
   * ```ts
   * const active = await mem.list("user-42", { status: "active" });
   * ```
   */
  list(userId: string, options?: ListOptions): Promise<MemoryEntry[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      const o = checkOptions(options, "list options");
      checkKnownKeys(o, ["status", "since", "until", "kind", "metadata"], "list");
      const status = o["status"] ?? "all";
      if (status !== "all" && !ENTRY_STATUSES.includes(status as EntryStatus)) {
        throw invalidArgument(`list: status must be one of ${ENTRY_STATUSES.join(", ")} or "all", got ${describe(status)}`);
      }
      const filter = readFilter(o, "list");
      return this.#durable(() =>
        this.#state.entriesOf(userId)
          .filter((r) => (status === "all" || r.status === status) && (filter === undefined || matchesFilter(r, filter)))
          .map(toPublicEntry),
      );
    });
  }

  /**
   * What the store currently knows about the user: each key slot's latest
   * live value, the rest grouped by kind. Deterministic, no model call.
   *
   * @example
   * ```ts
   * const { slots } = await mem.profile("user-42");
   * const system = Object.entries(slots).map(([key, s]) => `${key}: ${s.value}`).join("\n");
   * ```
   */
  profile(userId: string): Promise<UserProfile> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      return this.#durable(() => buildProfile(this.#state.entriesOf(userId).filter((r) => isLive(r.status)).map(toPublicEntry), userId));
    });
  }

  /**
   * Every user with at least one entry: counts per status and the time of their latest change, sorted by user id.
   *
   * @example
   * ```ts
   * for (const u of await mem.users()) console.log(u.userId, u.active, new Date(u.lastWriteAt));
   * ```
   */
  users(): Promise<UserSummary[]> {
    return this.#track(async () => {
      this.#checkOpen();
      return this.#durable(() => summarizeUsers(this.#state.users(), (u) => this.#state.entriesOf(u)));
    });
  }

  /**
   * The supersede chain through `id` (what it replaced and what replaced it), oldest first.
   *
   * @example
   * ```ts
   * const chain = await mem.history("user-42", entryId); // e.g. [Beijing (superseded), Shenzhen (active)]
   * ```
   */
  history(userId: string, id: string): Promise<MemoryEntry[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      if (typeof id !== "string" || id.length === 0) throw invalidArgument(`history: id must be a non-empty string, got ${describe(id)}`);
      return this.#durable(() => {
        const start = this.#state.get(id);
        if (start === undefined || start.userId !== userId) throw invalidArgument(`history: user ${userId} has no entry ${describe(id, 100)}`);
        const entries = this.#state.entriesOf(userId);
        const replacedBy = new Map<string, EntryRecord[]>();
        for (const r of entries) {
          if (r.supersededBy === undefined) continue;
          const list = replacedBy.get(r.supersededBy) ?? [];
          list.push(r);
          replacedBy.set(r.supersededBy, list);
        }
        const chain = new Map<string, EntryRecord>();
        const back = [start];
        while (back.length > 0) {
          const r = back.pop()!;
          if (chain.has(r.id)) continue;
          chain.set(r.id, r);
          back.push(...(replacedBy.get(r.id) ?? []));
        }
        for (let r = start; r.supersededBy !== undefined; ) {
          const next = this.#state.successor(r);
          if (next === undefined || chain.has(next.id)) break;
          chain.set(next.id, next);
          r = next;
        }
        return [...chain.values()].sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq).map(toPublicEntry);
      });
    });
  }

  /**
   * Counts per status, users, bytes on disk, last write time and recovery counters.
   *
   * @example
   * ```ts
   * const { active, bytesOnDisk } = await mem.stats();
   * ```
   */
  stats(): Promise<StoreStats> {
    return this.#track(async () => {
      this.#checkOpen();
      return this.#durable(() => {
        const counts = { active: 0, superseded: 0, deleted: 0, unstructured: 0 };
        let users = 0;
        for (const user of this.#state.users()) {
          users++;
          for (const r of this.#state.entriesOf(user)) counts[r.status]++;
        }
        const disk = callBackendSync(this.#backend.location, "reading the stats", () => this.#backend.stats());
        return {
          total: this.#state.size,
          ...counts,
          users,
          bytesOnDisk: disk.bytesOnDisk,
          lastWriteAt: disk.lastWriteAt,
          truncatedRecovered: this.#truncatedRecovered,
          tornTails: this.#follower.tornTails,
          extractorMode: this.#extractor.mode,
          formatVersion: this.#formatVersion,
        };
      });
    });
  }

  /**
   * Streams the store (or one user) as JSON Lines: a header, then one entry
   * per line in the on-disk shape. Feed it to `import` to rebuild the store.
   *
   * @example
   * ```ts
   * for await (const line of mem.export({ userId: "user-42" })) process.stdout.write(line);
   * ```
   */
  export(options?: { userId?: string }): AsyncIterable<string> {
    this.#checkOpen();
    const o = checkOptions(options, "export options");
    checkKnownKeys(o, ["userId"], "export");
    const userId = o["userId"] === undefined ? null : checkUserId(o["userId"]);
    return { [Symbol.asyncIterator]: () => this.#exportLines(userId) };
  }

  async *#exportLines(userId: string | null): AsyncGenerator<string> {
    this.#checkOpen();
    await this.#follower.beforeCall();
    const records = await this.#durable(() => (userId === null ? [...this.#state.all()] : [...this.#state.entriesOf(userId)]));
    yield headerLine({ moomem_export: EXPORT_FORMAT, entry_format: EXPORT_ENTRY_FORMAT, embedder: this.#identity, user_id: userId, exported_at: readClock(this.#clock), count: records.length });
    for (const record of records) yield entryLine(record);
  }

  /**
   * Imports JSON Lines written by `export` (any sync or async iterable of
   * lines or chunks). Every line is checked first, with `add`'s rules, and
   * every link (`superseded_by`, `conflict`) must name an entry of the same
   * user in the store or in the import: one bad line imports nothing. The
   * header's count must match the entries read (a cut export is refused)
   * unless `{ partial: true }`. Entries keep their ids, statuses, chains,
   * times and metadata; vectors made by another embedder are recomputed.
   * The checks and limits are listed in the README ("Export and import").
   *
   * @example
   * ```ts
   * const summary = await mem.import(otherStore.export());
   * ```
   */
  import(lines: Iterable<string> | AsyncIterable<string>, options?: ImportOptions): Promise<ImportSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      const source = checkImportSource(lines);
      const o = checkOptions(options, "import options");
      checkKnownKeys(o, ["partial"], "import");
      const partial = o["partial"] ?? false;
      if (typeof partial !== "boolean") throw invalidArgument(`import: partial must be true or false, got ${describe(partial)}`);
      const parsed = await parseImport(source, { partial, maxContentChars: this.#settings.maxContentChars }).catch((error: unknown) =>
        Promise.reject(asArgumentError(error, "import: reading the lines")),
      );
      const sameSpace = parsed.header === null ? null : parsed.header.embedder.id === this.#identity.id && parsed.header.embedder.dim === this.#identity.dim;
      const reembed = parsed.entries.filter((e) => e.metadata["purged"] !== true && (sameSpace === false || e.embedding === null || e.embedding.length !== this.#identity.dim));
      // Checked against the store before any vector is computed (a refused import costs no embedding call), and again when applied.
      if (reembed.length > 0) planImport(parsed, this.#state, partial);
      for (let i = 0; i < reembed.length; i += 256) {
        const slice = reembed.slice(i, i + 256);
        const embedded = await embedTexts(this.#embedder, slice.map((e) => e.content), this.#identity.dim);
        slice.forEach((e, j) => {
          e.embedding = embedded.vectors?.[j] ?? null;
          if (embedded.vectors === null) e.metadata = { ...e.metadata, embedding_degraded: embedded.degradedReason ?? "embedding failed" };
        });
      }
      return this.#queue.write(async (change) => {
        const plan = planImport(parsed, this.#state, partial);
        // The parsed entries are this call's own objects: numbered in place rather than copied.
        for (const entry of plan.fresh) {
          entry.seq = this.#nextSeq++;
          change.insert(entry);
        }
        // New ids must never reach the seq an imported id names (see ids.ts).
        this.#nextSeq = nextSeqAfter(this.#nextSeq - 1, plan.fresh);
        return { entries: plan.fresh.length, users: plan.users, skipped: parsed.skipped + plan.existing };
      });
    });
  }

  /**
   * Runs the extractor again over entries stored `unstructured` because
   * extraction failed (e.g. the model was down): each becomes extracted facts,
   * deduplicated and judged as in a fresh add, and the raw entry is marked
   * superseded by them (or deleted when the extractor finds no fact). Entries
   * whose extraction fails again stay as they are. Without `userId`, every user.
   * Needs a fact extractor: with the `RawExtractor` (the default), which keeps
   * text as it is, it throws `INVALID_ARGUMENT` and changes nothing.
   *
   * @example
   * ```ts
   * const { converted, failed } = await mem.reextract("user-42");
   * ```
   */
  reextract(userId?: string): Promise<ReextractSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      if (userId !== undefined) checkUserId(userId);
      if (this.#extractor instanceof RawExtractor) {
        throw invalidArgument(
          "reextract: the store was opened with the RawExtractor, which keeps text as it is and finds no facts, so there is nothing to reextract with; open the store with a fact extractor (the default PatternExtractor, or LlmExtractor from moomem/openai: moomem --llm reextract)",
        );
      }
      const summary: ReextractSummary = { processed: 0, converted: 0, failed: 0, facts: [] };
      const targets = await this.#durable(() => {
        const users = userId === undefined ? [...this.#state.users()] : [userId];
        return users.flatMap((u) => this.#state.entriesOf(u).filter((e) => e.status === "unstructured"));
      });
      for (const target of targets) {
        summary.processed++;
        const extraction = await extractFacts(this.#extractor, target.userId, target.content, this.#settings.maxContentChars);
        if (extraction.degradedReason !== undefined) {
          summary.failed++;
          continue;
        }
        const embedded = await embedTexts(this.#embedder, extraction.facts.map((f) => f.content), this.#identity.dim);
        const outcomes = await this.#queue.write(async (change) => {
          const current = this.#state.get(target.id);
          if (current === undefined || current.status !== "unstructured") return null;
          const now = readClock(this.#clock);
          // Out of the live set first: its own text must not count as a duplicate of itself (an extractor
          // echoing it would make the entry supersede itself and vanish), nor be a candidate to replace.
          change.put({ ...current, status: "deleted" });
          const { extraction_degraded: _why, ...kept } = current.metadata;
          const facts = await this.#ingestFacts(change, current.userId, extraction.facts, embedded.vectors, {
            metadata: { ...kept, reextracted_from: current.id },
            createdAt: current.createdAt,
            now,
            degraded: false,
            embeddingDegraded: embedded.degradedReason,
            judgeSkip: extraction.usedRetry ? BUDGET_SPENT : null,
          });
          const into = facts.map((f) => f.id);
          const metadata: Metadata = { ...current.metadata, reextracted_at: now, reextracted_into: into };
          const next: EntryRecord =
            into.length > 0
              ? { ...current, status: "superseded", supersededBy: into[0]!, updatedAt: now, metadata }
              : { ...current, status: "deleted", updatedAt: now, metadata: { ...metadata, deleted_from: "unstructured", deleted_at: now } };
          change.put(next);
          return facts;
        });
        if (outcomes === null) continue;
        summary.converted++;
        summary.facts.push(...outcomes);
      }
      return summary;
    });
  }

  /**
   * Flushes, compacts the journal into a snapshot and releases the lock.
   * Idempotent; every other call then throws `STORE_CLOSED`.
   *
   * @example
   * ```ts
   * await mem.close();
   * ```
   */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    this.#closed = true;
    this.#closing = (async () => {
      await Promise.allSettled([...this.#inflight]);
      try {
        await this.#queue.exclusive(async () => {
          if (!this.#readOnly) await this.#compactNow();
        });
      } finally {
        await callBackend(this.#backend.location, "closing", () => this.#backend.close());
      }
    })();
    return this.#closing;
  }

  /**
   * Read-only stores: reads what the writer committed since the store was
   * opened or last refreshed (new journal records; the whole store again
   * after the writer compacted) and applies it. Resolves to whether anything
   * changed. Whole operations only: a reader never sees half of an add or an
   * import. On a writable store (which sees its own writes) and on backends
   * nobody else writes (`":memory:"`) it resolves to false.
   *
   * @example
   * ```ts
   * const reader = await MemoryStore.open("./memory", { readOnly: true });
   * // … another process adds …
   * if (await reader.refresh()) console.log("caught up");
   * ```
   */
  refresh(): Promise<boolean> {
    return this.#track(async () => {
      this.#checkOpen();
      return this.#follower.refresh();
    });
  }

  /** `await using mem = await MemoryStore.open(...)` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The embedder identity stored with the vectors. */
  get embedderIdentity(): EmbedderIdentity {
    return { ...this.#identity };
  }

  #maybeCompact(): void {
    if (this.#compactionQueued || this.#closed || !wantsCompaction(this.#backend)) return;
    this.#compactionQueued = true;
    this.#queue
      .exclusive(async () => {
        this.#compactionQueued = false;
        if (!this.#closed) await this.#compactNow();
      })
      .catch(() => {
        // Nothing is lost: the journal still holds every acknowledged write. The next trigger
        // compacts again, and close() compacts once more and rejects if that fails too.
      });
  }

  async #compactNow(): Promise<void> {
    const location = this.#backend.location;
    await callBackend(location, "compacting", () => this.#backend.compact({ embedder: this.#identity, count: this.#state.size, entries: this.#state.all() }));
    this.#formatVersion = callBackendSync(location, "reading the stats", () => this.#backend.stats()).formatVersion ?? this.#formatVersion;
  }

  /** Runs a read once every write it could observe is durable (recomputing if one was rolled back). */
  async #durable<T>(read: () => T): Promise<T> {
    for (;;) {
      const barrier = this.#queue.barrier();
      const value = read();
      if (barrier === null || (await barrier)) return value;
    }
  }

  #track<T>(fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>;
    try {
      // With `follow`, a call first catches up with the writer.
      const caughtUp = this.#closed ? null : this.#follower.beforeCall();
      p = caughtUp === null ? fn() : caughtUp.then(fn);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#inflight.add(p);
    const done = (): void => {
      this.#inflight.delete(p);
    };
    p.then(done, done);
    return p;
  }

  #checkOpen(): void {
    if (this.#closed) throw new MoomemError("STORE_CLOSED", `the store at ${this.#backend.location} is closed; open it again to use it`);
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.#readOnly) throw new MoomemError("READ_ONLY", `the store at ${this.#backend.location} was opened with { readOnly: true }; open it without readOnly to write`);
  }
}

/** The new fact as a judge sees it. */
function judgeInput(record: EntryRecord): JudgeItem["fact"] {
  const fact: JudgeItem["fact"] = { content: record.content, kind: record.kind };
  if (record.key !== undefined) fact.key = record.key;
  if (record.embedding !== null) fact.embedding = record.embedding;
  return fact;
}

/** Recomputes every vector with `embedder` (in place); a failure rejects the open with nothing changed on disk. */
async function reembedAll(embedder: Embedder, entries: EntryRecord[], dim: number): Promise<void> {
  const live = entries.filter((e) => e.metadata["purged"] !== true);
  for (let i = 0; i < live.length; i += 256) {
    const slice = live.slice(i, i + 256);
    const embedded = await embedTexts(embedder, slice.map((e) => e.content), dim);
    if (embedded.vectors === null) throw new MoomemError("EMBEDDING_FAILURE", `reembed: ${embedded.degradedReason}; the store was not changed`);
    slice.forEach((e, j) => (e.embedding = embedded.vectors![j]!));
  }
}

function checkEmbedderMatch(stored: EmbedderIdentity | null, current: EmbedderIdentity, location: string): void {
  if (stored === null) return;
  if (stored.id === current.id && stored.dim === current.dim) return;
  throw new MoomemError(
    "EMBEDDER_MISMATCH",
    `the store at ${location} holds vectors of embedder ${stored.id} (${stored.dim} dims) but was opened with ${current.id} (${current.dim} dims); open it with the same embedder, or with { reembed: true } to recompute every vector with the new one`,
  );
}
