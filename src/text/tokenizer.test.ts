// Tests of the shared tokenizer, the dedup normal form and keyword Jaccard.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import {
  asciiWords,
  forEachToken,
  jaccard,
  normalizeForDedup,
  normalizeForDedupOnce,
  segmenterWords,
  tokenize,
  tokenizeOnce,
  type TokenKind,
} from "./tokenizer.ts";

function tokensOfKind(text: string, wanted: TokenKind): string[] {
  const out: string[] = [];
  forEachToken(text, (token, kind) => {
    if (kind === wanted) out.push(token);
  });
  return out;
}

describe("tokenize: words", () => {
  it("lower-cases English words and drops punctuation and spaces", () => {
    // "peanuts" → "peanut": English inflections are folded (stemEnglish), deliberately since hashing-v2.
    expect(tokenize("I'm allergic to PEANUTS!")).toEqual(["i'm", "allergic", "to", "peanut"]);
  });

  it("folds full-width letters and digits with NFKC", () => {
    expect(tokenize("ＨＥＬＬＯ Ｗｏｒｌｄ １２３")).toEqual(["hello", "world", "123"]);
  });

  it("treats a typographic apostrophe like an ASCII one", () => {
    expect(tokenize("Don’t")).toEqual(tokenize("don't"));
    expect(tokenize("don't")).toEqual(["don't"]);
  });

  it("drops the possessive 's so a name matches its possessive", () => {
    expect(tokenize("Caroline's LGBTQ support-group")).toEqual(["carolin", "lgbtq", "support", "group"]);
    expect(tokenize("Caroline's")).toEqual(tokenize("Caroline"));
    expect(tokenize("it's")).toEqual(["it"]);
  });

  it("keeps repeats, because term frequency matters", () => {
    expect(tokenize("peanut, Peanut and PEANUT")).toEqual(["peanut", "peanut", "and", "peanut"]);
  });

  it("keeps numbers whole", () => {
    expect(tokenize("pi is 3.14, not 3")).toEqual(["pi", "is", "3.14", "not", "3"]);
  });

  it("returns no tokens for empty, blank or punctuation-only text", () => {
    for (const text of ["", "   \n\t", "!!! ... ???", "。、！"]) expect(tokenize(text)).toEqual([]);
  });

  it("splits letters joined by . or : the same way on every runtime, keeping decimals whole", () => {
    expect(tokenize("e.g. U.S.A. example.com a:b 3.14 v1.2 10:30")).toEqual(["e", "g", "u", "s", "a", "exampl", "com", "a", "b", "3.14", "v1.2", "10", "30"]);
    expect(tokenize("café.com ex:élan 3.14 ok")).toEqual(["café", "com", "ex", "élan", "3.14", "ok"]);
  });

  it("splits identifiers at underscores", () => {
    expect(tokenize("snake_case __init__ _")).toEqual(["snak", "cas", "init"]);
  });

  it("keeps stop words (BM25 and the embedder decide what they weigh), unstemmed", () => {
    expect(tokenize("the a of")).toEqual(["the", "a", "of"]);
    expect(tokenize("She does whatever she wants")).toEqual(["she", "does", "whatever", "she", "want"]);
  });

  it("folds English inflections so the forms of a word meet", () => {
    for (const group of [
      ["painted", "painting", "paints", "paint"],
      ["hiking", "hiked", "hikes", "hike"],
      ["running", "runs"],
      ["studies", "studied", "study"],
    ]) {
      const stems = new Set(group.map((w) => tokenize(w).join(" ")));
      expect([...stems]).toHaveLength(1);
    }
    // Words with digits or non-ASCII letters are left alone.
    expect(tokenize("années mp3s")).toEqual(["années", "mp3s"]);
  });
});

