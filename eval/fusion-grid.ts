// `tsx eval/fusion-grid.ts [--embedder hashing|use-lite]`: the fusion functions tried for recall, on LoCoMo dev, paired against the better single route.
//
// It rebuilds each conversation's two routes with the store's own indexes (BM25 and the exact vector
// scan, same tokenizer, same candidate depth as recall at topK 5) and ranks the candidates with each
// fusion function in turn, so dozens of variants cost one pass; docs/eval/tuning.md quotes its output.
// The store's own path for the variant it ships is checked by `npm run eval` (same numbers).

import { loadLocomo } from "./locomo-data.ts";
import { DEFAULT_DATA } from "./locomo.ts";
import { pairedBootstrap, mean } from "./metrics.ts";
import { CachedEmbedder, cacheFileFor } from "./embedding-cache.ts";
import { UseLiteEmbedder } from "./use-lite-embedder.ts";
import { Bm25Index } from "../src/indexes/bm25-index.ts";
import { VectorIndex } from "../src/indexes/vector-index.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { normalize } from "../src/embedding/vector-math.ts";
import { normalizeForDedup, tokenize } from "../src/text/tokenizer.ts";
import { fuseRrf } from "../src/fusion/rrf.ts";
import { fuseStandardized, momentsFromSums, momentsOf } from "../src/fusion/standardized.ts";
import type { Embedder } from "../src/types.ts";

const DEPTH = 20;
const TOP = 5;

interface Question {
  conv: string;
  gold: Set<number>;
  /** Candidates of each route with their raw scores, best first. */
  vector: Array<{ doc: number; score: number }>;
  keyword: Array<{ doc: number; score: number }>;
  /** Moments over every doc of the conversation: the vector scan's, and BM25's from its top hits. */
  vectorMoments: { mean: number; sd: number };
  keywordMoments: { mean: number; sd: number };
  vectorScoreOf: (doc: number) => number;
}

type Fusion = (q: Question) => number[];

function args(): { embedder: Embedder; floor: number } {
  const i = process.argv.indexOf("--embedder");
  const name = i < 0 ? "hashing" : process.argv[i + 1];
  if (name === "use-lite")
    return {
      embedder: new CachedEmbedder(new UseLiteEmbedder(), cacheFileFor(new URL("./.cache/", import.meta.url), "use-lite/energetic-ai-0.2.0/512")),
      floor: 0,
    };
  if (name !== "hashing") throw new Error(`--embedder must be hashing or use-lite, got ${String(name)}`);
  return { embedder: new HashingEmbedder(), floor: 0.15 };
}

async function questions(embedder: Embedder, floor: number): Promise<Question[]> {
  const out: Question[] = [];
  for (const conv of loadLocomo(DEFAULT_DATA)) {
    // The store's protocol: one memory per distinct line, standing for every turn it came from.
    const docs: Array<{ content: string; dia: string[] }> = [];
    const at = new Map<string, number>();
    for (const t of conv.turns) {
      const content = `${t.speaker}: ${t.text}`;
      const key = normalizeForDedup(content);
      const i = at.get(key);
      if (i !== undefined) docs[i]!.dia.push(t.diaId);
      else {
        at.set(key, docs.length);
        docs.push({ content, dia: [t.diaId] });
      }
    }
    const bm25 = new Bm25Index();
    const vectors = new VectorIndex(embedder.dim);
    const docVectors = await embedder.embed(docs.map((d) => d.content));
    docs.forEach((d, i) => {
      bm25.add(i, tokenize(d.content));
      vectors.add(i, normalize(Float32Array.from(docVectors[i]!)));
    });
    const headline = conv.questions.filter((q) => q.category <= 4);
    const queryVectors = await embedder.embed(headline.map((q) => q.question));
    headline.forEach((q, qi) => {
      const query = normalize(Float32Array.from(queryVectors[qi]!));
      const moments = { count: 0, sum: 0, sumSquares: 0 };
      const vector = vectors.search(query, DEPTH, moments).filter((h) => h.score > floor);
      const keyword = bm25.search(tokenize(q.question), DEPTH);
      const gold = new Set(q.gold);
      out.push({
        conv: conv.sampleId,
        gold: new Set(docs.flatMap((d, i) => (d.dia.some((id) => gold.has(id)) ? [i] : []))),
        vector,
        keyword,
        vectorMoments: momentsFromSums(moments.count, moments.sum, moments.sumSquares),
        keywordMoments: momentsOf(keyword, docs.length),
        vectorScoreOf: (doc) => Math.max(0, vectors.score(doc, query) ?? 0),
      });
    });
  }
  return out;
}

/** Convex combination of per-route normalised scores over the candidates (Bruch et al., 2023). */
function convex(alpha: number, norm: (hits: Question["vector"], route: "vector" | "keyword", q: Question) => (doc: number) => number): Fusion {
  return (q) => {
    const nv = norm(q.vector, "vector", q);
    const nk = norm(q.keyword, "keyword", q);
    const docs = [...new Set([...q.vector.map((h) => h.doc), ...q.keyword.map((h) => h.doc)])];
    const score = new Map(docs.map((d) => [d, alpha * nv(d) + (1 - alpha) * nk(d)]));
    return docs.sort((a, b) => score.get(b)! - score.get(a)! || b - a);
  };
}

