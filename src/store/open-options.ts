// `open`'s options, read once: checked, turned into settings, plug-ins checked, the backend chosen.

import type { Clock, ConflictJudge, Embedder, Extractor, SyncMode } from "../types.ts";
import { loadsUsers, type EmbedderIdentity, type PersistenceBackend } from "../persistence/backend.ts";
import { MemoryBackend, UserLoadingMemoryBackend } from "../persistence/memory/memory-backend.ts";
import { invalidArgument } from "../errors.ts";
import { SystemClock } from "../clock.ts";
import { HashingEmbedder } from "../embedding/hashing-embedder.ts";
import { PatternExtractor } from "../ingest/pattern-extractor.ts";
import { SimilarityJudge } from "../ingest/similarity-judge.ts";
import { checkExtractorMode, checkJudgeName, checkPlugin, readClock, readEmbedderIdentity, readExtractorVerbatim } from "../validation/plugin-checks.ts";
import { checkIntegerIn, checkKnownKeys, checkNumberIn, checkOptions, describe, MAX_CONTENT_CHARS } from "../validation/arguments.ts";
import { embedderKind, fusionDefaults, type FusionMethod } from "../recall/ranking.ts";
import type { RecallSettings } from "../recall/recall.ts";

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
  /**
   * At most this many users' entries and indexes in memory (default: no bound): after each call the
   * least recently used users beyond it are unloaded (never one with a call in flight, such as a write
   * not yet durable) and loaded again from the backend on their next call. Needs a backend that loads
   * users when asked (files; `":memory:"` then keeps its users in a `UserLoadingMemoryBackend`) and a
   * writable open (README, "Many users: loading a user when asked").
   */
  maxLoadedUsers?: number;
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

/** Everything `open` decided from its options, before it reads the store. */
export interface OpenPlan {
  embedder: Embedder;
  /** The identity stored with the vectors (`embedder.id`, `embedder.dim`), read once. */
  identity: EmbedderIdentity;
  extractor: Extractor;
  /** The extractor keeps text as it is (`extractor.verbatim`): reextract refuses. */
  verbatim: boolean;
  judge: ConflictJudge;
  /** The offline judge (the default judge, and the fallback of any other). */
  fallbackJudge: SimilarityJudge;
  clock: Clock;
  recall: RecallSettings;
  maxContentChars: number;
  /** Conflict candidates also by vector (see `AddPipeline.judgeByVector`). */
  judgeByVector: boolean;
  readOnly: boolean;
  follow: boolean;
  reembed: boolean;
  backend: PersistenceBackend;
  /** The memory bound in users; null for none. */
  maxLoadedUsers: number | null;
}

const OPEN_KEYS = [
  "embedder",
  "extractor",
  "judge",
  "backend",
  "clock",
  "sync",
  "syncIntervalMs",
  "readOnly",
  "follow",
  "fusion",
  "rrfK",
  "vectorWeight",
  "minSimilarity",
  "neighborWeight",
  "candidates",
  "supersedeThreshold",
  "maxContentChars",
  "compactAfterBytes",
  "reembed",
  "maxLoadedUsers",
] as const;

/**
 * Reads `open`'s path and options: every value checked (the first bad one throws `INVALID_ARGUMENT`
 * naming it), the defaults filled in from the embedder's kind, the plug-ins checked, and the backend
 * chosen (`options.backend`, memory for `":memory:"`, else the runtime's `defaultBackend`).
 */
