// The model-answer checks of the OpenAI adapters: JSON parsing and the extraction / verdict schemas.
import { describe, it, expect } from "vitest";
import { parseModelJson, validateExtraction, validateVerdicts } from "../../src/adapters/openai/schema.ts";

describe("parseModelJson", () => {
  it("parses plain, fenced and prose-wrapped JSON", () => {
    const want = { facts: [] };
    for (const text of ['{"facts": []}', '```json\n{"facts": []}\n```', 'Sure! Here it is: {"facts": []} Hope that helps.']) {
      const result = parseModelJson(text);
      expect(result).toEqual({ ok: true, value: want });
    }
  });

  it("fails on blank and broken answers with a problem that quotes them", () => {
    const blank = parseModelJson("   ");
    expect(blank.ok).toBe(false);
    if (!blank.ok) expect(blank.problem).toMatch(/empty/);
    const broken = parseModelJson('{"facts": [');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.problem).toMatch(/not valid JSON .*"\{\\"facts\\": \["/);
  });
});

describe("validateExtraction", () => {
  it("accepts facts, normalising kind and key and keeping the source span", () => {
    const result = validateExtraction({
      facts: [
        { content: " User is allergic to peanuts ", kind: "Fact", key: "allergy_peanuts", source_span: "I'm allergic to peanuts" },
        { content: "User likes tea", kind: "preference", key: "Favorite Drink" },
        { content: "User has an exam on Friday", kind: "event", key: "examDate", sourceSpan: "exam on Friday" },
        { content: "用户住在深圳", kind: "fact", key: "居住城市", source_span: null },
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: [
        { content: "User is allergic to peanuts", kind: "fact", key: "allergy_peanuts", sourceSpan: "I'm allergic to peanuts" },
        { content: "User likes tea", kind: "preference", key: "favorite_drink" },
        { content: "User has an exam on Friday", kind: "event", key: "exam_date", sourceSpan: "exam on Friday" },
        { content: "用户住在深圳", kind: "fact" },
      ],
    });
  });

  it("accepts an empty list and a bare array", () => {
    expect(validateExtraction({ facts: [] })).toEqual({ ok: true, value: [] });
    expect(validateExtraction([{ content: "x", kind: "fact" }])).toEqual({ ok: true, value: [{ content: "x", kind: "fact" }] });
  });

  it("drops a key longer than 64 characters", () => {
    const result = validateExtraction({ facts: [{ content: "x", kind: "fact", key: "k".repeat(65) }] });
    expect(result).toEqual({ ok: true, value: [{ content: "x", kind: "fact" }] });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["no facts array", { memories: [] }, /"facts" array/],
    ["a string", "facts", /"facts" array/],
    ["fact not an object", { facts: ["x"] }, /facts\[0\] is not an object/],
    ["empty content", { facts: [{ content: "  ", kind: "fact" }] }, /facts\[0\]\.content must be a non-empty string/],
    ["content not text", { facts: [{ content: 3, kind: "fact" }] }, /facts\[0\]\.content/],
    ["unknown kind", { facts: [{ content: "x", kind: "opinion" }] }, /facts\[0\]\.kind is "opinion"/],
    ["unstructured kind", { facts: [{ content: "x", kind: "unstructured" }] }, /kind is "unstructured"/],
    ["missing kind", { facts: [{ content: "x" }] }, /kind is null/],
  ];
  for (const [name, value, problem] of bad) {
    it(`fails: ${name}`, () => {
      const result = validateExtraction(value);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(problem);
    });
  }
});

describe("validateVerdicts", () => {
  it("accepts numbered verdicts, numeric strings and the id alias", () => {
    const result = validateVerdicts(
      {
        verdicts: [
          { candidate: 1, decision: "Replace", reason: " moved " },
          { id: "[2]", decision: "ignore" },
          { candidate: "3", decision: "coexist", reason: 5 },
        ],
      },
      3,
    );
    expect(result).toEqual({
      ok: true,
      value: [
        { candidate: 1, decision: "replace", reason: "moved" },
        { candidate: 2, decision: "ignore" },
        { candidate: 3, decision: "coexist" },
      ],
    });
  });

  it("allows candidates to be left out", () => {
    expect(validateVerdicts({ verdicts: [] }, 2)).toEqual({ ok: true, value: [] });
  });

  it("cuts very long reasons", () => {
    const result = validateVerdicts({ verdicts: [{ candidate: 1, decision: "ignore", reason: "r".repeat(900) }] }, 1);
    expect(result.ok && result.value[0]!.reason!.length).toBe(501);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["no verdicts array", { answers: [] }, /"verdicts" array/],
    ["number out of range", { verdicts: [{ candidate: 3, decision: "ignore" }] }, /candidate is 3; use a memory number from 1 to 2/],
    ["zero", { verdicts: [{ candidate: 0, decision: "ignore" }] }, /from 1 to 2/],
    ["entry id instead of number", { verdicts: [{ id: "m_abc", decision: "ignore" }] }, /candidate is "m_abc"/],
    [
      "twice",
      {
        verdicts: [
          { candidate: 1, decision: "ignore" },
          { candidate: 1, decision: "replace" },
        ],
      },
      /memory 1 twice/,
    ],
    ["merge", { verdicts: [{ candidate: 1, decision: "merge" }] }, /decision is "merge"/],
    ["verdict not an object", { verdicts: [1] }, /verdicts\[0\] is not an object/],
  ];
  for (const [name, value, problem] of bad) {
    it(`fails: ${name}`, () => {
      const result = validateVerdicts(value, 2);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(problem);
    });
  }
});
