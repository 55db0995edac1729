// Tests of the incremental BM25 index, including property tests against BM25 computed from scratch.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { Bm25Index } from "./bm25-index.ts";
import { tokenize } from "../text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";
import { referenceSearch } from "../../test/helpers/reference-bm25.ts";

function expectInvalidArgument(run: () => unknown, message?: RegExp): void {
  throwsWith(run, "INVALID_ARGUMENT", message);
}

/**
 * BM25 from scratch over the current documents. The arithmetic is written in the same order as the
 * index's, so equal inputs give bit-equal scores and tie order can be compared exactly.
 */
function bruteForce(
  docs: Map<number, readonly string[]>,
  query: readonly string[],
  k: number,
  k1 = 0.9,
  b = 0.4,
  stopWords: ReadonlySet<string> = ENGLISH_STOP_WORDS,
): Array<{ doc: number; score: number }> {
  docs = new Map([...docs].map(([doc, tokens]) => [doc, tokens.filter((t) => !stopWords.has(t))]));
  query = query.filter((t) => !stopWords.has(t));
  const n = docs.size;
  let total = 0;
  for (const tokens of docs.values()) total += tokens.length;
  if (n === 0 || total === 0) return [];
  const avgLength = total / n;
  const terms = [...new Set(query)];
  const results: Array<{ doc: number; score: number }> = [];
  for (const [doc, tokens] of docs) {
    let score = 0;
    for (const term of terms) {
      const tf = tokens.filter((t) => t === term).length;
      if (tf === 0) continue;
      let df = 0;
      for (const other of docs.values()) if (other.includes(term)) df++;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const lengthNorm = 1 - b + (b * tokens.length) / avgLength;
      score += idf * (k1 + 1) * (tf / (tf + k1 * lengthNorm));
    }
    if (score > 0) results.push({ doc, score });
  }
  results.sort((x, y) => y.score - x.score || y.doc - x.doc);
  return results.slice(0, k);
}

/** Zipf-like draws: index r of `size` with weight 1 / (r + 1), from a uniform integer in 0..ZIPF_STEPS−1. */
const ZIPF_STEPS = 10_000;
function zipfTable(size: number): Int32Array {
  const cdf: number[] = [];
  let total = 0;
  for (let r = 0; r < size; r++) cdf.push((total += 1 / (r + 1)));
  const table = new Int32Array(ZIPF_STEPS);
  let r = 0;
  for (let step = 0; step < ZIPF_STEPS; step++) {
    while ((cdf[r] as number) / total < (step + 0.5) / ZIPF_STEPS) r++;
    table[step] = r;
  }
  return table;
}

