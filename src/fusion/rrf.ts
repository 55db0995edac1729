// Reciprocal Rank Fusion: merges ranked lists (vector route, keyword route) into one ranking.

import { invalidArgument } from "../errors.ts";

/** One fused result. */
export interface FusedDoc {
  doc: number;
  /** Σ over routes of 1 / (k + rank). */
  score: number;
  /** `ranks[i]`: the 1-based rank of the doc in route `i`, undefined when route `i` did not return it. */
  ranks: Array<number | undefined>;
}

/**
 * Fuses ranked lists of docs (best first) with Reciprocal Rank Fusion (Cormack et al., 2009):
 * score(d) = Σ_routes 1 / (k + rank(d)), ranks 1-based. Sorted by score, best first; equal scores put
 * the larger (newer) doc first. A doc listed twice in one route counts at its better rank.
 *
 * The per-doc sum adds the largest terms first, so the score is bit-identical whatever the routes'
 * order (swapping two routes only swaps their places in `ranks`).
 *
 * @example
 * ```ts
 * fuseRrf([[7, 3], [3, 9]], 60);
 * // [{ doc: 3, score: 1/62 + 1/61, ranks: [2, 1] }, { doc: 7, score: 1/61, ranks: [1, undefined] },
 * //  { doc: 9, score: 1/62, ranks: [undefined, 2] }]
 * ```
 */
export function fuseRrf(routes: ReadonlyArray<readonly number[]>, k: number, weights?: readonly number[]): FusedDoc[] {
  if (!Array.isArray(routes)) throw invalidArgument(`fuseRrf: routes must be an array of doc arrays, got ${typeof routes}.`);
  if (typeof k !== "number" || !Number.isFinite(k) || k < 0) {
    throw invalidArgument(`fuseRrf: k must be a finite number ≥ 0 (60 is usual), got ${String(k)}.`);
  }
  if (weights !== undefined) {
    if (!Array.isArray(weights) || weights.length !== routes.length) {
      throw invalidArgument(
        `fuseRrf: weights must be an array with one number per route (${routes.length}), got ${Array.isArray(weights) ? `${weights.length} numbers` : typeof weights}.`,
      );
    }
    weights.forEach((w, i) => {
      if (typeof w !== "number" || !Number.isFinite(w) || w < 0) throw invalidArgument(`fuseRrf: weights[${i}] must be a finite number ≥ 0, got ${String(w)}.`);
    });
  }
  const ranksOf = new Map<number, Array<number | undefined>>();
  for (let route = 0; route < routes.length; route++) {
    const docs = routes[route];
    if (!Array.isArray(docs)) throw invalidArgument(`fuseRrf: route ${route} must be an array of docs, got ${typeof docs}.`);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] as number;
      let ranks = ranksOf.get(doc);
      if (ranks === undefined) {
        ranks = new Array<number | undefined>(routes.length).fill(undefined);
        ranksOf.set(doc, ranks);
      }
      ranks[route] ??= i + 1;
    }
  }
  const fused: FusedDoc[] = [];
  for (const [doc, ranks] of ranksOf) {
    const terms: number[] = [];
    ranks.forEach((rank, route) => {
      if (rank !== undefined) terms.push((weights?.[route] ?? 1) / (k + rank));
    });
    terms.sort((x, y) => y - x);
    let score = 0;
    for (const term of terms) score += term;
    fused.push({ doc, score, ranks });
  }
  fused.sort((x, y) => y.score - x.score || y.doc - x.doc);
  return fused;
}
