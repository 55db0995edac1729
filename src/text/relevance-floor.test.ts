// Tests of the Chinese stop words and the relevance floor: function words alone never make a match.

import { describe, it, expect } from "vitest";
import { contentFeatures, sharesContent } from "./relevance-floor.ts";
import { CJK_STOP_CHARACTERS, STOP_WORDS, isCjkStopToken } from "./stop-words.ts";
import { tokenize } from "./tokenizer.ts";

describe("Chinese stop words", () => {
  it("treat function characters, pairs of them and a few longer function words as stop words", () => {
    for (const w of ["我", "你", "的", "了", "吗", "是", "在", "能", "什么", "我的", "是不", "为什么", "們"]) expect(isCjkStopToken(w), w).toBe(true);
    for (const w of ["花生", "北京", "能吃", "过敏", "我住", "吃"]) expect(isCjkStopToken(w), w).toBe(false);
    expect(CJK_STOP_CHARACTERS.has("我")).toBe(true);
  });

  it("are stop words for BM25 by default, next to the English ones", () => {
    for (const w of ["i", "the", "我", "吗", "什么", "我能"]) expect(STOP_WORDS.has(w), w).toBe(true);
    for (const w of ["peanut", "花生", "能吃"]) expect(STOP_WORDS.has(w), w).toBe(false);
    // Every token of a pure function-word query is a stop word.
    expect(tokenize("我能吗？").filter((t) => !STOP_WORDS.has(t))).toEqual([]);
  });
});

describe("relevance floor", () => {
  it("finds no shared content between a question and memories that share only function words with it", () => {
    expect(sharesContent("我能吃花生吗？", "我住在北京")).toBe(false);
    expect(sharesContent("我能吃花生吗？", "我搬到深圳了")).toBe(false);
    expect(sharesContent("我能吃花生吗？", "我对花生过敏")).toBe(true);
    expect(sharesContent("what is it?", "it is what it is")).toBe(false);
    expect(sharesContent("Can I eat peanuts?", "I live in Beijing")).toBe(false);
    expect(sharesContent("Can I eat peanuts?", "I'm allergic to peanuts")).toBe(true);
  });

  it("counts word pieces (allergy / allergic) and numbers as content", () => {
    expect(sharesContent("peanut allergy", "I'm allergic to nuts")).toBe(true);
    expect(sharesContent("order 1234", "my order #1234 shipped")).toBe(true);
    expect(contentFeatures("I am the one").size).toBe(0);
  });
});
