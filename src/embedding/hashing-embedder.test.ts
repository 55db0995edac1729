// Tests of the offline HashingEmbedder and the vector helpers it is used with.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { HashingEmbedder } from "./hashing-embedder.ts";
import { hashString } from "../text/string-hash.ts";
import { checkVector, cosine, dot, normalize } from "./vector-math.ts";
import { forEachToken } from "../text/tokenizer.ts";
import { MoomemError } from "../errors.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";

function norm(v: Float32Array): number {
  return Math.sqrt(dot(v, v));
}

function expectInvalidArgument(run: () => unknown): void {
  throwsWith(run, "INVALID_ARGUMENT");
}

describe("HashingEmbedder: construction", () => {
  it("defaults to 256 dimensions and names its space", () => {
    const embedder = new HashingEmbedder();
    expect(embedder.dim).toBe(256);
    expect(embedder.id).toBe("hashing-v2/256");
    expect(new HashingEmbedder({ dim: 64 }).id).toBe("hashing-v2/64");
  });

  it("accepts the bounds 8 and 4096", () => {
    expect(new HashingEmbedder({ dim: 8 }).dim).toBe(8);
    expect(new HashingEmbedder({ dim: 4096 }).dim).toBe(4096);
  });

  it("rejects a dim that is not an integer in 8..4096, naming the value", () => {
    for (const dim of [7, 4097, 0, -256, 8.5, Number.NaN, "256" as unknown as number]) {
      expectInvalidArgument(() => new HashingEmbedder({ dim }));
    }
    expect(() => new HashingEmbedder({ dim: 7 })).toThrow(/got 7/);
  });
});