describe("tokenize: CJK", () => {
  it("yields the bigrams of a Chinese run, so 花生 matches inside 我对花生过敏", () => {
    const tokens = tokenize("我对花生过敏");
    for (const bigram of ["我对", "对花", "花生", "生过", "过敏"]) expect(tokens).toContain(bigram);
  });

  it("produces exactly the sliding bigrams of each run as cjk-gram tokens", () => {
    expect(tokensOfKind("我对花生过敏。", "cjk-gram")).toEqual(["我对", "对花", "花生", "生过", "过敏"]);
  });

  it("does not build bigrams across punctuation, spaces or Latin words", () => {
    const tokens = tokenize("花生。过敏 花生abc过敏");
    expect(tokens).not.toContain("生过");
    expect(tokens.some((token) => /[。\s]/u.test(token))).toBe(false);
    expect(tokens).toContain("abc");
  });

  it("keeps a one-character run once, as a unigram", () => {
    expect(tokenize("猫")).toEqual(["猫"]);
    expect(tokenize("猫 and 狗").filter((t) => t === "猫" || t === "狗")).toEqual(["猫", "狗"]);
  });

  it("covers Japanese kana and Korean Hangul", () => {
    const japanese = tokenize("カタカナを読みます");
    for (const bigram of ["カタ", "タカ", "カナ", "読み"]) expect(japanese).toContain(bigram);
    const korean = tokenize("한국어를 공부해요");
    for (const bigram of ["한국", "국어", "공부"]) expect(korean).toContain(bigram);
  });

  it("keeps the prolonged sound mark inside a katakana run", () => {
    expect(tokensOfKind("コーヒー", "cjk-gram")).toEqual(["コー", "ーヒ", "ヒー"]);
  });

  it("handles characters outside the BMP (surrogate pairs) as single characters", () => {
    expect(tokensOfKind("𠀀𠀁𠀂", "cjk-gram")).toEqual(["𠀀𠀁", "𠀁𠀂"]);
    expect(tokensOfKind("𠀀𠀁𠀂", "cjk-char")).toEqual(["𠀀", "𠀁", "𠀂"]);
  });

  it("folds half-width katakana to full-width (NFKC)", () => {
    expect(tokensOfKind("ｶﾀｶﾅ", "cjk-gram")).toEqual(["カタ", "タカ", "カナ"]);
  });

  it("leaves cjk-char tokens out of tokenize()", () => {
    const chars = tokensOfKind("我对花生过敏", "cjk-char");
    expect(chars).toEqual(["我", "对", "花", "生", "过", "敏"]);
    const searchTokens: string[] = [];
    forEachToken("我对花生过敏", (token, kind) => {
      if (kind !== "cjk-char") searchTokens.push(token);
    });
    expect(tokenize("我对花生过敏")).toEqual(searchTokens);
  });

  it("cjk-gram tokens equal an independent sliding-window model for any CJK/ASCII mix", () => {
    const alphabet = ["我", "对", "花", "生", "カ", "ー", "한", "a", " ", "。", "𠀀"];
    const isCjk = (c: string): boolean => !["a", " ", "。"].includes(c);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
        const expected: string[] = [];
        let run: string[] = [];
        for (const c of [...chars, " "]) {
          if (isCjk(c)) {
            run.push(c);
            continue;
          }
          if (run.length === 1) expected.push(run[0] as string);
          for (let i = 0; i + 1 < run.length; i++) expected.push((run[i] as string) + (run[i + 1] as string));
          run = [];
        }
        expect(tokensOfKind(chars.join(""), "cjk-gram")).toEqual(expected);
      }),
    );
  });
});

describe("tokenize: the ASCII fast path", () => {
  function words(find: (text: string, visit: (word: string, index: number) => void) => void, text: string): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    find(text, (word, index) => out.push([word, index]));
    return out;
  }

  it("finds exactly the words (and positions) the segmenter finds", () => {
    // Lower-case ASCII without "_": the canonical form the fast path is used on.
    const tricky = ["a", "b", "z", "0", "1", "9", ".", ",", ";", ":", "'", "-", " ", '"', "!", "?", "/", "@", "#", "$", "%", "&", "(", ")", "\t", "\n", "\r"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...tricky), { maxLength: 16 }), (chars) => {
        const text = chars.join("");
        expect(words(asciiWords, text)).toEqual(words(segmenterWords, text));
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with the segmenter on ordinary English", () => {
    const text = "i'm allergic to peanuts, don't worry: it's 3.14 or 1,000.5; see e.g. example.com at 10:30 (ok?)";
    expect(words(asciiWords, text)).toEqual(words(segmenterWords, text));
  });
});