/** Min-max over the route's candidates; a doc the route did not return scores 0. */
const minMax = (hits: Question["vector"]) => {
  const raw = new Map(hits.map((h) => [h.doc, h.score]));
  const hi = hits[0]?.score ?? 0;
  const lo = hits[hits.length - 1]?.score ?? 0;
  return (doc: number) => (raw.has(doc) ? (hi === lo ? 1 : (raw.get(doc)! - lo) / (hi - lo)) : 0);
};
/** Theoretical min-max: score / best score, the lower bound being 0 for BM25 and for the cosines kept. */
const byMax = (hits: Question["vector"]) => {
  const raw = new Map(hits.map((h) => [h.doc, h.score]));
  const hi = hits[0]?.score ?? 1;
  return (doc: number) => (raw.get(doc) ?? 0) / hi;
};
/** z-score over the route's candidates only. */
const zCandidates = (hits: Question["vector"]) => {
  const { mean: m, sd } = momentsOf(hits, hits.length);
  const raw = new Map(hits.map((h) => [h.doc, h.score]));
  const floor = hits.length === 0 ? 0 : (hits[hits.length - 1]!.score - m) / (sd || 1);
  return (doc: number) => (raw.has(doc) ? (raw.get(doc)! - m) / (sd || 1) : floor);
};

function variants(): Array<[string, Fusion]> {
  const out: Array<[string, Fusion]> = [
    ["keyword only", (q) => q.keyword.map((h) => h.doc)],
    ["vector only", (q) => q.vector.map((h) => h.doc)],
  ];
  for (const [k, w] of [
    [60, 1],
    [60, 0.3],
    [60, 0.1],
    [20, 0.5],
    [10, 0.3],
    [5, 0.1],
  ] as const) {
    out.push([`RRF k ${k}, vector weight ${w}`, (q) => fuseRrf([q.vector.map((h) => h.doc), q.keyword.map((h) => h.doc)], k, [w, 1]).map((f) => f.doc)]);
  }
  for (const a of [0.1, 0.3, 0.5]) out.push([`convex, min-max over candidates, α ${a}`, convex(a, minMax)]);
  for (const a of [0.1, 0.3, 0.5]) out.push([`convex, score / best score, α ${a}`, convex(a, byMax)]);
  for (const a of [0.1, 0.3, 0.5]) out.push([`convex, z-score over candidates, α ${a}`, convex(a, zCandidates)]);
  for (const w of [0.1, 0.25, 0.5, 1]) {
    out.push([
      `z-score over all memories, vector weight ${w}${w === 0.1 ? " (lexical default)" : w === 1 ? " (semantic default)" : ""}`,
      (q) =>
        fuseStandardized(
          [
            { hits: q.vector, ...q.vectorMoments, scoreOf: q.vectorScoreOf },
            { hits: q.keyword, ...q.keywordMoments },
          ],
          [w, 1],
        ).map((f) => f.doc),
    ]);
  }
  return out;
}

const { embedder, floor } = args();
const qs = await questions(embedder, floor);
const hitsOf = (fusion: Fusion): number[] =>
  qs.map((q) =>
    fusion(q)
      .slice(0, TOP)
      .some((d) => q.gold.has(d))
      ? 1
      : 0,
  );
const all = variants().map(([name, fusion]) => [name, hitsOf(fusion)] as const);
const keyword = all[0]![1];
const vector = all[1]![1];
const better = mean(vector) > mean(keyword) ? vector : keyword;
const convs = [...new Set(qs.map((q) => q.conv))];
console.log(
  `${embedder.id}: ${qs.length} questions (categories 1–4), AnyHit@${TOP}, candidates ${DEPTH} per route; paired against ${better === keyword ? "keyword" : "vector"}-only`,
);
console.log("| fusion | AnyHit@5 | − better route [95 % CI] | ratio [95 % CI] | conversations up / down |");
console.log("|---|--:|--:|--:|--:|");
for (const [name, hits] of all) {
  const c = pairedBootstrap(better, hits);
  let up = 0;
  let down = 0;
  for (const conv of convs) {
    const idx = qs.flatMap((q, i) => (q.conv === conv ? [i] : []));
    const d = mean(idx.map((i) => hits[i]!)) - mean(idx.map((i) => better[i]!));
    if (d > 1e-12) up++;
    else if (d < -1e-12) down++;
  }
  const p = (v: number): string => `${v >= 0 ? "+" : "−"}${Math.abs(100 * v).toFixed(1)}`;
  console.log(
    `| ${name} | ${(100 * c.b).toFixed(1)} | ${p(c.diff)} [${p(c.diffLow)}, ${p(c.diffHigh)}] | ${c.ratio.toFixed(3)} [${c.ratioLow.toFixed(3)}, ${c.ratioHigh.toFixed(3)}] | ${up} / ${down} |`,
  );
}
