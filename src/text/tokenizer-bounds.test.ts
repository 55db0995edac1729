// The tokenizer on long and hostile input: the segmenter gets bounded pieces, cut where no token changes.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { forEachToken, normalizeForDedup, SEGMENT_CHUNK, segmenterWords, tokenize } from "./tokenizer.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";

function words(text: string, chunkChars?: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  segmenterWords(text, (word, index) => out.push([word, index]), chunkChars);
  return out;
}

/** What the tokenizer hands to the segmenter (NFKC, lower case; the rest does not matter here). */
function canonical(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

// Pieces of ordinary text in many scripts, with the characters UAX #29 joins across (. , : ' ZWJ, marks).
const WORD_PIECES = [
  "peanut",
  "café",
  "naïve",
  "3.14",
  "1,000",
  "don't",
  "a:b",
  "e.g",
  "x.y",
  "Ünïcödé",
  "10:30",
  "我对花生",
  "过敏",
  "北京",
  "カタカナー",
  "ひらがな",
  "한국어",
  "ภาษาไทย",
  "ສະບາຍດີ",
  "ខ្មែរ",
  "မြန်မာ",
  "a\u0301",
  "\u0915\u094d\u0937",
  "👩‍💻",
  "👍🏽",
  "🇨🇳",
  "❤️",
  "x\u200dy",
  "\u200b",
  "\ufeff",
  "𠀀𠀁",
];
// Everything a word never starts with: those would make the cut move past the next separator.
const ATTACHING_START = /^[\p{M}\p{Cf}\p{Emoji_Modifier}]/u;
const SPACES = [" ", "  ", "\n", "\r\n", "\t", " \u00a0", "\u3000", "\n\n"];
const MARKS = ["。", "、", "!", "?", "(", ")", "「", "」"];

/**
 * Ordinary text for a given piece size: words of at most `maxWord` UTF-16 units, separated by white space
 * or (CJK-style, without spaces) by sentence marks.
 */
function ordinaryText(maxWord: number): fc.Arbitrary<string> {
  const word = fc
    .array(fc.constantFrom(...WORD_PIECES), { minLength: 1, maxLength: 6 })
    .map((pieces) => pieces.join("").slice(0, maxWord))
    .filter((w) => w.length > 0 && !ATTACHING_START.test(w) && !/[\ud800-\udbff]$/.test(w));
  const separator = fc.oneof(fc.constantFrom(...SPACES), fc.constantFrom(...MARKS));
  return fc.array(fc.tuple(word, separator), { minLength: 1, maxLength: 80 }).map((parts) => parts.map(([w, s]) => w + s).join(""));
}

describe("segmenterWords: pieces for the segmenter", () => {
  it("chunked segmentation equals whole-text segmentation for ordinary text", () => {
    // Words shorter than half a piece, so the second half of every piece holds a separator.
    const cases = fc.integer({ min: 24, max: 96 }).chain((chunk) => fc.tuple(fc.constant(chunk), ordinaryText(Math.floor(chunk / 2) - 2)));
    fc.assert(
      fc.property(cases, ([chunk, text]) => {
        const c = canonical(text);
        expect(words(c, chunk)).toEqual(words(c, Number.POSITIVE_INFINITY));
      }),
      { numRuns: 200 },
    );
  });

  it("chunked segmentation equals whole-text segmentation on generated text of any separator mix", () => {
    fc.assert(
      fc.property(ordinaryText(20), fc.integer({ min: 48, max: 200 }), (text, chunk) => {
        const c = canonical(text);
        expect(words(c, chunk)).toEqual(words(c, Number.POSITIVE_INFINITY));
      }),
      { numRuns: 200 },
    );
  });

  it("leaves text up to SEGMENT_CHUNK characters in one piece, and cuts ordinary longer text only at separators", () => {
    const random = seededRandom(13);
    const parts: string[] = [];
    let length = 0;
    while (length < 5 * SEGMENT_CHUNK) {
      const piece = (WORD_PIECES[Math.floor(random() * WORD_PIECES.length)] as string) + (random() < 0.2 ? "。" : " ");
      if (ATTACHING_START.test(piece)) continue;
      parts.push(piece);
      length += piece.length;
    }
    const c = canonical(parts.join(""));
    expect(c.length).toBeGreaterThan(4 * SEGMENT_CHUNK);
    expect(words(c)).toEqual(words(c, Number.POSITIVE_INFINITY));
  });
});

/** Hostile text kinds, as in bench/hostile-input.ts. */
const HOSTILE: Record<string, (random: () => number) => string> = {
  cjk: (random) => String.fromCodePoint(0x4e00 + Math.floor(random() * 20_000)),
  thai: (random) => String.fromCodePoint(0x0e01 + Math.floor(random() * 46)),
  accented: (random) => "àéîõüçñ"[Math.floor(random() * 7)] as string,
  emoji: (random) => ["😀", "👍🏽", "👩‍💻", "🇨🇳", "❤️"][Math.floor(random() * 5)] as string,
  combining: () => "a\u0301\u0323",
  "zero-width": (random) => (random() < 0.5 ? "\u200b" : "x\u200d"),
  marks: () => "\u0301",
};

function hostile(kind: string, units: number): string {
  const random = seededRandom(units);
  const make = HOSTILE[kind]!;
  let text = "";
  while (text.length < units) text += make(random);
  return text;
}

describe("segmenterWords: long unbroken input", () => {
  for (const kind of Object.keys(HOSTILE)) {
    it(`gives sane words for ${kind} text with no separator (${3 * SEGMENT_CHUNK} units)`, () => {
      const c = canonical(hostile(kind, 3 * SEGMENT_CHUNK));
      let previousEnd = 0;
      for (const [word, index] of words(c)) {
        // In text order, not overlapping, each one the very characters at its index.
        expect(index).toBeGreaterThanOrEqual(previousEnd);
        expect(c.slice(index, index + word.length)).toBe(word);
        expect(word.length).toBeLessThanOrEqual(SEGMENT_CHUNK);
        // Never half of a surrogate pair.
        expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(word)).toBe(false);
        previousEnd = index + word.length;
      }
    });
  }

  it("keeps every letter of one giant word (accented Latin): the words cover the text", () => {
    const c = canonical(hostile("accented", 10 * SEGMENT_CHUNK));
    expect(
      words(c)
        .map(([w]) => w)
        .join(""),
    ).toBe(c);
  });

  it("gives the CJK bigrams of one giant run whatever the pieces (they do not depend on the segmenter)", () => {
    const text = hostile("cjk", 3 * SEGMENT_CHUNK + 7);
    const chars = Array.from(text);
    const grams: string[] = [];
    forEachToken(text, (token, kind) => {
      if (kind === "cjk-gram") grams.push(token);
    });
    expect(grams).toHaveLength(chars.length - 1);
    expect(grams[0]).toBe(chars[0]! + chars[1]!);
    expect(grams.at(-1)).toBe(chars.at(-2)! + chars.at(-1)!);
  });
});

