// The default, offline conflict judge: slot keys first, then similarity thresholds.

import type { ConflictJudge, ExtractedFact, MemoryEntry, Verdict } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { cosine } from "../embedding/vector-math.ts";
import { forEachToken, normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { BoundedMemo } from "../text/bounded-memo.ts";
import { hashString } from "../embedding/hashing-embedder.ts";

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
 *   supersede of a real change (docs/eval/conflict.md).
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
  readonly #fingerprints = new BoundedMemo<Float64Array>(TOKEN_CACHE_SIZE, tokenFingerprints);

  constructor(options: { threshold?: number } = {}) {
    const threshold = options.threshold ?? 0.82;
    if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
      throw invalidArgument(`SimilarityJudge threshold must be a number in (0, 1], got ${String(threshold)}`);
    }
    this.threshold = threshold;
  }

  judge(fact: ExtractedFact & { embedding?: Float32Array }, candidates: JudgeCandidate[]): Promise<Verdict[]> {
    return Promise.resolve(candidates.map((c) => this.judgeOne(fact, c)));
  }

  judgeOne(fact: ExtractedFact & { embedding?: Float32Array }, candidate: JudgeCandidate): Verdict {
    if (fact.key !== undefined && candidate.key !== undefined) {
      if (fact.key === candidate.key) {
        if (normalizeForDedup(fact.content) === normalizeForDedup(candidate.content)) return { id: candidate.id, decision: "ignore", reason: `same value for key "${fact.key}"` };
        return { id: candidate.id, decision: "replace", reason: `new value for key "${fact.key}"` };
      }
    }
    const sim = this.similarity(fact, candidate);
    const differentKeys = fact.key !== undefined && candidate.key !== undefined && fact.key !== candidate.key;
    if (sim >= this.threshold && !differentKeys && !oneContainsTheOther(fact.content, candidate.content)) {
      return { id: candidate.id, decision: "replace", reason: `similarity ${sim.toFixed(3)} ≥ ${this.threshold}` };
    }
    if (sim >= this.threshold - COEXIST_BAND) {
      return { id: candidate.id, decision: "coexist", reason: `similarity ${sim.toFixed(3)} close to ${this.threshold}` };
    }
    return { id: candidate.id, decision: "ignore" };
  }

  similarity(fact: ExtractedFact & { embedding?: Float32Array }, candidate: JudgeCandidate): number {
    const vectorSim =
      fact.embedding !== undefined && candidate.embedding !== undefined && fact.embedding.length === candidate.embedding.length
        ? cosine(fact.embedding, candidate.embedding)
        : 0;
    return Math.max(vectorSim, this.#jaccard(fact.content, candidate.content));
  }

  /** `jaccard(tokenize(a), tokenize(b))`, on remembered token fingerprints. */
  #jaccard(a: string, b: string): number {
    const x = this.#fingerprints.get(a);
    const y = this.#fingerprints.get(b);
    if (x.length === 0 && y.length === 0) return 0;
    let shared = 0;
    for (let i = 0, j = 0; i < x.length && j < y.length; ) {
      const u = x[i] as number;
      const v = y[j] as number;
      if (u === v) shared++;
      if (u <= v) i++;
      if (u >= v) j++;
    }
    return shared / (x.length + y.length - shared);
  }
}

/**
 * A text's distinct tokens as sorted 53-bit fingerprints (two 32-bit hashes): the sets are intersected
 * by one merge, and a cached set costs 8 bytes a token instead of a `Set` of strings. Two different
 * tokens share a fingerprint with probability about 2^-53, far below anything a threshold can notice.
 */
function tokenFingerprints(text: string): Float64Array {
  const seen = new Set(tokenize(text));
  const out = new Float64Array(seen.size);
  let i = 0;
  for (const token of seen) out[i++] = (hashString(token, FINGERPRINT_SEED_HIGH) % 2 ** 21) * 2 ** 32 + hashString(token, FINGERPRINT_SEED_LOW);
  return out.sort();
}

const FINGERPRINT_SEED_HIGH = 0x6a616331;
const FINGERPRINT_SEED_LOW = 0x6a616332;

/** Content words (stop words left out) and CJK characters of a text, as a set. */
function contentFeatures(text: string): Set<string> {
  const out = new Set<string>();
  forEachToken(text, (token, kind) => {
    if ((kind === "word" && !ENGLISH_STOP_WORDS.has(token)) || kind === "cjk-char") out.add(token);
  });
  return out;
}

/** True when one text's content features are a strict superset of the other's. */
function oneContainsTheOther(a: string, b: string): boolean {
  const x = contentFeatures(a);
  const y = contentFeatures(b);
  if (x.size === y.size) return false;
  const [small, large] = x.size < y.size ? [x, y] : [y, x];
  if (small.size === 0) return false;
  for (const f of small) if (!large.has(f)) return false;
  return true;
}
