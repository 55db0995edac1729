import { describe, it, expect } from "vitest";
import { LlmExtractor, type ChatFunction } from "../../src/openai.ts";
import { isMoomemError, type MoomemError } from "../../src/errors.ts";
import type { ChatMessage, ExtractionReport } from "../../src/types.ts";
import { FakeFetch, chatAnswer, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";

const KEY = "sk-extract-SECRET-77777777";
const PEANUTS = '{"facts": [{"content": "User is allergic to peanuts", "kind": "fact", "key": "allergy_peanuts", "source_span": "I\'m allergic to peanuts"}]}';

function extractor(steps: Step[], extra: Record<string, unknown> = {}): { fake: FakeFetch; x: LlmExtractor } {
  const fake = new FakeFetch(steps);
  const x = new LlmExtractor({ baseURL: "https://llm.example/v1", apiKey: KEY, model: "deepseek-chat", fetch: fake.fetch, maxRetries: 0, ...extra });
  return { fake, x };
}

async function extractionFailure(promise: Promise<unknown>): Promise<MoomemError> {
  try {
    await promise;
  } catch (error) {
    expect(isMoomemError(error, "EXTRACTION_FAILURE")).toBe(true);
    expect(everythingVisible(error)).not.toContain(KEY);
    return error as MoomemError;
  }
  throw new Error("expected extract to fail");
}

describe("LlmExtractor", () => {
  it("has mode llm and returns the validated facts from one call", async () => {
    const { fake, x } = extractor([chatAnswer(PEANUTS)]);
    expect(x.mode).toBe("llm");
    const report: ExtractionReport = { retried: false };
    const facts = await x.extract("u1", "hi! I'm allergic to peanuts", report);
    expect(facts).toEqual([{ content: "User is allergic to peanuts", kind: "fact", key: "allergy_peanuts", sourceSpan: "I'm allergic to peanuts" }]);
    expect(report.retried).toBe(false);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body;
    expect(body["model"]).toBe("deepseek-chat");
    expect(body["temperature"]).toBe(0);
    expect(body["response_format"]).toEqual({ type: "json_object" });
    const sent = body["messages"] as ChatMessage[];
    expect(sent.map((m) => m.role)).toEqual(["system", "user"]);
    expect(sent[1]!.content).toContain("user: hi! I'm allergic to peanuts");
    expect(JSON.stringify(body)).not.toContain("u1");
  });

  it("returns no facts for small talk", async () => {
    const { x } = extractor([chatAnswer('{"facts": []}')]);
    expect(await x.extract("u1", "lol ok, thanks!")).toEqual([]);
  });

  it("retries once after invalid JSON, showing the model its answer, and reports the retry", async () => {
    const { fake, x } = extractor([chatAnswer("Sure, the user is allergic to peanuts."), chatAnswer(PEANUTS)]);
    const report: ExtractionReport = { retried: false };
    const facts = await x.extract("u1", "I'm allergic to peanuts", report);
    expect(facts).toHaveLength(1);
    expect(report.retried).toBe(true);
    expect(fake.requests).toHaveLength(2);
    const retry = fake.requests[1]!.body["messages"] as ChatMessage[];
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry[2]!.content).toBe("Sure, the user is allergic to peanuts.");
    expect(retry[3]!.content).toMatch(/not valid JSON/);
  });

  it("retries once after a schema failure", async () => {
    const { fake, x } = extractor([chatAnswer('{"facts": [{"content": "User likes tea", "kind": "opinion"}]}'), chatAnswer('{"facts": []}')]);
    const report: ExtractionReport = { retried: false };
    expect(await x.extract("u1", "I like tea", report)).toEqual([]);
    expect(report.retried).toBe(true);
    expect((fake.requests[1]!.body["messages"] as ChatMessage[])[3]!.content).toMatch(/kind is "opinion"/);
  });

  it("throws EXTRACTION_FAILURE after two bad answers, never a third call", async () => {
    const { fake, x } = extractor([chatAnswer("garbage"), chatAnswer("{not json either")]);
    const report: ExtractionReport = { retried: false };
    const error = await extractionFailure(x.extract("u1", "I'm allergic to peanuts", report));
    expect(fake.requests).toHaveLength(2);
    expect(report.retried).toBe(true);
    expect(error.message).toMatch(/unusable answers twice \(first: the answer is not valid JSON.*then: the answer is not valid JSON/);
  });

  it("treats DeepSeek's blank JSON-mode answer as invalid", async () => {
    const { fake, x } = extractor([chatAnswer("   "), chatAnswer(PEANUTS)]);
    expect(await x.extract("u1", "I'm allergic to peanuts")).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  const transport: Array<[string, Step, RegExp]> = [
    ["HTTP 500", errorAnswer(500, "upstream exploded"), /HTTP 500.*upstream exploded/],
    ["HTTP 429", errorAnswer(429, `slow down ${KEY}`), /HTTP 429.*slow down \[redacted\]/],
    ["a network error", { networkError: new TypeError("fetch failed") }, /failed before any HTTP answer/],
    ["a timeout", { hang: true }, /timed out after 30 ms/],
  ];
  for (const [name, step, message] of transport) {
    it(`throws at once on ${name} (no extractor retry)`, async () => {
      const { fake, x } = extractor([step], { timeoutMs: 30 });
      const error = await extractionFailure(x.extract("u1", "I'm allergic to peanuts"));
      expect(error.message).toMatch(/^LlmExtractor: the model call failed: /);
      expect(error.message).toMatch(message);
      expect(fake.requests).toHaveLength(1);
    });
  }

  it("makes no call when only moomem's injected context is left", async () => {
    const { fake, x } = extractor([chatAnswer(PEANUTS)]);
    const facts = await x.extract("u1", [
      { role: "system", content: "<moomem-context>\n- User is allergic to peanuts\n</moomem-context>" },
      { role: "user", content: "<moomem-context>\n- User is allergic to peanuts\n</moomem-context>" },
    ]);
    expect(facts).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it("accepts any chat function (e.g. one wrapping the Vercel AI SDK)", async () => {
    const calls: Array<{ messages: ChatMessage[]; json: boolean }> = [];
    const chat: ChatFunction = async (messages, options) => {
      calls.push({ messages, json: options.json });
      return PEANUTS;
    };
    const x = new LlmExtractor({ chat });
    expect(x.chat).toBeTypeOf("function");
    expect(await x.extract("u1", [{ role: "user", content: "I'm allergic to peanuts" }])).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.json).toBe(true);
  });

  it("wraps a chat function's failure as EXTRACTION_FAILURE with the cause", async () => {
    const boom = new Error("provider down");
    const x = new LlmExtractor({ chat: () => Promise.reject(boom) });
    const error = await extractionFailure(x.extract("u1", "I have a dog"));
    expect(error.message).toBe("LlmExtractor: the model call failed: provider down");
    expect(error.cause).toBe(boom);
  });

  it("validates its arguments", async () => {
    expect(() => new LlmExtractor({} as never)).toThrow(/baseURL must be a non-empty URL/);
    expect(() => new LlmExtractor(null as never)).toThrow(/pass \{ chat \}/);
    const { x } = extractor([chatAnswer(PEANUTS)]);
    await expect(x.extract("u1", 42 as never)).rejects.toThrow(/input must be text or an array/);
    await expect(x.extract("u1", [{ role: "user" }] as never)).rejects.toThrow(/input\[0\] must be \{ role: string, content: string \}/);
  });
});