/** A guard against a hang, not a speed check: bench/hostile-input.ts measures how fast. */
const HUGE_INPUT_TIMEOUT = 300_000;

describe("tokenize: a 1 MB input returns", () => {
  it(
    "tokenizes 1 Mi units of unbroken CJK into its bigrams and dictionary words",
    () => {
      const text = hostile("cjk", 1 << 20);
      const tokens = tokenize(text);
      const chars = Array.from(text).length;
      // chars - 1 bigrams plus the segmenter's 1- and 3+-character words (at most one per character).
      expect(tokens.length).toBeGreaterThanOrEqual(chars - 1);
      expect(tokens.length).toBeLessThanOrEqual(2 * chars);
    },
    HUGE_INPUT_TIMEOUT,
  );

  it(
    "tokenizes 256 Ki units of emoji and of zero-width characters",
    () => {
      expect(tokenize(hostile("emoji", 1 << 18))).toEqual([]);
      const zw = tokenize(hostile("zero-width", 1 << 18));
      expect(zw.length).toBeGreaterThan(0);
      for (const token of zw) expect(token).toMatch(/^x/);
    },
    HUGE_INPUT_TIMEOUT,
  );
});

describe("normalizeForDedup on hostile input", () => {
  const reference = (text: string): string =>
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/\s+/gu, " ")
      .trim()
      .replace(/[\s.!?,;:~…‥。、，；：！？～]+$/u, "");

  it("equals the end-anchored regular expression it replaces", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", ".", "!", "。", "～", "…", "\n", "?", "x", "是"), maxLength: 40 }), (text) => {
        expect(normalizeForDedup(text)).toBe(reference(text));
      }),
      { numRuns: 300 },
    );
  });

  it(
    "handles 1 Mi units of spaced punctuation before a letter (quadratic with the regular expression)",
    () => {
      const text = ". ".repeat(1 << 19) + "x";
      expect(normalizeForDedup(text)).toBe(text);
      expect(normalizeForDedup(". ".repeat(1 << 19))).toBe("");
    },
    HUGE_INPUT_TIMEOUT,
  );
});