describe("tokenize: invariants", () => {
  it("is deterministic and never yields an empty token or one with spaces", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (text) => {
        const tokens = tokenize(text);
        expect(tokenize(text)).toEqual(tokens);
        for (const token of tokens) {
          expect(token.length).toBeGreaterThan(0);
          expect(/\s/u.test(token)).toBe(false);
        }
      }),
    );
  });

  it("is insensitive to ASCII case", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 ,.]{0,30}$/), (text) => {
        expect(tokenize(text.toUpperCase())).toEqual(tokenize(text.toLowerCase()));
      }),
    );
  });
});

describe("normalizeForDedup", () => {
  it("folds case, collapses whitespace and drops trailing punctuation", () => {
    expect(normalizeForDedup("  I'm   allergic to\tPeanuts. ")).toBe("i'm allergic to peanuts");
    expect(normalizeForDedup("I'm allergic to peanuts")).toBe("i'm allergic to peanuts");
    expect(normalizeForDedup("Really?!… ")).toBe("really");
  });

  it("drops CJK and full-width sentence punctuation", () => {
    expect(normalizeForDedup("我对花生过敏。")).toBe("我对花生过敏");
    expect(normalizeForDedup("我对花生过敏！")).toBe("我对花生过敏");
    expect(normalizeForDedup("本当？")).toBe("本当");
    expect(normalizeForDedup("好的～")).toBe("好的");
  });

  it("applies NFKC (full-width letters become ASCII)", () => {
    expect(normalizeForDedup("ＨＥＬＬＯ　Ｗｏｒｌｄ！")).toBe("hello world");
  });

  it("keeps punctuation inside the text and non-sentence marks at the end", () => {
    expect(normalizeForDedup("e.g. a.b")).toBe("e.g. a.b");
    expect(normalizeForDedup("I like C++")).toBe("i like c++");
    expect(normalizeForDedup("(see above)")).toBe("(see above)");
  });

  it("maps blank and punctuation-only text to the empty string", () => {
    expect(normalizeForDedup(" \n ")).toBe("");
    expect(normalizeForDedup("...")).toBe("");
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), (text) => {
        const once = normalizeForDedup(text);
        expect(normalizeForDedup(once)).toBe(once);
      }),
    );
  });
});

describe("jaccard", () => {
  it("is |A ∩ B| / |A ∪ B| over token sets", () => {
    expect(jaccard(tokenize("I live in Paris"), tokenize("I live in Berlin"))).toBe(3 / 5);
    expect(jaccard(["a", "b"], ["b", "c", "d"])).toBe(1 / 4);
  });

  it("ignores repeats", () => {
    expect(jaccard(["a", "a", "b"], ["a", "b", "b"])).toBe(1);
  });

  it("is 0 when both are empty and when they share nothing", () => {
    expect(jaccard([], [])).toBe(0);
    expect(jaccard(["a"], [])).toBe(0);
    expect(jaccard(["a"], ["b"])).toBe(0);
  });

  it("is symmetric and within [0, 1]", () => {
    const tokens = fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 8 });
    fc.assert(
      fc.property(tokens, tokens, (a, b) => {
        const value = jaccard(a, b);
        expect(jaccard(b, a)).toBe(value);
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("the bulk path (no memo of recent texts)", () => {
  it("tokenizeOnce and normalizeForDedupOnce answer what tokenize and normalizeForDedup answer", () => {
    const piece = fc.oneof(
      fc.constantFrom("I'm", "Caroline's", "painted", "PEANUTS!", "我对花生过敏", "東京タワー", "iphone手机", "café", "Ｆｕｌｌ", "  ", "。", "12345", "the"),
      fc.string({ unit: "binary", maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join(" ");
        // Twice each: once through the memo's first computation, once through its remembered answer.
        expect(tokenizeOnce(text)).toEqual(tokenize(text));
        expect(tokenizeOnce(text)).toEqual(tokenize(text));
        expect(normalizeForDedupOnce(text)).toBe(normalizeForDedup(text));
        expect(normalizeForDedupOnce(text)).toBe(normalizeForDedup(text));
      }),
      { numRuns: 300 },
    );
    const long = "peanut 花生 ".repeat(2000); // longer than the memo keeps
    expect(tokenizeOnce(long)).toEqual(tokenize(long));
  });
});
