// Tests of the offline SimilarityJudge: keys first, then similarity, and no replace between a fact and its qualified look-alike.

import { describe, it, expect } from "vitest";
import { SimilarityJudge, type JudgeCandidate } from "./similarity-judge.ts";
import { HashingEmbedder } from "../embedding/hashing-embedder.ts";
import type { ExtractedFact } from "../types.ts";

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
  return key === undefined ? { content, kind: "fact", embedding: embedder.embedOne(content) } : { content, kind: "fact", key, embedding: embedder.embedOne(content) };
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
    const verdict = judge.judgeOne(fact("I am 30 years old"), candidate("I am 29 years old"));
    expect(judge.similarity(fact("I am 30 years old"), candidate("I am 29 years old"))).toBeGreaterThanOrEqual(0.82);
    expect(verdict.decision).toBe("replace");
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