describe("Bm25Index", () => {
  it("scores with Okapi BM25 and Lucene's idf (hand-computed example)", () => {
    // The textbook k1 1.2 / b 0.75 (the defaults are 0.9 / 0.4 since the LoCoMo tuning).
    const index = new Bm25Index({ k1: 1.2, b: 0.75 });
    index.add(1, ["peanut", "allergy"]);
    index.add(2, ["peanut", "butter", "peanut", "sandwich"]);
    index.add(3, ["hiking", "trip"]);
    // N = 3, avgdl = 8/3; "peanut": df = 2, idf = ln(1 + 1.5/2.5) = ln 1.6.
    const idf = Math.log(1.6);
    const doc1 = (idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 2) / (8 / 3)));
    const doc2 = (idf * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 4) / (8 / 3)));
    const hits = index.search(["peanut"], 10);
    expect(hits.map((h) => h.doc)).toEqual([2, 1]);
    expect(hits[0]?.score).toBeCloseTo(doc2, 12);
    expect(hits[1]?.score).toBeCloseTo(doc1, 12);
  });

  it("ranks a rare term above a common one", () => {
    const index = new Bm25Index();
    index.add(1, tokenize("I am allergic to peanuts"));
    index.add(2, tokenize("I am going to Paris"));
    index.add(3, tokenize("I am learning to cook"));
    expect(index.search(tokenize("am I allergic"), 3)[0]?.doc).toBe(1);
  });

  it("returns only docs sharing a term, at most k", () => {
    // "even" is an English stop word; this test is about matching, so it indexes every token.
    const index = new Bm25Index({ stopWords: new Set() });
    for (let doc = 0; doc < 10; doc++) index.add(doc, doc % 2 === 0 ? ["even", `n${doc}`] : ["odd"]);
    expect(index.search(["even"], 100).length).toBe(5);
    expect(index.search(["even"], 2).length).toBe(2);
    expect(index.search(["missing"], 10)).toEqual([]);
    expect(index.search([], 10)).toEqual([]);
    expect(index.search(["even"], 0)).toEqual([]);
  });

  it("breaks ties by the larger (newer) doc", () => {
    const index = new Bm25Index({ stopWords: new Set() });
    for (const doc of [4, 8, 6]) index.add(doc, ["same", "words"]);
    expect(index.search(["same"], 10).map((h) => h.doc)).toEqual([8, 6, 4]);
  });

  it("counts a repeated query term once", () => {
    const index = new Bm25Index();
    index.add(1, ["peanut", "allergy"]);
    index.add(2, ["allergy", "season", "spring"]);
    index.add(3, ["cats"]);
    expect(index.search(["peanut", "peanut", "peanut", "allergy"], 10)).toEqual(index.search(["peanut", "allergy"], 10));
  });

  it("updates postings and average length on remove, as if rebuilt", () => {
    const index = new Bm25Index();
    index.add(1, ["a", "b", "c"]);
    index.add(2, ["a", "a", "d", "e", "f", "g"]);
    index.add(3, ["b", "c"]);
    expect(index.remove(2)).toBe(true);
    expect(index.remove(2)).toBe(false);
    expect(index.has(2)).toBe(false);
    expect(index.size).toBe(2);
    const rebuilt = new Bm25Index();
    rebuilt.add(1, ["a", "b", "c"]);
    rebuilt.add(3, ["b", "c"]);
    for (const query of [["a"], ["b", "c"], ["d"], ["a", "b", "g"]]) expect(index.search(query, 10)).toEqual(rebuilt.search(query, 10));
    expect(index.search(["d"], 10)).toEqual([]);
  });

  it("keeps docs with no tokens (they count in N but never match)", () => {
    const index = new Bm25Index();
    index.add(1, []);
    expect(index.size).toBe(1);
    expect(index.search(["x"], 5)).toEqual([]);
    index.add(2, ["x"]);
    expect(index.search(["x"], 5).map((h) => h.doc)).toEqual([2]);
  });

  it("honours k1 and b", () => {
    const index = new Bm25Index({ k1: 0, b: 0 });
    expect(index.k1).toBe(0);
    expect(index.b).toBe(0);
    index.add(1, ["x", "x", "x", "y"]);
    index.add(2, ["x"]);
    index.add(3, ["z"]);
    // k1 = 0: term frequency and length do not matter, both docs score idf.
    const hits = index.search(["x"], 10);
    expect(hits.map((h) => h.doc)).toEqual([2, 1]);
    expect(hits[0]?.score).toBe(hits[1]?.score);
    expect(new Bm25Index().k1).toBe(0.9);
    expect(new Bm25Index().b).toBe(0.4);
  });

  it("leaves stop words out of documents and queries, and out of document lengths", () => {
    const index = new Bm25Index();
    index.add(1, tokenize("what did she do with the painting"));
    index.add(2, tokenize("painting"));
    index.add(3, tokenize("hiking"));
    expect(index.search(tokenize("what did she do"), 10)).toEqual([]);
    // Docs 1 and 2 hold the same non-stop tokens, so they score the same: stop words add no length.
    const hits = index.search(tokenize("the painting"), 10);
    expect(hits.map((h) => h.doc)).toEqual([2, 1]);
    expect(hits[0]?.score).toBe(hits[1]?.score);
    const plain = new Bm25Index({ stopWords: new Set() });
    plain.add(1, ["the", "cat"]);
    expect(plain.search(["the"], 10).map((h) => h.doc)).toEqual([1]);
    expect(ENGLISH_STOP_WORDS.has("the") && !ENGLISH_STOP_WORDS.has("painting")).toBe(true);
  });

  it("rejects bad arguments with INVALID_ARGUMENT", () => {
    expectInvalidArgument(() => new Bm25Index({ k1: -1 }), /k1/);
    expectInvalidArgument(() => new Bm25Index({ k1: Number.NaN }), /k1/);
    expectInvalidArgument(() => new Bm25Index({ b: 1.5 }), /b must be/);
    expectInvalidArgument(() => new Bm25Index({ stopWords: ["the"] as unknown as Set<string> }), /stopWords/);
    expectInvalidArgument(() => new Bm25Index({ b: Number.NaN }), /b must be/);
    const index = new Bm25Index();
    index.add(1, ["a"]);
    expectInvalidArgument(() => index.add(1, ["b"]), /doc 1 is already indexed/);
    expectInvalidArgument(() => index.add(2, "a b" as unknown as string[]), /array of strings/);
    expectInvalidArgument(() => index.add(2, [1 as unknown as string]), /must be strings/);
    expectInvalidArgument(() => index.add(-3, ["a"]), /doc/);
    expectInvalidArgument(() => index.search(["a"], -1), /k must be/);
    expectInvalidArgument(() => index.search("a" as unknown as string[], 1), /queryTokens/);
    expect(index.size).toBe(1);
  });

  it("matches BM25 computed from scratch after any sequence of adds and removes", () => {
    const vocabulary = ["a", "b", "c", "d", "e", "f", "g", "h"];
    const tokens = fc.array(fc.constantFrom(...vocabulary), { maxLength: 8 });
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), doc: fc.integer({ min: 0, max: 12 }), tokens }),
      fc.record({ kind: fc.constant("remove" as const), doc: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80, size: "medium" }), tokens, fc.integer({ min: 1, max: 35 }), (ops, query, k) => {
        const index = new Bm25Index();
        const model = new Map<number, readonly string[]>();
        for (const step of ops) {
          if (step.kind === "add") {
            if (model.has(step.doc)) continue;
            index.add(step.doc, step.tokens);
            model.set(step.doc, step.tokens);
          } else {
            expect(index.remove(step.doc)).toBe(model.delete(step.doc));
          }
        }
        expect(index.size).toBe(model.size);
        expect(index.search(query, k)).toEqual(bruteForce(model, query, k));
      }),
      { numRuns: 200 },
    );
  });

  it("matches from-scratch BM25 for other k1 and b", () => {
    const tokens = fc.array(fc.constantFrom("x", "y", "z", "w"), { maxLength: 6 });
    fc.assert(
      fc.property(
        fc.array(tokens, { maxLength: 20 }),
        tokens,
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (docs, query, k1, b) => {
          const index = new Bm25Index({ k1, b });
          const model = new Map<number, readonly string[]>();
          docs.forEach((t, doc) => {
            index.add(doc, t);
            model.set(doc, t);
          });
          expect(index.search(query, 10)).toEqual(bruteForce(model, query, 10, k1, b));
        },
      ),
      { numRuns: 100 },
    );
  });
  it("prunes without changing results: random Zipf-like corpora, adds and removes, long and short queries", () => {
    // Stop words ("the", "and", "i", "to") are mixed in; "zz" is never indexed. Each added memory goes
    // in 1–12 times under consecutive docs: the index grows large enough for the pruned search to
    // run, and copies score the same, so ties are decided by doc. Some memories are long (past the
    // index's table of length norms), and searches between adds and removes let the common terms'
    // per-document codes be built, then kept up to date by later adds and removes.
    const vocabulary = ["the", "and", "i", "to", ...Array.from({ length: 200 }, (_, i) => `w${i}`)];
    const table = zipfTable(vocabulary.length);
    const token = fc.integer({ min: 0, max: ZIPF_STEPS - 1 }).map((step) => vocabulary[table[step] as number] as string);
    const tokens = fc.oneof(
      { weight: 12, arbitrary: fc.array(token, { maxLength: 30 }) },
      { weight: 1, arbitrary: fc.array(token, { minLength: 100, maxLength: 140 }) },
    );
    const query = fc.array(fc.oneof({ weight: 20, arbitrary: token }, { weight: 1, arbitrary: fc.constant("zz") }), { minLength: 1, maxLength: 40 });
    const k = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 10 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }) });
    const op = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({ kind: fc.constant("add" as const), doc: fc.integer({ min: 0, max: 400 }), copies: fc.integer({ min: 1, max: 12 }), tokens }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), doc: fc.integer({ min: 0, max: 400 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("search" as const), query, k }) },
    );
    const params = fc.oneof(
      fc.constant({ k1: 0.9, b: 0.4 }),
      fc.record({ k1: fc.double({ min: 0, max: 3, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.constantFrom({ k1: 0, b: 0.4 }, { k1: 1.2, b: 1 }, { k1: 1.2, b: 0 }),
    );
    fc.assert(
      fc.property(
        params,
        fc.array(op, { maxLength: 400, size: "max" }),
        fc.array(fc.record({ query, k }), { minLength: 1, maxLength: 6 }),
        ({ k1, b }, ops, searches) => {
          const index = new Bm25Index({ k1, b });
          const model = new Map<number, readonly string[]>();
          for (const step of ops) {
            if (step.kind === "search") {
              if (model.size > 0) expect(index.search(step.query, step.k)).toEqual(referenceSearch(model, k1, b)(step.query, step.k));
              continue;
            }
            const first = step.doc * 16;
            if (step.kind === "add") {
              if (model.has(first)) continue;
              for (let doc = first; doc < first + step.copies; doc++) {
                index.add(doc, step.tokens);
                model.set(doc, step.tokens);
              }
            } else {
              for (let doc = first; doc < first + 16; doc++) expect(index.remove(doc)).toBe(model.delete(doc));
            }
          }
          const reference = referenceSearch(model, k1, b);
          for (const { query, k } of searches) expect(index.search(query, k)).toEqual(reference(query, k));
        },
      ),
      // Budgeted by runs, never by wall time, so a loaded machine runs the same 100 cases (about 1 s alone
      // on 2 cores). A run builds indexes of up to a few thousand documents: shrinking a failure can take
      // minutes, hence the long timeout (a hang detector only).
      { numRuns: 100 },
    );
  }, 600_000);

  it("bounds a term by its documents' length / tf: a term only ever held twice still beats a rarer one", () => {
    // "b" is in 5 documents of 8 tokens, twice in each: its bound must allow for length / tf = 4, not
    // 8, or the pruned search would stop after "a" (the rarer term) and miss the "b" documents.
    const index = new Bm25Index({ stopWords: new Set() });
    const model = new Map<number, readonly string[]>();
    const add = (doc: number, tokens: string[]): void => {
      index.add(doc, tokens);
      model.set(doc, tokens);
    };
    add(0, ["a", ...Array.from({ length: 9 }, (_, i) => `fa${i}`)]);
    for (let doc = 1; doc <= 5; doc++) add(doc, ["b", "b", ...Array.from({ length: 6 }, (_, i) => `fb${doc}_${i}`)]);
    for (let doc = 6; doc < 200; doc++)
      add(
        doc,
        ["z", "y", "x", "w", "v", "u"].map((t) => `${t}${doc}`),
      );
    const hits = index.search(["a", "b"], 1);
    expect(hits).toEqual(referenceSearch(model, 0.9, 0.4, new Set())(["a", "b"], 1));
    expect(hits[0]?.doc).toBe(5);
  });

  it("keeps pruned results exact while common terms' per-document codes are built, moved by removes and dropped", () => {
    // "common" is in most memories (up to 5 times), "mid" in a tenth: a search looks them up per
    // surviving document in their codes once they are that common, so the codes must follow every
    // add and remove (a remove moves the last document's codes into the freed slot), and go when the
    // term becomes rare.
    const random = seededRandom(77);
    let next = 0;
    const memory = (common: boolean): string[] => {
      const words = Array.from({ length: 3 + Math.floor(random() * 8) }, () => `r${Math.floor(random() * 2000)}`);
      if (common) for (let i = Math.floor(random() * 5); i >= 0; i--) words.push("common");
      if (random() < 0.1) words.push("mid", ...(random() < 0.3 ? ["mid", "mid"] : []));
      if (random() < 0.05) for (let i = 0; i < 70; i++) words.push(`long${i % 9}`);
      return words;
    };
    const index = new Bm25Index();
    const model = new Map<number, readonly string[]>();
    const add = (count: number, common: number): void => {
      for (let i = 0; i < count; i++) {
        const tokens = memory(random() < common);
        index.add(next, tokens);
        model.set(next++, tokens);
      }
    };
    const remove = (count: number, which: (tokens: readonly string[]) => boolean): void => {
      const docs = [...model].filter(([, tokens]) => which(tokens)).map(([doc]) => doc);
      for (let i = 0; i < count && docs.length > 0; i++) {
        const at = Math.floor(random() * docs.length);
        const doc = docs[at] as number;
        docs[at] = docs[docs.length - 1] as number;
        docs.pop();
        expect(index.remove(doc)).toBe(true);
        model.delete(doc);
      }
    };
    const check = (): void => {
      const reference = referenceSearch(model);
      const docs = [...model.values()];
      for (let q = 0; q < 12; q++) {
        const query = [...(docs[Math.floor(random() * docs.length)] as readonly string[]), "common", "mid"];
        for (const k of [1, 8]) expect(index.search(query, k)).toEqual(reference(query, k));
      }
    };
    add(1500, 0.7);
    check();
    for (let round = 0; round < 4; round++) {
      remove(300, () => true);
      add(200, 0.7);
      check();
    }
    // "common" turns rare: most of its documents go, and new ones lack it.
    remove(100_000, (tokens) => tokens.includes("common") && random() < 0.97);
    add(1500, 0);
    check();
    // …and common again.
    add(1500, 0.9);
    remove(200, () => true);
    check();
  });

  it("prunes without changing results on a larger seeded corpus (whole memories as queries, k 1–50)", () => {
    const random = seededRandom(20_240_611);
    const vocabulary = Array.from({ length: 3000 }, (_, i) => `t${i}`);
    const table = zipfTable(vocabulary.length);
    const stop = [...ENGLISH_STOP_WORDS].slice(0, 20);
    const memory = (): string[] => {
      const words: string[] = [];
      const length = 4 + Math.floor(random() * 27);
      for (let i = 0; i < length; i++) {
        words.push(
          random() < 0.35 ? (stop[Math.floor(random() * stop.length)] as string) : (vocabulary[table[Math.floor(random() * ZIPF_STEPS)] as number] as string),
        );
      }
      return words;
    };
    const index = new Bm25Index();
    const model = new Map<number, readonly string[]>();
    for (let doc = 0; doc < 4000; doc++) {
      const tokens = memory();
      index.add(doc, tokens);
      model.set(doc, tokens);
      // Removing every seventh document now and then leaves maxTf bounds above the lists' real maxima.
      if (doc % 7 === 3 && random() < 0.5) {
        index.remove(doc - 3);
        model.delete(doc - 3);
      }
    }
    const docs = [...model.values()];
    const reference = referenceSearch(model);
    for (let q = 0; q < 80; q++) {
      const whole = docs[Math.floor(random() * docs.length)] as readonly string[];
      const short = memory().slice(0, 2 + Math.floor(random() * 5));
      // Past 64 distinct terms the rescore finds a document's query terms another way.
      const long = Array.from({ length: 8 }, () => docs[Math.floor(random() * docs.length)] as readonly string[]).flat();
      for (const k of [1, 8, 20, 50]) {
        expect(index.search(whole, k)).toEqual(reference(whole, k));
        expect(index.search(short, k)).toEqual(reference(short, k));
        if (q % 8 === 0) expect(index.search(long, k)).toEqual(reference(long, k));
      }
    }
  });
});
