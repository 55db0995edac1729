// The default, offline conflict judge: slot keys first, then similarity thresholds.

import type { ConflictJudge, ExtractedFact, MemoryEntry, Verdict } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { cosine, dotAt } from "../embedding/vector-math.ts";
import { forEachToken, normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { BoundedMemo } from "../text/bounded-memo.ts";
import { hashString } from "../text/string-hash.ts";
import { AnchorComparer } from "./fact-anchors.ts";
import type { LanguageTable } from "./language-table.ts";
import { DEFAULT_LANGUAGES } from "./patterns/default-languages.ts";

/** Width of the "coexist" band below the replace threshold. */
const COEXIST_BAND = 0.15;

/** Token sets kept per judge: at least this many texts, at most twice as many (about 150 bytes each). */
const TOKEN_CACHE_SIZE = 16_384;

/** A candidate as the store hands it to judges: the public entry plus its vector when it has one. */
export type JudgeCandidate = MemoryEntry & { embedding?: Float32Array };

/**
 * Decides without a model:
 * - same `key` (e.g. `home_city`) with different content → replace;
 * - different keys → at most coexist (two slots never replace each other);
 * - otherwise sim = max(cosine of vectors, keyword Jaccard): ≥ threshold →
 *   replace, within 0.15 below → coexist, else ignore;
 * - but never replace by similarity when one fact says everything the other does and more
 *   ("my birthday is in May" / "my wife's birthday is in May"): the extra word is usually whose or
 *   which, another slot, not a new value. Such a pair can at most coexist. On the look-alike pairs of
 *   `npm run eval:conflict` without keys this cut false supersedes from 16.7 % to 2.4 % and changed no
 *   supersede of a real change (docs/eval/conflict.md);
 * - and never replace by similarity two facts that differ in a number, an identifier, a name, a date,
 *   a negation or whose they are ("My order #1234 / #5678 shipped today", "my son / daughter plays
 *   football"): they are different facts, which at most coexist. Templated memories that differ only
 *   in their variables are the common case (30,000 of them: 29,400 superseded before this rule, see
 *   bench/templated.bench.ts). The words come from the language tables (`languages`, default English
 *   and Chinese; see `fact-anchors.ts`).
 *
 * It remembers each vector's norm by the vector object: hand it vectors that are not edited afterwards
 * (the store's are never edited).
 *
 * @example
 * ```ts
 * const mem = await MemoryStore.open(":memory:", { judge: new SimilarityJudge({ threshold: 0.9 }) });
 * ```
 */
export class SimilarityJudge implements ConflictJudge {
  readonly name: string = "similarity";
  readonly threshold: number;
  /** Token sets of recent texts: the same neighbours come up as candidates add after add. */
  readonly #fingerprints = new BoundedMemo<number[]>(TOKEN_CACHE_SIZE, tokenFingerprints);
  /**
   * Content-feature sets of recent texts, for {@link oneContainsTheOther}: without them each similar
   * candidate was tokenized again per add, and those misses pushed the add's own text out of the
   * tokenizer's memo before it was indexed.
   */
  readonly #features = new BoundedMemo<number[]>(TOKEN_CACHE_SIZE, contentFingerprints);
  /**
   * `dot(v, v)` of the vectors judged so far: the store hands the same immutable record vectors add
   * after add. (So a caller that edits a vector in place after judging it must hand the judge a copy.)
   */
  readonly #selfDots = new WeakMap<Float32Array, number>();
  readonly #anchors: AnchorComparer;

  constructor(options: { threshold?: number; languages?: readonly LanguageTable[] } = {}) {
    const threshold = options.threshold ?? 0.82;
    if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
      throw invalidArgument(`SimilarityJudge threshold must be a number in (0, 1], got ${String(threshold)}`);
    }
    this.threshold = threshold;
    this.#anchors = new AnchorComparer(options.languages ?? DEFAULT_LANGUAGES);
  }

  judge(fact: ExtractedFact & { embedding?: Float32Array }, candidates: JudgeCandidate[]): Promise<Verdict[]> {
    const prepared = this.#prepare(fact);
    return Promise.resolve(candidates.map((c) => this.#judgeOne(prepared, c)));
  }

  judgeOne(fact: ExtractedFact & { embedding?: Float32Array }, candidate: JudgeCandidate): Verdict {
    return this.#judgeOne(this.#prepare(fact), candidate);
  }

  similarity(fact: ExtractedFact & { embedding?: Float32Array }, candidate: JudgeCandidate): number {
    return this.#similarity(this.#prepare(fact), candidate, Number.NEGATIVE_INFINITY);
  }

  /** What every candidate of one fact needs from it, computed once per `judge` call. */
  #prepare(fact: ExtractedFact & { embedding?: Float32Array }): PreparedFact {
    let vector: SparseVector | null = null;
    if (fact.embedding !== undefined) {
      vector = new SparseVector(fact.embedding);
      // The store keeps this very vector with the new entry, which is a candidate of later adds.
      this.#selfDots.set(fact.embedding, vector.selfDot);
    }
    return { fact, vector, tokens: this.#fingerprints.get(fact.content) };
  }

  #judgeOne(prepared: PreparedFact, candidate: JudgeCandidate): Verdict {
    const fact = prepared.fact;
    if (fact.key !== undefined && candidate.key !== undefined) {
      if (fact.key === candidate.key) {
        if (normalizeForDedup(fact.content) === normalizeForDedup(candidate.content))
          return { id: candidate.id, decision: "ignore", reason: `same value for key "${fact.key}"` };
        return { id: candidate.id, decision: "replace", reason: `new value for key "${fact.key}"` };
      }
    }
    // Below the coexist band every similarity means "ignore", so there it need not be exact.
    const sim = this.#similarity(prepared, candidate, this.threshold - COEXIST_BAND);
    const differentKeys = fact.key !== undefined && candidate.key !== undefined && fact.key !== candidate.key;
    if (sim >= this.threshold && !differentKeys && !oneContainsTheOther(this.#features.get(fact.content), this.#features.get(candidate.content))) {
      const differ = this.#anchors.difference(fact.content, candidate.content);
      if (differ.length > 0)
        return { id: candidate.id, decision: "coexist", reason: `similarity ${sim.toFixed(3)} ≥ ${this.threshold}, but they differ in ${differ.join(", ")}` };
      return { id: candidate.id, decision: "replace", reason: `similarity ${sim.toFixed(3)} ≥ ${this.threshold}` };
    }
    if (sim >= this.threshold - COEXIST_BAND) {
      return { id: candidate.id, decision: "coexist", reason: `similarity ${sim.toFixed(3)} close to ${this.threshold}` };
    }
    return { id: candidate.id, decision: "ignore" };
  }

  /**
   * max(cosine, Jaccard) exactly; or, when that is surely below `floor`, some number below `floor`.
   * Jaccard is at most min(|x|, |y|) / max(|x|, |y|) of the two token sets, and stays so after rounding
   * (a correctly rounded division is monotone), so the merge is skipped when that bound cannot win.
   */
  #similarity(prepared: PreparedFact, candidate: JudgeCandidate, floor: number): number {
    const a = prepared.vector;
    const b = candidate.embedding;
    const vectorSim = a !== null && b !== undefined && a.dim === b.length ? this.#cosine(a, b) : 0;
    const x = prepared.tokens;
    const y = this.#fingerprints.get(candidate.content);
    // NaN when both sets are empty, and NaN compares false: the merge answers 0 then.
    const bound = x.length < y.length ? x.length / y.length : y.length / x.length;
    // Strictly below: vectorSim > bound ≥ 0 is then positive, so no ±0 question for Math.max. Past that
    // test vectorSim ≤ bound (or NaN, which is the answer): under a `bound` below `floor` it is too.
    if (bound < vectorSim || bound < floor) return vectorSim;
    return Math.max(vectorSim, jaccardOfFingerprints(x, y));
  }

  /** Bit for bit `cosine(fact vector, b)`, in time proportional to the fact's non-zero components. */
  #cosine(a: SparseVector, b: Float32Array): number {
    let bb = this.#selfDots.get(b);
    if (bb === undefined) {
      bb = dotAt(b, 0, b, b.length);
      this.#selfDots.set(b, bb);
    }
    // A non-finite component of b makes 0 · b[i] NaN where the fact is zero, which the sparse sum skips.
    if (!Number.isFinite(bb)) return cosine(a.vector, b);
    const normProduct = Math.sqrt(a.selfDot * bb);
    return normProduct === 0 ? 0 : a.dot(b) / normProduct;
  }
}