describe("HashingEmbedder: vectors", () => {
  const embedder = new HashingEmbedder();

  it("returns unit-length vectors of length dim", () => {
    for (const text of ["I'm allergic to peanuts", "我对花生过敏", "x", "3.14"]) {
      const v = embedder.embedOne(text);
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(256);
      expect(norm(v)).toBeCloseTo(1, 6);
    }
  });

  it("returns the zero vector for a text without tokens", () => {
    for (const text of ["", "   ", "?!…"]) {
      const v = embedder.embedOne(text);
      expect(v.length).toBe(256);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it("is deterministic across calls and instances", () => {
    const a = embedder.embedOne("We adopted a puppy last week");
    const b = new HashingEmbedder().embedOne("We adopted a puppy last week");
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it("puts related texts closer than unrelated ones", () => {
    const e = (text: string): Float32Array => embedder.embedOne(text);
    const allergy = e("I'm allergic to peanuts");
    expect(cosine(allergy, e("peanut allergy"))).toBeGreaterThan(cosine(allergy, e("I love hiking in the mountains")) + 0.3);
    const chinese = e("我对花生过敏");
    expect(cosine(chinese, e("花生过敏"))).toBeGreaterThan(cosine(chinese, e("今天天气很好")) + 0.3);
    const city = e("I live in Paris");
    expect(cosine(city, e("I moved to Paris last year"))).toBeGreaterThan(cosine(city, e("my cat is called Tom")));
  });

  it("lets inflected forms meet through 3-grams", () => {
    expect(cosine(embedder.embedOne("peanuts"), embedder.embedOne("peanut"))).toBeGreaterThan(0.5);
  });

  it("embed() equals embedOne() per text, in order", async () => {
    const texts = ["first text", "", "第二个"];
    const vectors = await embedder.embed(texts);
    expect(vectors.length).toBe(3);
    for (let i = 0; i < texts.length; i++) expect(Array.from(vectors[i] as Float32Array)).toEqual(Array.from(embedder.embedOne(texts[i] as string)));
    expect(await embedder.embed([])).toEqual([]);
  });

  it("embed() rejects (does not throw synchronously) on bad input", async () => {
    const notArray = embedder.embed("text" as unknown as string[]);
    await expect(notArray).rejects.toBeInstanceOf(MoomemError);
    await expect(embedder.embed(["ok", 42 as unknown as string])).rejects.toThrow(/texts\[1\] must be a string/);
    expectInvalidArgument(() => embedder.embedOne(null as unknown as string));
  });

  it("gives a unit or zero vector for any text, and similarity 1 with itself", () => {
    const small = new HashingEmbedder({ dim: 32 });
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), (text) => {
        const v = small.embedOne(text);
        const n = norm(v);
        if (n === 0) return;
        expect(n).toBeCloseTo(1, 5);
        expect(cosine(v, small.embedOne(text))).toBeCloseTo(1, 5);
      }),
    );
  });
});

/** The embedder's definition written plainly (string features in Maps), to hold the fast code to. */
function referenceEmbedding(text: string, dim: number): Float32Array {
  const tokens = new Map<string, number>();
  const subwords = new Map<string, number>();
  const inc = (counts: Map<string, number>, feature: string): void => {
    counts.set(feature, (counts.get(feature) ?? 0) + 1);
  };
  forEachToken(text, (token, kind) => {
    if (kind === "cjk-word") return;
    if (kind === "cjk-char") return inc(subwords, token);
    inc(tokens, token);
    const chars = Array.from(token);
    if (kind !== "word" || ENGLISH_STOP_WORDS.has(token) || chars.length < 3 || !/\p{L}/u.test(token)) return;
    const padded = ["<", ...chars, ">"];
    for (let i = 0; i + 3 <= padded.length; i++) inc(subwords, padded.slice(i, i + 3).join(""));
  });
  const sums = new Float64Array(dim);
  const add = (counts: Map<string, number>, seed: number, weight: number): void => {
    for (const [feature, tf] of counts) {
      const hash = hashString(feature, seed);
      const value = weight * Math.sqrt(tf);
      sums[hash % dim] = (sums[hash % dim] as number) + (hash >= 2 ** 31 ? -value : value);
    }
  };
  add(tokens, 0x746f6b31, 1);
  add(subwords, 0x73756231, 2);
  let squares = 0;
  for (const x of sums) squares += x * x;
  const out = new Float32Array(dim);
  if (squares > 0) for (let i = 0; i < dim; i++) out[i] = (sums[i] as number) / Math.sqrt(squares);
  return out;
}

describe("HashingEmbedder: definition", () => {
  it("equals the plain reference for any text, short or long (hundreds of distinct features)", () => {
    // Few letters: features repeat (tf > 1) while their number still passes the table's first sizes.
    const word = fc.oneof(
      fc.stringMatching(/^[a-f]{1,7}$/),
      fc.constantFrom("我对花生过敏", "カタカナ", "𠀀𠀁", "café", "3.14", "don't", "naïve", "😀", "Ωmega"),
    );
    const embedder = new HashingEmbedder({ dim: 64 });
    fc.assert(
      fc.property(fc.array(word, { maxLength: 400, size: "max" }), (words) => {
        const text = words.join(" ");
        expect(Array.from(embedder.embedOne(text))).toEqual(Array.from(referenceEmbedding(text, 64)));
      }),
      { numRuns: 25 },
    );
  });
});

describe("HashingEmbedder: pinned output (catches drift between runtimes and releases)", () => {
  // Changing any of these numbers changes every stored vector: bump the id (hashing-v2) instead.
  it("hashes strings with FNV-1a + fmix32", () => {
    expect(hashString("", 0)).toBe(2872998923);
    expect(hashString("peanut", 0)).toBe(2833042383);
    expect(hashString("花生", 0x746f6b31)).toBe(2457969051);
  });

  // Re-pinned deliberately for hashing-v2 (stemmed words, stop words without 3-grams, 3-grams from 3 letters).
  it("embeds an English sentence to exact values", () => {
    expect(Array.from(new HashingEmbedder({ dim: 16 }).embedOne("I'm allergic to peanuts"))).toEqual([
      -0.3872983455657959, 0, 0.25819888710975647, -0.12909944355487823, -0.25819888710975647, 0, 0, -0.25819888710975647, 0.64549720287323, 0,
      -0.25819888710975647, 0, -0.25819888710975647, -0.25819888710975647, 0.12909944355487823, 0,
    ]);
  });

  it("embeds a Chinese sentence to exact values (no dictionary-dependent features)", () => {
    expect(Array.from(new HashingEmbedder({ dim: 16 }).embedOne("我对花生过敏"))).toEqual([
      0.20000000298023224, 0, 0, -0.4000000059604645, 0, 0, 0.20000000298023224, -0.4000000059604645, 0.20000000298023224, 0, 0, -0.6000000238418579,
      -0.4000000059604645, 0, 0.20000000298023224, 0,
    ]);
  });

  it("places the default-dim features in the same buckets", () => {
    const v = new HashingEmbedder().embedOne("I'm allergic to peanuts");
    const nonZero: Array<[number, number]> = [];
    v.forEach((x, i) => {
      if (x !== 0) nonZero.push([i, x]);
    });
    expect(nonZero.length).toBe(14);
    expect(nonZero.slice(0, 3)).toEqual([
      [29, -0.30151134729385376],
      [32, -0.30151134729385376],
      [58, -0.30151134729385376],
    ]);
  });
});

describe("vector math", () => {
  it("dot, cosine and normalize compute what they say", () => {
    expect(dot(new Float32Array([1, 2, 3, 4, 5]), new Float32Array([5, 4, 3, 2, 1]))).toBe(35);
    expect(cosine(new Float32Array([1, 0]), new Float32Array([2, 0]))).toBe(1);
    expect(cosine(new Float32Array([1, 0]), new Float32Array([0, 3]))).toBe(0);
    expect(cosine(new Float32Array([0, 0]), new Float32Array([1, 0]))).toBe(0);
    const v = new Float32Array([3, 4]);
    expect(normalize(v)).toBe(v);
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it("dot rejects vectors of different lengths", () => {
    expectInvalidArgument(() => dot(new Float32Array(2), new Float32Array(3)));
  });

  it("checkVector says what is wrong, or null", () => {
    expect(checkVector(new Float32Array(4), 4)).toBeNull();
    expect(checkVector(new Float32Array(3), 4)).toBe("has length 3, expected 4");
    expect(checkVector([0, 0, 0, 0], 4)).toMatch(/array.*Float32Array/);
    expect(checkVector(new Float64Array(4), 4)).toMatch(/Float64Array/);
    expect(checkVector(null, 4)).toMatch(/null/);
    expect(checkVector(undefined, 4)).toMatch(/undefined/);
    expect(checkVector(new Float32Array([0, Number.NaN, 0, 0]), 4)).toMatch(/NaN.*index 1/);
    expect(checkVector(new Float32Array([0, 0, 0, Infinity]), 4)).toMatch(/Infinity.*index 3/);
  });
});
