// Score fusion by standardised scores: each route's scores as z-scores over the searched docs, then a weighted sum.

import { invalidArgument } from "../errors.ts";
import type { FusedDoc } from "./rrf.ts";

/** One route as {@link fuseStandardized} reads it. */
export interface StandardizedRoute {
  /** The route's candidates with their raw scores, best first. */
  hits: ReadonlyArray<{ doc: number; score: number }>;
  /** Mean of the route's score over every doc it searched (a doc it did not match scores 0). */
  mean: number;
  /** Standard deviation of that score; a route with sd 0 (or rounding noise) cannot tell docs apart and adds nothing. */
  sd: number;
  /** Raw score of a doc another route found but this one did not return. Default: 0 (no match). */
  scoreOf?: (doc: number) => number;
}

/** Mean and standard deviation of `count` scores of which only `scores` are non-zero. */
export function momentsOf(scores: ReadonlyArray<{ score: number }>, count: number): { mean: number; sd: number } {
  if (count <= 0) return { mean: 0, sd: 0 };
  let sum = 0;
  let sumSquares = 0;
  for (const { score } of scores) {
    sum += score;
    sumSquares += score * score;
  }
  return momentsFromSums(count, sum, sumSquares);
}

/** Mean and standard deviation from a count, a sum and a sum of squares (rounding cannot make it negative). */
export function momentsFromSums(count: number, sum: number, sumSquares: number): { mean: number; sd: number } {
  if (count <= 0) return { mean: 0, sd: 0 };
  const mean = sum / count;
  return { mean, sd: Math.sqrt(Math.max(0, sumSquares / count - mean * mean)) };
}

/** A spread this small relative to the mean is rounding noise from equal scores, not information. */
const FLAT = 1e-7;

/**
 * Fuses routes by their standardised scores: score(d) = Σ_routes weight · (raw(d) − mean) / sd, over the
 * union of the routes' candidates; sorted best first, equal scores putting the larger (newer) doc first.
 *
 * BM25 scores and cosines live on different scales, and how far a route's best doc stands above the
 * rest says how sure that route is for this query: a z-score keeps that, where ranks (RRF) throw it
 * away. So a route that has a clear answer outvotes one that only has a flat list, per query, whichever
 * route it is; on LoCoMo this is what let a sentence encoder add to BM25 instead of blurring it
 * (docs/eval/tuning.md). The idea is Bruch et al.'s convex combination of normalised scores (ACM TOIS
 * 2023) with the distribution-based (z-score) normalisation.
 *
 * @example
 * ```ts
 * fuseStandardized([
 *   { hits: [{ doc: 7, score: 0.61 }, { doc: 3, score: 0.40 }], mean: 0.1, sd: 0.1 },
 *   { hits: [{ doc: 3, score: 8.2 }], mean: 0.2, sd: 1.1 },
 * ], [1, 1]); // doc 3 first: 3.0 + 7.27; then doc 7: 5.1 + (0 − 0.2) / 1.1
 * ```
 */
export function fuseStandardized(routes: readonly StandardizedRoute[], weights?: readonly number[]): FusedDoc[] {
  if (!Array.isArray(routes)) throw invalidArgument(`fuseStandardized: routes must be an array, got ${typeof routes}.`);
  if (weights !== undefined) {
    if (!Array.isArray(weights) || weights.length !== routes.length) {
      throw invalidArgument(
        `fuseStandardized: weights must be an array with one number per route (${routes.length}), got ${Array.isArray(weights) ? `${weights.length} numbers` : typeof weights}.`,
      );
    }
    weights.forEach((w, i) => {
      if (typeof w !== "number" || !Number.isFinite(w) || w < 0)
        throw invalidArgument(`fuseStandardized: weights[${i}] must be a finite number ≥ 0, got ${String(w)}.`);
    });
  }
  const ranksOf = new Map<number, Array<number | undefined>>();
  const rawOf: Array<Map<number, number>> = [];
  routes.forEach((route, r) => {
    if (typeof route !== "object" || route === null || !Array.isArray(route.hits))
      throw invalidArgument(`fuseStandardized: route ${r} must be { hits, mean, sd }.`);
    if (!Number.isFinite(route.mean) || !Number.isFinite(route.sd) || route.sd < 0) {
      throw invalidArgument(`fuseStandardized: route ${r} needs a finite mean and sd ≥ 0, got mean ${String(route.mean)}, sd ${String(route.sd)}.`);
    }
    const raw = new Map<number, number>();
    const hits: StandardizedRoute["hits"] = route.hits;
    hits.forEach(({ doc, score }, i) => {
      if (raw.has(doc)) return;
      raw.set(doc, score);
      let ranks = ranksOf.get(doc);
      if (ranks === undefined) {
        ranks = new Array<number | undefined>(routes.length).fill(undefined);
        ranksOf.set(doc, ranks);
      }
      ranks[r] = i + 1;
    });
    rawOf.push(raw);
  });
  const fused: FusedDoc[] = [];
  for (const [doc, ranks] of ranksOf) {
    let score = 0;
    routes.forEach((route, r) => {
      const weight = weights?.[r] ?? 1;
      if (weight === 0 || route.sd === 0 || route.sd <= FLAT * Math.abs(route.mean)) return;
      const raw = rawOf[r]!.get(doc) ?? route.scoreOf?.(doc) ?? 0;
      score += (weight * (raw - route.mean)) / route.sd;
    });
    fused.push({ doc, score, ranks });
  }
  fused.sort((x, y) => y.score - x.score || y.doc - x.doc);
  return fused;
}