/**
 * A fact's vector prepared for dot products against many candidates: its non-zero components only,
 * grouped by the partial sum {@link dotAt} adds them to (index mod 4, the tail after the last full
 * group of four in sum 0), ascending within each group, so every partial sum sees the same non-zero
 * products in the same order as in `dotAt`.
 *
 * Why leaving the zero components out changes no bit: where the fact is ±0 and the candidate finite, the
 * product is ±0. A partial sum starts at +0 and can never become -0 (in round-to-nearest, x + y is -0
 * only when both are -0; an exact cancellation gives +0), so before each such product it is +0, non-zero,
 * ±Infinity or NaN, and adding ±0 to any of these leaves it as it was (+0 + -0 is +0). The four partial
 * sums are therefore the same numbers, combined the same way. A non-finite candidate component would
 * make a product NaN; {@link SimilarityJudge} sends those candidates to the full `cosine`.
 */
class SparseVector {
  readonly vector: Float32Array;
  readonly dim: number;
  /** `dot(vector, vector)`, the fact's half of the norm product. */
  readonly selfDot: number;
  // Plain arrays: a typed array this size lives outside the heap, and allocating one cost more than all
  // the dot products of a judge call together.
  readonly #index: number[] = [];
  readonly #value: number[] = [];
  /** Where each of the four groups ends in `#index` / `#value`. */
  readonly #end0: number;
  readonly #end1: number;
  readonly #end2: number;
  readonly #end3: number;

