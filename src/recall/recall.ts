// Recall, top to bottom: the query embedded and tokenised, then for one user routes → filters → fusion → hits.

import type { Embedder, RecallHit, RecallMode } from "../types.ts";
import { MoomemError, invalidArgument } from "../errors.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { normalize } from "../embedding/vector-math.ts";
import type { ScoreMoments } from "../indexes/vector-index.ts";
import { tokenize } from "../text/tokenizer.ts";
import { sharesContent } from "../text/relevance-floor.ts";
import { checkIntegerIn, checkKnownKeys, describe } from "../validation/arguments.ts";
import type { UserEntries } from "../state/user-entries.ts";
import { toRecallHit } from "../state/public-entry.ts";
import { matchesFilter, readFilter, type EntryFilter } from "./entry-filter.ts";
import { addNeighborContext, fuseRoutes, type FusionSettings } from "./ranking.ts";

/** How an open store recalls: its fusion settings, plus the candidate depth and the relevance floor. */
export interface RecallSettings extends FusionSettings {
  /** Candidates taken from each route before fusion (open option `candidates`; undefined: from topK). */
  candidates: number | undefined;
  /** Drop vector hits that share no content word with the query (lexical vectors only; text/relevance-floor.ts). */
  relevanceFloor: boolean;
}

/** What one recall asks for, checked. */
export interface RecallRequest {
  topK: number;
  mode: RecallMode;
  filter: EntryFilter | undefined;
}

/** Reads `recall`'s options (already copied by `checkOptions`). */
export function readRecallOptions(o: Record<string, unknown>): RecallRequest {
  checkKnownKeys(o, ["topK", "mode", "since", "until", "kind", "metadata"], "recall");
  const topK = o["topK"] === undefined ? 5 : checkIntegerIn(o["topK"], "recall: topK", 1, 100);
  const mode = (o["mode"] ?? "hybrid") as RecallMode;
  if (mode !== "hybrid" && mode !== "vector" && mode !== "keyword")
    throw invalidArgument(`recall: mode must be "hybrid", "vector" or "keyword", got ${describe(mode)}`);
  return { topK, mode, filter: readFilter(o, "recall") };
}

/** The query as the routes search it. */
export interface PreparedQuery {
  text: string;
  /** Unit-length query vector; null in keyword mode, or when embedding failed (hybrid falls back to keywords). */
  vector: Float32Array | null;
  /** Query tokens (none in vector mode). */
  tokens: string[];
  /** The query could not be embedded: only keywords were used. */
  degraded: boolean;
}

/**
 * Embeds (unless keyword mode) and tokenises (unless vector mode) the query. Before the write queue:
 * it reads no store state. A query that cannot be embedded in vector mode throws `EMBEDDING_FAILURE`.
 */
export async function prepareQuery(embedder: Embedder, dim: number, text: string, mode: RecallMode): Promise<PreparedQuery> {
  let vector: Float32Array | null = null;
  let degraded = false;
  if (mode !== "keyword") {
    const embedded = await embedTexts(embedder, [text], dim);
    if (embedded.vectors === null) {
      if (mode === "vector") {
        throw new MoomemError(
          "EMBEDDING_FAILURE",
          `recall in "vector" mode needs the query embedded, but ${embedded.degradedReason}; use mode "hybrid" to fall back to keywords`,
        );
      }
      degraded = true;
    } else {
      vector = normalize(Float32Array.from(embedded.vectors[0]!));
    }
  }
  return { text, vector, tokens: mode === "vector" ? [] : tokenize(text), degraded };
}

/** A doc (an entry's seq) and its score in one route. */
interface Scored {
  doc: number;
  score: number;
}

/** The user's best `topK` live entries for the query: each route's candidates, filtered, fused, then neighbouring-turn context. */
export function searchUser(user: UserEntries, query: PreparedQuery, request: RecallRequest, settings: RecallSettings): RecallHit[] {
  const { topK, mode, filter } = request;
  const queryVector = query.vector;
  const shard = user.shard();
  if (shard === undefined) return [];
  const depth = settings.candidates ?? Math.max(topK, Math.min(50, Math.max(20, 2 * topK)));
  // With a filter, search deeper so filtered-out entries do not starve the routes.
  const k = filter === undefined ? depth : shard.entries.length;
  const keep = (seq: number): boolean => filter === undefined || matchesFilter(user.bySeq(seq)!, filter);
  // Equal scores: the newer memory first by when it was observed (an imported old chat loses a tie), then by write order.
  const createdAt = (doc: number): number => user.bySeq(doc)!.createdAt;
  const newerFirst = (a: Scored, b: Scored): number => b.score - a.score || createdAt(b.doc) - createdAt(a.doc) || b.doc - a.doc;
  const route = (hits: Scored[]): Scored[] =>
    hits
      .sort(newerFirst)
      .filter((h) => keep(h.doc))
      .slice(0, depth);
  const floor = settings.minSimilarity;
  const vectorMoments: ScoreMoments = { count: 0, sum: 0, sumSquares: 0 };
  // Relevance floor: a lexical vector hit sharing only function words with the query is noise (text/relevance-floor.ts).
  const relevant = (h: { doc: number }): boolean => !settings.relevanceFloor || sharesContent(query.text, user.bySeq(h.doc)!.content);
  const vectorHits =
    mode !== "keyword" && queryVector !== null
      ? route(shard.vectors.search(queryVector, k, vectorMoments).filter((h) => h.score > floor)).filter(relevant)
      : [];
  const keywordSearched = mode !== "vector" && query.tokens.length > 0 ? shard.keywords.search(query.tokens, k) : [];
  const routed = fuseRoutes(settings, mode, {
    vector: vectorHits,
    vectorMoments,
    vectorScoreOf: (doc) => (queryVector === null ? 0 : Math.max(0, shard.vectors.score(doc, queryVector) ?? 0)),
    keyword: route([...keywordSearched]),
    keywordSearched,
    keywordCount: shard.keywords.size,
  });
  const fused = addNeighborContext(routed, shard.entries, settings.neighborWeight).sort(newerFirst).slice(0, topK);
  return fused.map((f) => toRecallHit(user.bySeq(f.doc)!, f.score, f.ranks[0], f.ranks[1], query.degraded));
}
