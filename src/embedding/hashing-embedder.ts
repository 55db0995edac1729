// The offline default embedder: tokens and sub-word grams hashed into a fixed number of signed buckets.

import { MoomemError, describeError } from "../errors.ts";
import { describeValue } from "../describe-value.ts";
import { forEachToken } from "../text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { BoundedMemo } from "../text/bounded-memo.ts";
import { hashRange, hashString } from "../text/string-hash.ts";
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

/**
 * Words shorter than this get no 3-grams. v1 used 4, to keep function words from weighing in through
 * their grams; v2 gives stop words no grams at all, so 3-letter content words ("art", "dog") can have
 * them: LoCoMo dev vector-only AnyHit@5 30.8 → 38.4 % for the two together (docs/eval/tuning.md).
 */
const MIN_GRAM_WORD_CHARS = 3;

const HAS_LETTER = /\p{L}/u;

// Distinct seeds keep the token "cat" and the 3-gram "cat" apart.
const TOKEN_SEED = 0x746f6b31;
const SUBWORD_SEED = 0x73756231;

/**
 * Feature hashing ("the hashing trick", Weinberger et al., 2009) over the shared tokenizer's output.
 *
 * Features: every token of `tokenize()` except the segmenter's CJK dictionary words (ICU versions
 * disagree on those, and a vector stored by one runtime must match a query embedded by another), plus
 * sub-words: 3-grams of each word of ≥ 3 characters with a letter that is not a stop word
 * ({@link ENGLISH_STOP_WORDS}), between `<` `>` boundary marks, and each character of a
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
  /** Its vectors see the words BM25 sees: recall gives them a small vote (see `Embedder.kind`). */
  readonly kind = "lexical" as const;
  readonly #tokens = new FeatureCounts();
  readonly #subwords = new FeatureCounts();
  /** Bucket sums, reused and cleared after each text (only the vector is new per call). */
  readonly #sums: Float64Array;

  constructor(options?: HashingEmbedderOptions) {
    let dim: unknown;
    try {
      dim = options?.dim ?? DEFAULT_DIM;
    } catch (error) {
      throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder: reading options.dim threw (${describeError(error)}); pass { dim: 256 } or nothing.`, {
        cause: error,
      });
    }
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim < MIN_DIM || dim > MAX_DIM) {
      throw new MoomemError(
        "INVALID_ARGUMENT",
        `HashingEmbedder: dim must be an integer in ${MIN_DIM}..${MAX_DIM}, got ${describeValue(dim)}; omit it for the default ${DEFAULT_DIM}.`,
      );
    }
    this.dim = dim;
    this.#sums = new Float64Array(dim);
    // v2: stemmed words (tokenizer), no sub-words for stop words, 3-grams from 3-letter words on.
    this.id = `hashing-v2/${dim}`;
  }

  /** Embeds each text; one unit-length (or zero) vector of length `dim` per text. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    let strings: string[];
    try {
      strings = checkTexts(texts);
    } catch (error) {
      if (error instanceof MoomemError) throw error;
      throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: reading texts threw (${describeError(error)}); pass an array of strings.`, {
        cause: error,
      });
    }
    return strings.map((text) => this.embedOne(text));
  }

  /** Synchronous form of {@link embed} for one text. */
  embedOne(text: string): Float32Array {
    if (typeof text !== "string") {
      throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embedOne: text must be a string, got ${describeValue(text)}.`);
    }
    // Features are counted by their 32-bit hash (equal strings, equal hash) in a reusable typed-array
    // table: no substring is built for the many 3-grams and no Map entry allocated, which keeps
    // embedding close to the cost of tokenizing.
    const tokens = this.#tokens.clear();
    const subwords = this.#subwords.clear();
    forEachToken(text, (token, kind) => {
      if (kind === "cjk-word") return;
      if (kind === "cjk-char") {
        subwords.add(hashString(token, SUBWORD_SEED));
        return;
      }
      if (kind !== "word") {
        tokens.add(hashString(token, TOKEN_SEED));
        return;
      }
      const features = wordHashes.get(token);
      tokens.add(features[0] as number);
      for (let i = 1; i < features.length; i++) subwords.add(features[i] as number);
    });
    const sums = this.#sums;
    tokens.addTo(sums, 1);
    subwords.addTo(sums, SUBWORD_WEIGHT);
    let squares = 0;
    for (let i = 0; i < sums.length; i++) squares += (sums[i] as number) * (sums[i] as number);
    const vector = new Float32Array(this.dim);
    if (squares !== 0) {
      const norm = Math.sqrt(squares);
      for (let i = 0; i < sums.length; i++) vector[i] = (sums[i] as number) / norm;
    }
    sums.fill(0);
    return vector;
  }
}

/** Most texts one `embed` call takes: far more than any batch, few enough that a sparse array cannot hang the walk. */
const MAX_TEXTS = 1_000_000;

/** The texts of one `embed` call, each read once and checked to be a string. */
function checkTexts(texts: unknown): string[] {
  if (!Array.isArray(texts))
    throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: texts must be an array of strings, got ${describeValue(texts)}.`);
  if (texts.length > MAX_TEXTS)
    throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: ${texts.length} texts in one call; the limit is ${MAX_TEXTS}.`);
  const out: string[] = [];
  for (let i = 0; i < texts.length; i++) {
    const text: unknown = texts[i];
    if (typeof text !== "string") throw new MoomemError("INVALID_ARGUMENT", `HashingEmbedder.embed: texts[${i}] must be a string, got ${describeValue(text)}.`);
    out.push(text);
  }
  return out;
}

/**
 * Term frequencies keyed by feature hash: an open-addressing table in typed arrays, cleared (not
 * reallocated) between texts, that remembers first-seen order so the bucket sums are always added up
 * in the same order.
 */
class FeatureCounts {
  #keys = new Uint32Array(256);
  #counts = new Uint32Array(256);
  #order = new Int32Array(128);
  #size = 0;

  clear(): this {
    for (let i = 0; i < this.#size; i++) this.#counts[this.#order[i] as number] = 0;
    this.#size = 0;
    return this;
  }

  add(hash: number): void {
    let slot = this.#slotOf(hash);
    const c = this.#counts[slot] as number;
    if (c !== 0) {
      this.#counts[slot] = c + 1;
      return;
    }
    if (this.#size === this.#order.length) {
      this.#grow();
      slot = this.#slotOf(hash);
    }
    this.#keys[slot] = hash;
    this.#counts[slot] = 1;
    this.#order[this.#size++] = slot;
  }

  /** The slot holding `hash`, or the empty slot where it would go (the table is at most half full). */
  #slotOf(hash: number): number {
    const mask = this.#keys.length - 1;
    let slot = hash & mask;
    while (this.#counts[slot] !== 0 && this.#keys[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  /** Adds ±weight·√tf of every feature to its bucket, in first-seen order. */
  addTo(sums: Float64Array, weight: number): void {
    const dim = sums.length;
    for (let i = 0; i < this.#size; i++) {
      const slot = this.#order[i] as number;
      const hash = this.#keys[slot] as number;
      const bucket = hash % dim;
      const value = weight * Math.sqrt(this.#counts[slot] as number);
      sums[bucket] = (sums[bucket] as number) + (hash & 0x80000000 ? -value : value);
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const counts = this.#counts;
    const order = this.#order;
    this.#keys = new Uint32Array(keys.length * 2);
    this.#counts = new Uint32Array(keys.length * 2);
    this.#order = new Int32Array(keys.length);
    for (let i = 0; i < this.#size; i++) {
      const old = order[i] as number;
      const slot = this.#slotOf(keys[old] as number);
      this.#keys[slot] = keys[old] as number;
      this.#counts[slot] = counts[old] as number;
      this.#order[i] = slot;
    }
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * A word's token hash followed by the hashes of its 3-grams (none for a stop word). Words repeat
 * (Zipf): remembering their feature hashes makes embedding about twice as fast.
 */
const wordHashes = new BoundedMemo<Uint32Array>(50_000, (word) => {
  const hashes = [hashString(word, TOKEN_SEED)];
  // A stop word is one feature: its grams would let "what" or "have" outweigh a topic word.
  if (!ENGLISH_STOP_WORDS.has(word)) trigramHashes(word, hashes);
  return Uint32Array.from(hashes);
});

/** Appends the hashes of the 3-grams of `<word>` when the word has ≥ {@link MIN_GRAM_WORD_CHARS} characters and a letter. */
function trigramHashes(word: string, out: number[]): void {
  if (word.length < MIN_GRAM_WORD_CHARS || !HAS_LETTER.test(word)) return;
  if (SURROGATE.test(word)) {
    // Characters outside the BMP: grams of code points, not of UTF-16 units.
    const chars = Array.from(`<${word}>`);
    if (chars.length - 2 < MIN_GRAM_WORD_CHARS) return;
    for (let i = 0; i + 3 <= chars.length; i++) {
      out.push(hashString((chars[i] as string) + (chars[i + 1] as string) + (chars[i + 2] as string), SUBWORD_SEED));
    }
    return;
  }
  const padded = `<${word}>`;
  for (let i = 0; i + 3 <= padded.length; i++) out.push(hashRange(padded, i, i + 3, SUBWORD_SEED));
}
