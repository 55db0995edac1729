// How recall turns its two routes' candidates into one ranking: the fusion settings per embedder kind, and the fusion call.

import type { Embedder, EmbedderKind, EntryRecord, RecallMode } from "../types.ts";
import type { ScoredDoc } from "../indexes/top-k.ts";
import type { ScoreMoments } from "../indexes/vector-index.ts";
import { fuseRrf, type FusedDoc } from "../fusion/rrf.ts";
import { fuseStandardized, momentsFromSums, momentsOf } from "../fusion/standardized.ts";
import { indexBySeq } from "../state/seq-order.ts";

/** How recall fuses its routes: `"zscore"` (standardised scores, the default) or `"rrf"` (Reciprocal Rank Fusion). */
export type FusionMethod = "zscore" | "rrf";

/** The fusion settings an open store runs with. */
export interface FusionSettings {
  fusion: FusionMethod;
  /** RRF's k (used by `"rrf"` only). */
  rrfK: number;
  /** Weight of the vector route; the keyword route weighs 1. */
  vectorWeight: number;
  /** Vector hits at or below this cosine are dropped. */
  minSimilarity: number;
  /** Weight of neighbouring-turn context ({@link addNeighborContext}); 0 turns it off. */
  neighborWeight: number;
}

/** Default weight of neighbouring-turn context: 0.2–0.4 all measured within noise of each other on LoCoMo dev; 0.25 is mid-range. */
const NEIGHBOR_WEIGHT = 0.25;

/** An embedder's kind; one that does not say is taken as semantic (see `Embedder.kind`). */
export function embedderKind(embedder: Embedder): EmbedderKind {
  return embedder.kind === "lexical" ? "lexical" : "semantic";
}

/**
 * The fusion defaults for an embedder kind (README "API at a glance", docs/eval/tuning.md):
 * - lexical (the built-in `HashingEmbedder`): its vectors see the words BM25 sees, so they get a
 *   tenth of BM25's vote and break its near-ties; cosines ≤ 0.15 are hash collisions, not matches.
 * - semantic: an equal vote. Standardised scores let whichever route is sure of a query lead it, so an
 *   equal vote no longer drags recall below keyword-only when the encoder is weak (LoCoMo: USE-lite).
 * RRF's k stays at its usual 60 (5 for lexical, as tuned for it) for a host that picks `fusion: "rrf"`.
 */
export function fusionDefaults(kind: EmbedderKind): FusionSettings {
  return kind === "lexical"
    ? { fusion: "zscore", rrfK: 5, vectorWeight: 0.1, minSimilarity: 0.15, neighborWeight: NEIGHBOR_WEIGHT }
    : { fusion: "zscore", rrfK: 60, vectorWeight: 1, minSimilarity: 0, neighborWeight: NEIGHBOR_WEIGHT };
}

/** The two routes' candidates of one recall, best first, and what z-score fusion needs to standardise them. */
export interface RouteCandidates {
  vector: readonly ScoredDoc[];
  /** The vector scan's moments over every doc of the user. */
  vectorMoments: ScoreMoments;
  /** Cosine of a doc the vector route did not return (a keyword candidate), ≤ 0 as 0. */
  vectorScoreOf: (doc: number) => number;
  keyword: readonly ScoredDoc[];
  /** Every hit the BM25 search returned (before filters and the depth cut): its moments stand for the route's. */
  keywordSearched: readonly ScoredDoc[];
  /** Docs in the BM25 index (a doc it did not return scores 0). */
  keywordCount: number;
}

/**
 * Fuses the routes with the store's settings; ranks: `[vectorRank, keywordRank]`. Only `"hybrid"` weighs
 * the routes: a single-route mode ranks by that route alone, whatever `vectorWeight` is (at 0 it would
 * otherwise rank every vector hit equal).
 */
export function fuseRoutes(settings: FusionSettings, mode: RecallMode, routes: RouteCandidates): FusedDoc[] {
  const weights = mode === "hybrid" ? [settings.vectorWeight, 1] : [1, 1];
  if (settings.fusion === "rrf") return fuseRrf([routes.vector.map((h) => h.doc), routes.keyword.map((h) => h.doc)], settings.rrfK, weights);
  const m = routes.vectorMoments;
  return fuseStandardized(
    [
      { hits: routes.vector, ...momentsFromSums(m.count, m.sum, m.sumSquares), scoreOf: routes.vectorScoreOf },
      { hits: routes.keyword, ...momentsOf(routes.keywordSearched, routes.keywordCount) },
    ],
    weights,
  );
}

/**
 * Entries observed this close in time count as one conversation for {@link addNeighborContext}:
 * consecutive turns of a chat are seconds to minutes apart, while memories from separate sessions are
 * hours or days apart and say nothing about each other.
 */
export const NEIGHBOR_WINDOW_MS: number = 30 * 60_000;

/**
 * Neighbouring-turn context: each candidate gains `weight` × the best positive fused score of the
 * user's entries just before and after it (in write order, observed within {@link NEIGHBOR_WINDOW_MS}),
 * counting only neighbours that are candidates themselves. In a conversation stored turn by turn, the
 * turn that answers a question often shares few words with it while the question next to it shares
 * many ("what did you paint?" / "a sunset over the lake"), so a turn beside a strong match is likely
 * relevant too. Only the order among candidates changes: no memory that neither route found is added.
 * LoCoMo dev AnyHit@5 +2.0 points with the hashing embedder, +3.6 with USE-lite (docs/eval/tuning.md).
 * `entries`: the user's entries in seq order (any status). Returns a new array; ranks are kept.
 */
export function addNeighborContext(fused: readonly FusedDoc[], entries: readonly EntryRecord[], weight: number): FusedDoc[] {
  if (weight === 0 || fused.length < 2) return [...fused];
  const scoreOf = new Map<number, number>();
  for (const f of fused) if (f.score > 0) scoreOf.set(f.doc, f.score);
  return fused.map((f) => {
    const at = indexBySeq(entries, f.doc);
    if (at < 0) return f;
    const self = entries[at]!;
    let best = 0;
    for (const neighbor of [entries[at - 1], entries[at + 1]]) {
      if (neighbor === undefined || Math.abs(neighbor.createdAt - self.createdAt) > NEIGHBOR_WINDOW_MS) continue;
      best = Math.max(best, scoreOf.get(neighbor.seq) ?? 0);
    }
    return best === 0 ? f : { ...f, score: f.score + weight * best };
  });
}
