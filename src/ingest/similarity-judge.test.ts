// Tests of the offline SimilarityJudge: keys first, then similarity, and no replace between a fact and its qualified look-alike.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { SimilarityJudge, type JudgeCandidate } from "./similarity-judge.ts";
import { HashingEmbedder } from "../embedding/hashing-embedder.ts";
import { cosine } from "../embedding/vector-math.ts";
import { forEachToken, normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { AnchorComparer } from "./fact-anchors.ts";
import { DEFAULT_LANGUAGES } from "./patterns/default-languages.ts";
import type { ExtractedFact, Verdict } from "../types.ts";

const embedder = new HashingEmbedder();

function candidate(content: string, key?: string): JudgeCandidate {
  const c: JudgeCandidate = {
    id: `id-${content}`,
    userId: "u",
    content,
    kind: "fact",
    status: "active",
    createdAt: 0,
    updatedAt: 0,
    seq: 1,
    metadata: {},
    embedding: embedder.embedOne(content),
  };
  if (key !== undefined) c.key = key;
  return c;
}

function fact(content: string, key?: string): ExtractedFact & { embedding: Float32Array } {
  return key === undefined
    ? { content, kind: "fact", embedding: embedder.embedOne(content) }
    : { content, kind: "fact", key, embedding: embedder.embedOne(content) };
}

describe("SimilarityJudge", () => {
  const judge = new SimilarityJudge();

  it("replaces a different value of the same key and never across keys", () => {
    expect(judge.judgeOne(fact("I live in Shenzhen now", "home_city"), candidate("I live in Beijing", "home_city")).decision).toBe("replace");
    expect(judge.judgeOne(fact("I live in Beijing", "home_city"), candidate("I live in Beijing", "home_city")).decision).toBe("ignore");
    const across = judge.judgeOne(fact("My brother lives in Paris", "brother_city"), candidate("My sister lives in Paris", "sister_city"));
    expect(across.decision).not.toBe("replace");
  });

  it("replaces a near-identical fact without keys", () => {
    const before = "I am allergic to peanuts, please never suggest peanut dishes";
    const after = "I am allergic to peanuts, please never suggest peanut desserts";
    expect(judge.similarity(fact(after), candidate(before))).toBeGreaterThanOrEqual(0.82);
    expect(judge.judgeOne(fact(after), candidate(before)).decision).toBe("replace");
  });

  it("never replaces by similarity two facts that differ in a number, an identifier, a name, a date, a negation or whose they are", () => {
    const pairs: Array<[string, string, string]> = [
      ["I am 29 years old", "I am 30 years old", '"29"'],
      ["My order #1234 shipped today", "My order #5678 shipped today", '"#1234"'],
      ["memory 3: I like rice and beans, not fish (3)", "memory 7: I like rice and beans, not fish (7)", '"3"'],
      ["I had lunch with Anna and the whole team today at noon", "I had lunch with Maria and the whole team today at noon", '"anna"'],
      ["Tom from accounting helped me with the report", "Jack from accounting helped me with the report", '"tom"'],
      ["I went to the cinema with my friends on Monday evening", "I went to the cinema with my friends on Friday evening", '"monday"'],
      ["I like spicy food very much", "I don't like spicy food very much", "a negation"],
      ["My son plays football in the park every weekend", "My daughter plays football in the park every weekend", '"son"'],
      ["我的订单1234已经发货了", "我的订单5678已经发货了", '"1234"'],
      ["我今天和小王一起吃了午饭", "我今天和小李一起吃了午饭", '"小王"'],
      ["我周一去看了电影", "我周五去看了电影", '"周一"'],
      ["我儿子喜欢踢足球", "我女儿喜欢踢足球", '"儿子"'],
    ];
    for (const [a, b, named] of pairs) {
      const sim = judge.similarity(fact(b), candidate(a));
      const verdict = judge.judgeOne(fact(b), candidate(a));
      // Only pairs the threshold alone would replace say something about the rule.
      expect(sim, `${a} / ${b}`).toBeGreaterThanOrEqual(0.82);
      expect(verdict.decision, `${a} / ${b}`).toBe("coexist");
      expect(verdict.reason).toContain(named);
      expect(judge.judgeOne(fact(a), candidate(b)).decision, `${b} / ${a}`).toBe("coexist");
    }
  });

  it("does not let a fact replace its qualified look-alike (or the reverse), in English and Chinese", () => {
    const pairs: Array<[string, string]> = [
      ["My favourite food is pizza", "My son's favourite food is pizza"],
      ["My birthday is in May", "My wife's birthday is in May"],
      ["我的生日在五月", "我老公的生日在五月"],
      ["我最喜欢吃火锅", "我儿子最喜欢吃火锅"],
    ];
    for (const [a, b] of pairs) {
      // Similar enough that the threshold alone would replace…
      expect(judge.similarity(fact(b), candidate(a))).toBeGreaterThanOrEqual(0.82);
      // …but one says all the other does and more: flagged, not replaced.
      expect(judge.judgeOne(fact(b), candidate(a)).decision, `${b} vs ${a}`).toBe("coexist");
      expect(judge.judgeOne(fact(a), candidate(b)).decision, `${a} vs ${b}`).toBe("coexist");
    }
  });

  it("still replaces by key when one fact contains the other", () => {
    expect(judge.judgeOne(fact("I'm not vegetarian anymore", "diet"), candidate("I'm vegetarian", "diet")).decision).toBe("replace");
  });
});

/** What `similarity` must return, the plain way: full `cosine` and a Set-based Jaccard of the tokens. */
function referenceSimilarity(a: { content: string; embedding?: Float32Array }, b: { content: string; embedding?: Float32Array }): number {
  const vectorSim = a.embedding !== undefined && b.embedding !== undefined && a.embedding.length === b.embedding.length ? cosine(a.embedding, b.embedding) : 0;
  const x = new Set(tokenize(a.content));
  const y = new Set(tokenize(b.content));
  let shared = 0;
  for (const t of x) if (y.has(t)) shared++;
  const keywordSim = x.size === 0 && y.size === 0 ? 0 : shared / (x.size + y.size - shared);
  return Math.max(vectorSim, keywordSim);
}

/** Content words (stop words left out) and CJK characters, as a set of strings: the plain way. */
function referenceFeatures(text: string): Set<string> {
  const out = new Set<string>();
  forEachToken(text, (token, kind) => {
    if ((kind === "word" && !ENGLISH_STOP_WORDS.has(token)) || kind === "cjk-char") out.add(token);
  });
  return out;
}

const referenceAnchors = new AnchorComparer(DEFAULT_LANGUAGES);

/** The verdict the judge must give, the plain way: keys, then the reference similarity, containment by sets of strings, anchors. */
function referenceVerdict(f: ExtractedFact & { embedding?: Float32Array }, c: JudgeCandidate, threshold: number): Verdict {
  if (f.key !== undefined && c.key !== undefined && f.key === c.key) {
    if (normalizeForDedup(f.content) === normalizeForDedup(c.content)) return { id: c.id, decision: "ignore", reason: `same value for key "${f.key}"` };
    return { id: c.id, decision: "replace", reason: `new value for key "${f.key}"` };
  }
  const sim = referenceSimilarity(f, c);
  const x = referenceFeatures(f.content);
  const y = referenceFeatures(c.content);
  const [small, large] = x.size < y.size ? [x, y] : [y, x];
  const contains = x.size !== y.size && small.size > 0 && [...small].every((t) => large.has(t));
  const differentKeys = f.key !== undefined && c.key !== undefined;
  if (sim >= threshold && !differentKeys && !contains) {
    const differ = referenceAnchors.difference(f.content, c.content);
    if (differ.length > 0)
      return { id: c.id, decision: "coexist", reason: `similarity ${sim.toFixed(3)} ≥ ${threshold}, but they differ in ${differ.join(", ")}` };
    return { id: c.id, decision: "replace", reason: `similarity ${sim.toFixed(3)} ≥ ${threshold}` };
  }
  if (sim >= threshold - 0.15) return { id: c.id, decision: "coexist", reason: `similarity ${sim.toFixed(3)} close to ${threshold}` };
  return { id: c.id, decision: "ignore" };
}

function entry(id: string, content: string, embedding: Float32Array | undefined, key: string | undefined): JudgeCandidate {
  const c: JudgeCandidate = { id, userId: "u", content, kind: "fact", status: "active", createdAt: 0, updatedAt: 0, seq: 1, metadata: {} };
  if (embedding !== undefined) c.embedding = embedding;
  if (key !== undefined) c.key = key;
  return c;
}

describe("SimilarityJudge similarity is exactly cosine-or-Jaccard", () => {
  // Lengths around multiples of 4 (dotAt's groups and its tail), the default 256, and odd ones.
  const dims = fc.oneof(fc.integer({ min: 0, max: 13 }), fc.constantFrom(255, 256, 257), fc.integer({ min: 14, max: 300 }));
  const finite = fc.float({ noNaN: true, noDefaultInfinity: true });
  // Values of one magnitude, whose sums round: a different summation order shows in the last bits.
  const moderate = fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n / 997);
  const special = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
  const vectorOf = (dim: number): fc.Arbitrary<Float32Array> =>
    fc
      .record({
        // Hashing vectors are mostly zeros; +0 and -0 both, and sometimes dense.
        zeroWeight: fc.constantFrom(0, 1, 6, 30),
        poison: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(fc.nat(), special) }),
      })
      .chain(({ zeroWeight, poison }) =>
        fc
          .array(
            fc.oneof(
              { weight: zeroWeight, arbitrary: fc.constantFrom(0, -0) },
              { weight: 1, arbitrary: finite },
              { weight: 3, arbitrary: moderate },
              { weight: 1, arbitrary: fc.constantFrom(1, -1, 0.5) },
            ),
            { minLength: dim, maxLength: dim },
          )
          .map((values) => {
            const v = Float32Array.from(values);
            if (poison !== undefined && dim > 0) v[poison[0] % dim] = poison[1];
            return v;
          }),
      );
  // The fact's vector and, per candidate, a vector of the same length (its own, the fact's very object, or the
  // fact's with some components changed, for high cosines), one of another length, or none.
  const candidateVector = (a: Float32Array): fc.Arbitrary<Float32Array | undefined> =>
    fc.oneof(
      vectorOf(a.length),
      fc.constant(a),
      fc.tuple(fc.array(fc.tuple(fc.nat(), fc.oneof(finite, fc.constantFrom(0, -0))), { maxLength: 6 }), fc.constantFrom(1, 2, -1)).map(([edits, scale]) => {
        const b = a.map((x) => x * scale);
        for (const [i, x] of edits) if (b.length > 0) b[i % b.length] = x;
        return b;
      }),
      dims.chain(vectorOf),
      fc.constant(undefined),
    );
  const vectors = fc
    .option(dims.chain(vectorOf), { nil: undefined, freq: 8 })
    .chain((a) =>
      fc.tuple(
        fc.constant(a),
        fc.array(a === undefined ? fc.option(dims.chain(vectorOf), { nil: undefined }) : candidateVector(a), { minLength: 4, maxLength: 4 }),
      ),
    );
  const words = [
    "I",
    "my",
    "live",
    "in",
    "Beijing",
    "Paris",
    "wife's",
    "birthday",
    "is",
    "May",
    "the",
    "cats",
    "cat",
    "42",
    "我",
    "的",
    "生日",
    "五月",
    "!",
    "-0",
  ];
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(" ")) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
  // A candidate's text: any, the fact's own, or the fact's with a word more or less (high Jaccard).
  const candidateText = (factText: string): fc.Arbitrary<string> =>
    fc.oneof(
      text,
      fc.constant(factText),
      fc.tuple(fc.constantFrom(...words), fc.boolean()).map(([w, front]) => (front ? `${w} ${factText}` : `${factText} ${w}`)),
      fc.nat().map((n) => {
        const w = factText.split(" ");
        w.splice(n % w.length, 1);
        return w.join(" ");
      }),
    );
  const key = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("home_city", "birthday") });

  it("equals the reference bit for bit, and judge() decides and explains by it", async () => {
    const judge = new SimilarityJudge();
    const low = judge.threshold - 0.15;
    await fc.assert(
      fc.asyncProperty(
        text.chain((t) => fc.tuple(fc.constant(t), fc.array(fc.tuple(candidateText(t), key), { minLength: 1, maxLength: 4 }))),
        vectors,
        key,
        async ([factText, rows], [factVector, candidateVectors], factKey) => {
          const fact: ExtractedFact & { embedding?: Float32Array } = { content: factText, kind: "fact" };
          if (factVector !== undefined) fact.embedding = factVector;
          if (factKey !== undefined) fact.key = factKey;
          const candidates = rows.map(([content, k], i) => entry(`c${i}`, content, candidateVectors[i], k));
          const verdicts = await judge.judge(fact, candidates);
          expect(verdicts).toHaveLength(candidates.length);
          for (const [i, c] of candidates.entries()) {
            const expected = referenceSimilarity(fact, c);
            expect(Object.is(judge.similarity(fact, c), expected), `similarity ${judge.similarity(fact, c)} vs reference ${expected}`).toBe(true);
            expect(verdicts[i]).toEqual(judge.judgeOne(fact, c));
            expect(verdicts[i]).toEqual(referenceVerdict(fact, c, judge.threshold));
            if (fact.key === undefined || c.key === undefined) {
              const verdict = verdicts[i]!;
              expect(verdict.decision === "ignore").toBe(!(expected >= low));
              if (verdict.decision !== "ignore") expect(verdict.reason).toContain(`similarity ${expected.toFixed(3)} `);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("equals cosine bit for bit on dense vectors of every length mod 4, with either sign", () => {
    // Empty texts: Jaccard is 0, so similarity is max(cosine, 0); a candidate and its negation show both signs.
    const judge = new SimilarityJudge();
    const denseOf = (dim: number): fc.Arbitrary<Float32Array> => fc.array(moderate, { minLength: dim, maxLength: dim }).map((v) => Float32Array.from(v));
    const pair = fc
      .oneof(fc.integer({ min: 1, max: 15 }), fc.constantFrom(254, 255, 256, 257))
      .chain((dim) => fc.tuple(denseOf(dim), denseOf(dim), fc.boolean()));
    fc.assert(
      fc.property(pair, ([a, own, related]) => {
        // A related candidate (the fact plus a small change) has a cosine near 1, where rounding shows most.
        const b = related ? a.map((x, i) => x + (own[i] as number) / 64) : own;
        for (const v of [b, b.map((x) => -x)]) {
          const sim = judge.similarity({ content: "", kind: "fact", embedding: a }, entry("c", "", v, undefined));
          expect(Object.is(sim, Math.max(cosine(a, v), 0)), `${sim} vs ${cosine(a, v)}`).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("equals the reference when one candidate vector is judged again and again, against different facts", () => {
    const judge = new SimilarityJudge();
    const texts = ["I live in Beijing", "I live in Shenzhen now", "My birthday is in May", "", "我的生日在五月", "cats and dogs"];
    const candidates = texts.map((t, i) => entry(`c${i}`, t, embedder.embedOne(t), undefined));
    for (let round = 0; round < 3; round++) {
      for (const t of texts) {
        const f = fact(`${t} ${round}`);
        for (const c of candidates) expect(Object.is(judge.similarity(f, c), referenceSimilarity(f, c))).toBe(true);
      }
    }
  });

  it("keeps cosine's NaN where the fact is zero and the candidate is not finite, and its 0 for all-zero vectors", () => {
    const judge = new SimilarityJudge();
    const a = new Float32Array([1, 0, -0, 0, 0.5]);
    for (const special of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const b = new Float32Array([1, special, 0, 0, 1]);
      const sim = judge.similarity({ content: "x", kind: "fact", embedding: a }, entry("c", "y", b, undefined));
      expect(Object.is(sim, cosine(a, b))).toBe(true);
      expect(sim).toBeNaN();
    }
    const zero = new Float32Array(5);
    expect(Object.is(judge.similarity({ content: "x", kind: "fact", embedding: zero }, entry("c", "y", a, undefined)), 0)).toBe(true);
    expect(
      Object.is(judge.similarity({ content: "x", kind: "fact", embedding: a }, entry("c", "y", new Float32Array([-0, -0, 0, -0, -0]), undefined)), 0),
    ).toBe(true);
  });
});
