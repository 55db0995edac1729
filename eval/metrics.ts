// Retrieval metrics per question, their averages, and paired significance (seeded bootstrap, exact McNemar).

/** Ranks at which recall is called, each with its own `recall` (PROTOCOL.md). */
export const KS: readonly number[] = [1, 5, 10, 25, 50];

/** What one configuration did on one question. */
export interface QuestionResult {
  conv: string;
  /** Position in the conversation's `qa` array: pairs runs. */
  index: number;
  category: number;
  goldCount: number;
  /** Per k (as a string key): ≥ 1 gold turn in the top k. */
  anyHit: Record<string, number>;
  /** Per k: every gold turn in the top k. */
  allHit: Record<string, number>;
  /** Per k: fraction of gold turns in the top k. */
  evidenceRecall: Record<string, number>;
  /** 1 / rank of the first gold hit in the top 10, else 0. */
  rr: number;
}

/**
 * Scores one question: `rankedByK[k]` is the list of hits a `recall` with topK = k returned, each hit
 * given as the dialog ids it stands for (a deduplicated entry can stand for several turns).
 */
export function scoreQuestion(
  base: { conv: string; index: number; category: number },
  gold: readonly string[],
  rankedByK: ReadonlyMap<number, ReadonlyArray<readonly string[]>>,
): QuestionResult {
  const goldSet = new Set(gold);
  const result: QuestionResult = { ...base, goldCount: goldSet.size, anyHit: {}, allHit: {}, evidenceRecall: {}, rr: 0 };
  for (const [k, ranked] of rankedByK) {
    const found = new Set<string>();
    for (const ids of ranked.slice(0, k)) for (const id of ids) if (goldSet.has(id)) found.add(id);
    result.anyHit[k] = found.size > 0 ? 1 : 0;
    result.allHit[k] = found.size === goldSet.size ? 1 : 0;
    result.evidenceRecall[k] = found.size / goldSet.size;
  }
  const top10 = rankedByK.get(10) ?? [];
  const first = top10.findIndex((ids) => ids.some((id) => goldSet.has(id)));
  result.rr = first < 0 ? 0 : 1 / (first + 1);
  return result;
}

/** Named metric extractors, so reports and comparisons can speak of "AnyHit@5" etc. */
export function metricValue(r: QuestionResult, metric: string): number {
  if (metric === "MRR@10") return r.rr;
  const m = /^(AnyHit|AllHit|EvidenceRecall)@(\d+)$/.exec(metric);
  if (m === null) throw new Error(`unknown metric ${metric}`);
  const table = m[1] === "AnyHit" ? r.anyHit : m[1] === "AllHit" ? r.allHit : r.evidenceRecall;
  const v = table[m[2] as string];
  if (v === undefined) throw new Error(`metric ${metric} was not measured`);
  return v;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** mulberry32: a tiny seeded PRNG, so every bootstrap is reproducible bit for bit. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PairedComparison {
  n: number;
  a: number;
  b: number;
  /** b − a and its 95 % percentile bootstrap interval. */
  diff: number;
  diffLow: number;
  diffHigh: number;
  /** b / a and its 95 % interval. */
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  /** Questions only a got right, only b got right (binary metrics), and the exact two-sided McNemar p. */
  onlyA: number;
  onlyB: number;
  mcnemarP: number;
}

/**
 * Paired comparison of two per-question value lists (same questions, same order): the difference and
 * the ratio of the means with 95 % percentile intervals from `resamples` bootstrap draws of questions.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], resamples = 10_000, seed = 20240): PairedComparison {
  if (a.length !== b.length) throw new Error(`paired comparison needs equal lengths, got ${a.length} and ${b.length}`);
  const n = a.length;
  const random = seededRandom(seed);
  const diffs = new Float64Array(resamples);
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      sa += a[j] as number;
      sb += b[j] as number;
    }
    diffs[r] = (sb - sa) / n;
    ratios[r] = sa === 0 ? Number.POSITIVE_INFINITY : sb / sa;
  }
  diffs.sort();
  ratios.sort();
  const lo = Math.floor(0.025 * resamples);
  const hi = Math.min(resamples - 1, Math.ceil(0.975 * resamples) - 1);
  const ma = mean(a);
  const mb = mean(b);
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < n; i++) {
    if ((a[i] as number) > (b[i] as number)) onlyA++;
    else if ((b[i] as number) > (a[i] as number)) onlyB++;
  }
  return {
    n,
    a: ma,
    b: mb,
    diff: mb - ma,
    diffLow: diffs[lo] as number,
    diffHigh: diffs[hi] as number,
    ratio: ma === 0 ? Number.POSITIVE_INFINITY : mb / ma,
    ratioLow: ratios[lo] as number,
    ratioHigh: ratios[hi] as number,
    onlyA,
    onlyB,
    mcnemarP: mcnemarExact(onlyA, onlyB),
  };
}

/** Exact two-sided McNemar test: P(X ≤ min(b, c)) · 2 for X ~ Binomial(b + c, ½), capped at 1. */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const m = Math.min(b, c);
  // Sum the binomial probabilities in log space: n can be several hundred.
  let logC = 0; // log C(n, 0)
  let total = 0;
  const logHalfN = n * Math.log(0.5);
  for (let i = 0; i <= m; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    total += Math.exp(logC + logHalfN);
  }
  return Math.min(1, 2 * total);
}