export function readOpenOptions(path: string, options: OpenOptions | undefined, defaultBackend: BackendFactory): OpenPlan {
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
  const verbatim = readExtractorVerbatim(extractor);
  const threshold = o["supersedeThreshold"] === undefined ? 0.82 : checkNumberIn(o["supersedeThreshold"], "open: supersedeThreshold", 0.01, 1);
  const fallbackJudge = new SimilarityJudge({ threshold });
  const judge = (o["judge"] as ConflictJudge | undefined) ?? fallbackJudge;
  checkPlugin(judge, "judge", ["judge"]);
  checkJudgeName(judge);
  const clock = (o["clock"] as Clock | undefined) ?? new SystemClock();
  checkPlugin(clock, "clock", ["now"]);
  readClock(clock);
  const sync = (o["sync"] ?? "always") as SyncMode;
  if (sync !== "always" && sync !== "interval" && sync !== "none")
    throw invalidArgument(`open: sync must be "always", "interval" or "none", got ${describe(sync)}`);
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
  if (fusion !== "rrf" && o["rrfK"] !== undefined)
    throw invalidArgument(`open: rrfK applies to fusion "rrf" only, but fusion is ${describe(fusion)}; drop rrfK or set fusion: "rrf"`);
  const recall: RecallSettings = {
    fusion,
    rrfK: o["rrfK"] === undefined ? defaults.rrfK : checkNumberIn(o["rrfK"], "open: rrfK", 1, 10_000),
    vectorWeight: o["vectorWeight"] === undefined ? defaults.vectorWeight : checkNumberIn(o["vectorWeight"], "open: vectorWeight", 0, 100),
    minSimilarity: o["minSimilarity"] === undefined ? defaults.minSimilarity : checkNumberIn(o["minSimilarity"], "open: minSimilarity", 0, 0.99),
    neighborWeight: o["neighborWeight"] === undefined ? defaults.neighborWeight : checkNumberIn(o["neighborWeight"], "open: neighborWeight", 0, 10),
    candidates: o["candidates"] === undefined ? undefined : checkIntegerIn(o["candidates"], "open: candidates", 1, 10_000),
    relevanceFloor: lexical,
  };
  const maxContentChars = o["maxContentChars"] === undefined ? 8192 : checkIntegerIn(o["maxContentChars"], "open: maxContentChars", 16, MAX_CONTENT_CHARS);
  // A host's judge (an LLM) can use looser candidates, and costs far more than the scan anyway.
  const judgeByVector = !lexical || o["judge"] !== undefined;
  const backendOptions: BackendOptions = { sync, syncIntervalMs, readOnly };
  if (o["compactAfterBytes"] !== undefined)
    backendOptions.compactAfterBytes = checkIntegerIn(o["compactAfterBytes"], "open: compactAfterBytes", 1, Number.MAX_SAFE_INTEGER);
  let backend = o["backend"] as PersistenceBackend | undefined;
  if (backend !== undefined) checkPlugin(backend, "backend", ["load", "append", "compact", "close", "stats", "wantsCompaction"]);
  const maxLoadedUsers = o["maxLoadedUsers"] === undefined ? null : checkIntegerIn(o["maxLoadedUsers"], "open: maxLoadedUsers", 1, 1_000_000_000);
  // A bounded memory store holds its users in the backend, and the store only those it serves.
  backend ??= path === ":memory:" ? (maxLoadedUsers === null ? new MemoryBackend() : new UserLoadingMemoryBackend()) : defaultBackend(path, backendOptions);
  if (maxLoadedUsers !== null && readOnly) {
    throw invalidArgument(
      `open: maxLoadedUsers (${maxLoadedUsers}) bounds a writable store; a readOnly store reads every user to follow its writer, so open without one of them`,
    );
  }
  if (maxLoadedUsers !== null && !loadsUsers(backend)) {
    throw invalidArgument(
      `open: maxLoadedUsers (${maxLoadedUsers}) needs a backend that loads users when asked (openCatalog, loadUser, scan, compactStored: see PersistenceBackend); the backend at ${backend.location} reads the whole store at open, so leave maxLoadedUsers out`,
    );
  }

  const reembed = o["reembed"] ?? false;
  if (typeof reembed !== "boolean") throw invalidArgument(`open: reembed must be true or false, got ${describe(reembed)}`);
  if (reembed && readOnly) throw invalidArgument("open: reembed rewrites the store, so it cannot be combined with readOnly");
  return {
    embedder,
    identity,
    extractor,
    verbatim,
    judge,
    fallbackJudge,
    clock,
    recall,
    maxContentChars,
    judgeByVector,
    readOnly,
    follow,
    reembed,
    backend,
    maxLoadedUsers,
  };
}