  constructor(vector: Float32Array) {
    const dim = vector.length;
    this.vector = vector;
    this.dim = dim;
    const index = this.#index;
    const value = this.#value;
    const end4 = dim - (dim % 4);
    const ends = [0, 0, 0, 0];
    for (let g = 0; g < 4; g++) {
      for (let i = g; i < end4; i += 4) {
        const x = vector[i] as number;
        // NaN !== 0: a NaN component is kept and poisons the sum as it does in dotAt.
        if (x !== 0) {
          index.push(i);
          value.push(x);
        }
      }
      if (g === 0) {
        for (let i = end4; i < dim; i++) {
          const x = vector[i] as number;
          if (x !== 0) {
            index.push(i);
            value.push(x);
          }
        }
      }
      ends[g] = index.length;
    }
    this.#end0 = ends[0] as number;
    this.#end1 = ends[1] as number;
    this.#end2 = ends[2] as number;
    this.#end3 = ends[3] as number;
    // dotAt(vector, 0, vector, dim), bit for bit: the squares left out are all +0.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let k = 0;
    for (const end = this.#end0; k < end; k++) s0 += (value[k] as number) * (value[k] as number);
    for (const end = this.#end1; k < end; k++) s1 += (value[k] as number) * (value[k] as number);
    for (const end = this.#end2; k < end; k++) s2 += (value[k] as number) * (value[k] as number);
    for (const end = this.#end3; k < end; k++) s3 += (value[k] as number) * (value[k] as number);
    this.selfDot = s0 + s1 + (s2 + s3);
  }

  /** `dotAt(vector, 0, b, dim)`, bit for bit, for a `b` of length `dim` with finite components. */
  dot(b: Float32Array): number {
    const index = this.#index;
    const value = this.#value;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let k = 0;
    for (const end = this.#end0; k < end; k++) s0 += (value[k] as number) * (b[index[k] as number] as number);
    for (const end = this.#end1; k < end; k++) s1 += (value[k] as number) * (b[index[k] as number] as number);
    for (const end = this.#end2; k < end; k++) s2 += (value[k] as number) * (b[index[k] as number] as number);
    for (const end = this.#end3; k < end; k++) s3 += (value[k] as number) * (b[index[k] as number] as number);
    return s0 + s1 + (s2 + s3);
  }
}

/** The fact's side of every comparison in one `judge` call. */
interface PreparedFact {
  fact: ExtractedFact;
  vector: SparseVector | null;
  /** Token fingerprints of the fact's content. */
  tokens: number[];
}

/** `jaccard(tokenize(a), tokenize(b))` from the two texts' token fingerprints, by one merge. */
function jaccardOfFingerprints(x: number[], y: number[]): number {
  if (x.length === 0 && y.length === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < x.length && j < y.length;) {
    const u = x[i] as number;
    const v = y[j] as number;
    if (u === v) shared++;
    if (u <= v) i++;
    if (u >= v) j++;
  }
  return shared / (x.length + y.length - shared);
}

/**
 * A text's distinct tokens as sorted 53-bit fingerprints (two 32-bit hashes): the sets are intersected
 * by one merge, and a cached set costs 8 bytes a token instead of a `Set` of strings. Two different
 * tokens share a fingerprint with probability about 2^-53, far below anything a threshold can notice.
 */
function tokenFingerprints(text: string): number[] {
  const out: number[] = [];
  for (const token of new Set(tokenize(text))) out.push(fingerprint(token));
  return out.sort(ascending);
}

/** A token's 53-bit fingerprint: two 32-bit hashes, 21 bits of one above 32 of the other. */
function fingerprint(token: string): number {
  return (hashString(token, FINGERPRINT_SEED_HIGH) % 2 ** 21) * 2 ** 32 + hashString(token, FINGERPRINT_SEED_LOW);
}

const ascending = (a: number, b: number): number => a - b;

const FINGERPRINT_SEED_HIGH = 0x6a616331;
const FINGERPRINT_SEED_LOW = 0x6a616332;

/**
 * Content words (stop words left out) and CJK characters of a text, as a set of sorted fingerprints
 * (as {@link tokenFingerprints}: distinct features, distinct fingerprints but with probability about 2^-53).
 */
function contentFingerprints(text: string): number[] {
  const features = new Set<string>();
  forEachToken(text, (token, kind) => {
    if ((kind === "word" && !ENGLISH_STOP_WORDS.has(token)) || kind === "cjk-char") features.add(token);
  });
  const out: number[] = [];
  for (const feature of features) out.push(fingerprint(feature));
  return out.sort(ascending);
}

/** True when one text's content features ({@link contentFingerprints}) are a strict superset of the other's. */
function oneContainsTheOther(x: readonly number[], y: readonly number[]): boolean {
  if (x.length === y.length) return false;
  const [small, large] = x.length < y.length ? [x, y] : [y, x];
  if (small.length === 0) return false;
  // Both sorted: one merge finds whether every fingerprint of the smaller set is in the larger.
  let j = 0;
  for (const f of small) {
    while (j < large.length && (large[j] as number) < f) j++;
    if (j === large.length || large[j] !== f) return false;
    j++;
  }
  return true;
}
