// The offline default embedder: tokens and sub-word grams hashed into a fixed number of signed buckets.

import { MoomemError } from "../errors.ts";
import { forEachToken } from "../text/tokenizer.ts";
import type { Embedder } from "../types.ts";

/** Options of {@link HashingEmbedder}. */
export interface HashingEmbedderOptions {
  /** Number of dimensions (buckets), an integer in 8..4096. Default 256. */
  dim?: number;
}

const DEFAULT_DIM = 256;
const MIN_DIM = 8;
const MAX_DIM = 4096;

/**
 * Weight of one sub-word feature (a character 3-gram of a word, one character of a CJK run) relative
 * to a whole token. Sub-words let "peanut" and "peanuts" land close, and since a long word has many
 * 3-grams they also stand in for the idf a stateless embedder lacks: "the" weighs less than
 * "allergic". Chosen on LoCoMo dev (vector-only AnyHit@5 20.0 % with no sub-words, 28.8 % at 0.5,
 * 32.8 % at 2); differences past that were within noise.
 */
const SUBWORD_WEIGHT = 2;

/** Words shorter than this get no 3-grams: mostly function words (LoCoMo dev hybrid AnyHit@5 +2 points). */
const MIN_GRAM_WORD_CHARS = 4;

const HAS_LETTER = /\p{L}/u;

// Distinct seeds keep the token "cat" and the 3-gram "cat" apart.
const TOKEN_SEED = 0x746f6b31;
const SUBWORD_SEED = 0x73756231;

/**
 * Feature hashing ("the hashing trick", Weinberger et al., 2009) over the shared tokenizer's output.
 *
 * Features: every token of `tokenize()` except the segmenter's CJK dictionary words (ICU versions
 * disagree on those, and a vector stored by one runtime must match a query embedded by another), plus
 * sub-words: 3-grams of each word of ≥ 4 characters with a letter, between `<` `>` boundary marks, and each character of a
 * CJK run. Each feature adds ±weight·√tf to one bucket (bucket and sign from a 32-bit FNV-1a hash with
 * a murmur3 finaliser); the vector is then L2-normalised. √ rather than 1 + ln(tf) because IEEE 754
 * requires `Math.sqrt` to be exact while `Math.log` may differ in its last bit between engines: the same
 * text gives the same bits on Node, Bun, Deno and browsers. A text without tokens gives the zero vector.
 *
 * @example
 * ```ts
 * const embedder = new HashingEmbedder({ dim: 256 });
 * const [a, b] = await embedder.embed(["I'm allergic to peanuts", "peanut allergy"]);
 * ```
 */
export class HashingEmbedder implements Embedder {
  readonly dim: number;
  readonly id: string;

  constructor(options?: HashingEmbedderOptions) {
    const dim = options?.dim ?? DEFAULT_DIM;
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim < MIN_DIM || dim > MAX_DIM) {
      throw new MoomemError(
        "INVALID_ARGUMENT",
        `HashingEmbedder: dim must be an integer in ${MIN_DIM}..${MAX_DIM}, got ${String(dim)}; omit it for the default ${DEFAULT_DIM}.`,
      );
    }
    this.dim = dim;
    this.id = `hashing-v1/${dim}`;
  }

  /** Embeds each text; one unit-length (or zero) vector of length `dim` per text. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!Array.isArray(texts)) {
      throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: texts must be an array of strings, got ${typeof texts}.`);
    }
    return texts.map((text, i) => {
      if (typeof text !== "string") {
        throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: texts[${i}] must be a string, got ${typeof text}.`);
      }
      return this.embedOne(text);
    });
  }

  /** Synchronous form of {@link embed} for one text. */
  embedOne(text: string): Float32Array {
    if (typeof text !== "string") {
      throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embedOne: text must be a string, got ${typeof text}.`);
    }
    const tokens = new Map<string, number>();
    const subwords = new Map<string, number>();
    forEachToken(text, (token, kind) => {
      if (kind === "cjk-word") return;
      if (kind === "cjk-char") {
        count(subwords, token);
        return;
      }
      count(tokens, token);
      if (kind !== "word") return;
      const chars = Array.from(token);
      if (chars.length < MIN_GRAM_WORD_CHARS || !HAS_LETTER.test(token)) return;
      chars.unshift("<");
      chars.push(">");
      for (let i = 0; i + 3 <= chars.length; i++) count(subwords, (chars[i] as string) + (chars[i + 1] as string) + (chars[i + 2] as string));
    });
    const sums = new Float64Array(this.dim);
    addFeatures(sums, tokens, TOKEN_SEED, 1);
    addFeatures(sums, subwords, SUBWORD_SEED, SUBWORD_WEIGHT);
    let squares = 0;
    for (let i = 0; i < sums.length; i++) squares += (sums[i] as number) * (sums[i] as number);
    const vector = new Float32Array(this.dim);
    if (squares === 0) return vector;
    const norm = Math.sqrt(squares);
    for (let i = 0; i < sums.length; i++) vector[i] = (sums[i] as number) / norm;
    return vector;
  }
}

function count(counts: Map<string, number>, feature: string): void {
  counts.set(feature, (counts.get(feature) ?? 0) + 1);
}

function addFeatures(sums: Float64Array, counts: Map<string, number>, seed: number, weight: number): void {
  const dim = sums.length;
  for (const [feature, tf] of counts) {
    const hash = hashString(feature, seed);
    const bucket = hash % dim;
    const value = weight * Math.sqrt(tf);
    sums[bucket] = (sums[bucket] as number) + (hash & 0x80000000 ? -value : value);
  }
}

/**
 * 32-bit FNV-1a over the UTF-16 code units of `text`, started from `seed`, then murmur3's fmix32 so
 * that the low bits (the bucket) and the top bit (the sign) are both well mixed. Unsigned result.
 */
export function hashString(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
