// Where the vector index's scans put the docs that score above 0: the top k and the moments of every score.

import type { TopK } from "./top-k.ts";

/**
 * Scale of the fixed-point score sums: integers stay exact in a double up to 2^53, and a cosine is at
 * most about 1, so 2^26 per doc leaves room for 2^27 docs. Fixed point makes the sums (and the fused
 * scores built on them) independent of the order docs are scanned in, which removals and blocks change:
 * a reopened store answers with the same scores to the bit.
 */
export const MOMENT_SCALE: number = 2 ** 26;

/** 2^52: adding it to a double in [0, 2^52) and taking it away again rounds it to an integer (ties to even). */
export const INTEGER_SHIFT: number = 2 ** 52;

/**
 * `Math.round(x)` for +0 ≤ x < 2^52, to the bit, without calling it: on Node 20–24 `Math.round` costs
 * ~13 ns a call (bench: 1.2–2.5 ms for 200k calls), and the scans round two numbers per doc scoring above 0.
 * Adding 2^52 rounds to nearest with ties to even; `y - x` is exact (Sterbenz), so a tie rounded down
 * (y − x = −0.5) is the one case where `Math.round`, which takes ties up, differs: it is moved up.
 */
export function roundHalfUp(x: number): number {
  const y = x + INTEGER_SHIFT - INTEGER_SHIFT;
  return y - x === -0.5 ? y + 1 : y;
}

/**
 * A search's hits so far: the top k, and the fixed-point sums of the scores and their squares. An
 * object with a method rather than a closure made per search: a scan that calls a new closure each
 * search is deoptimised each search ("wrong call target"), which made the inverted scan 3× slower.
 */
export class ScoreSink {
  readonly top: TopK;
  sum = 0;
  sumSquares = 0;

  constructor(top: TopK) {
    this.top = top;
  }

  offer(doc: number, score: number): void {
    this.top.offer(doc, score);
    this.sum += roundHalfUp(score * MOMENT_SCALE);
    this.sumSquares += roundHalfUp(score * score * MOMENT_SCALE);
  }
}
