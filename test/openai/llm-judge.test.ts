import { describe, it, expect } from "vitest";
import { LlmJudge, NO_VERDICT_REASON } from "../../src/openai.ts";
import { isMoomemError } from "../../src/errors.ts";
import type { ChatMessage, MemoryEntry } from "../../src/types.ts";
import { FakeFetch, chatAnswer, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";

const KEY = "sk-judge-SECRET-99999999";

function entry(id: string, content: string, key?: string): MemoryEntry {
  return {
    id,
    userId: "u1",
    content,
    kind: "fact",
    status: "active",
    createdAt: Date.UTC(2024, 0, 5),
    updatedAt: 0,
    seq: 1,
    metadata: {},
    ...(key === undefined ? {} : { key }),
  };
}

function judge(steps: Step[]): { fake: FakeFetch; j: LlmJudge } {
  const fake = new FakeFetch(steps);
  return { fake, j: new LlmJudge({ baseURL: "https://llm.example/v1", apiKey: KEY, model: "m", fetch: fake.fetch, maxRetries: 0 }) };
}

const moved = { content: "User has moved to Shenzhen", kind: "fact" as const, key: "home_city" };
const beijing = entry("m_1", "User lives in Beijing", "home_city");
const hiking = entry("m_2", "User likes hiking");

describe("LlmJudge", () => {
  it("maps numbered verdicts back to entry ids, in candidate order", async () => {
    const { fake, j } = judge([
      chatAnswer(
        '{"verdicts": [{"candidate": 2, "decision": "ignore", "reason": "unrelated"}, {"candidate": 1, "decision": "replace", "reason": "moved away from Beijing"}]}',
      ),
    ]);
    expect(j.name).toBe("llm");
    const verdicts = await j.judge(moved, [beijing, hiking]);
    expect(verdicts).toEqual([
      { id: "m_1", decision: "replace", reason: "moved away from Beijing" },
      { id: "m_2", decision: "ignore", reason: "unrelated" },
    ]);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body;
    expect(body["response_format"]).toEqual({ type: "json_object" });
    const user = (body["messages"] as ChatMessage[])[1]!.content;
    expect(user).toContain("[1] (kind fact, key home_city, stored 2024-01-05) User lives in Beijing");
    expect(user).not.toContain("m_1");
  });

  it("counts a candidate the model skipped as ignore", async () => {
    const { j } = judge([chatAnswer('{"verdicts": [{"candidate": 1, "decision": "replace"}]}')]);
    expect(await j.judge(moved, [beijing, hiking])).toEqual([
      { id: "m_1", decision: "replace" },
      { id: "m_2", decision: "ignore", reason: NO_VERDICT_REASON },
    ]);
  });

  it("makes no call without candidates", async () => {
    const { fake, j } = judge([chatAnswer('{"verdicts": []}')]);
    expect(await j.judge(moved, [])).toEqual([]);
    expect(
      await j.judgeAll([
        { fact: moved, candidates: [] },
        { fact: moved, candidates: [] },
      ]),
    ).toEqual([[], []]);
    expect(fake.requests).toHaveLength(0);
  });

  it("judges several facts of one add in a single call", async () => {
    const { fake, j } = judge([
      chatAnswer('{"verdicts": [{"candidate": 1, "decision": "replace", "reason": "moved"}, {"candidate": 2, "decision": "coexist", "reason": "maybe both"}]}'),
    ]);
    const result = await j.judgeAll([
      { fact: moved, candidates: [beijing] },
      { fact: { content: "User has a cat", kind: "fact" }, candidates: [] },
      { fact: { content: "User prefers climbing", kind: "preference" }, candidates: [hiking] },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(result).toEqual([[{ id: "m_1", decision: "replace", reason: "moved" }], [], [{ id: "m_2", decision: "coexist", reason: "maybe both" }]]);
  });

  const bad: Array<[string, Step, RegExp]> = [
    ["invalid JSON", chatAnswer("replace it"), /unusable answer from the model: the answer is not valid JSON/],
    ["an unknown candidate", chatAnswer('{"verdicts": [{"candidate": 7, "decision": "replace"}]}'), /candidate is 7; use a memory number from 1 to 2/],
    ["a bad decision", chatAnswer('{"verdicts": [{"candidate": 1, "decision": "merge"}]}'), /decision is "merge"/],
    ["HTTP 503", errorAnswer(503, `busy ${KEY}`), /the model call failed: .*HTTP 503/],
  ];
  for (const [name, step, message] of bad) {
    it(`throws EXTRACTION_FAILURE on ${name}, after exactly one call`, async () => {
      const { fake, j } = judge([step, chatAnswer('{"verdicts": []}')]);
      const error = await j.judge(moved, [beijing, hiking]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMoomemError(error, "EXTRACTION_FAILURE")).toBe(true);
      expect((error as Error).message).toMatch(/^LlmJudge: /);
      expect((error as Error).message).toMatch(message);
      expect(everythingVisible(error)).not.toContain(KEY);
      expect(fake.requests).toHaveLength(1);
    });
  }

  it("validates its arguments", async () => {
    const { j } = judge([chatAnswer('{"verdicts": []}')]);
    await expect(j.judgeAll("x" as never)).rejects.toThrow(/expected an array of \{ fact, candidates \}/);
    await expect(j.judge({ content: "", kind: "fact" }, [beijing])).rejects.toThrow(/non-empty string content/);
    await expect(j.judge(moved, [{ id: 1 }] as never)).rejects.toThrow(/candidate 0 must be an entry/);
  });
});
