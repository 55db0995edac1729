// A wrong provider configuration (HTTP 401/403/404, an embedder of another dimension) fails the first call with
// PROVIDER_CONFIG and stores nothing; passing failures (429, 5xx, timeouts, network) keep degrading.

import { describe, it, expect } from "vitest";
import { LlmExtractor, LlmJudge, OpenAIEmbedder } from "../../src/openai.ts";
import { MemoryStore } from "../../src/index.ts";
import { MoomemError } from "../../src/errors.ts";
import { FakeFetch, chatAnswer, embeddingAnswer, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";

const KEY = "sk-config-SECRET-31415926535";
const BASE = "https://llm.example/v1";

async function caught(promise: Promise<unknown>): Promise<MoomemError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MoomemError);
    expect(everythingVisible(error)).not.toContain(KEY);
    return error as MoomemError;
  }
  throw new Error("expected a rejection");
}

const refusals: Array<[number, RegExp]> = [
  [401, /API key was rejected; check apiKey/],
  [403, /access denied/],
  [404, /check baseURL .*and the model name/],
];

describe("configuration failures are PROVIDER_CONFIG at the adapters", () => {
  for (const [status, hint] of refusals) {
    it(`HTTP ${status}: extractor, judge and embedder fail with PROVIDER_CONFIG after one request, saying what to fix`, async () => {
      const fake = new FakeFetch([errorAnswer(status, `refused ${KEY}`)]);
      const connection = { baseURL: BASE, apiKey: KEY, model: "m", fetch: fake.fetch };
      const errors = [
        await caught(new LlmExtractor(connection).extract("u", "I live in Oslo")),
        await caught(
          new LlmJudge(connection).judge({ content: "User lives in Oslo", kind: "fact" }, [
            { id: "a", userId: "u", content: "User lives in Rome", kind: "fact", status: "active", createdAt: 0, updatedAt: 0, seq: 1, metadata: {} },
          ]),
        ),
        await caught(new OpenAIEmbedder({ ...connection, dim: 3 }).embed(["hello"])),
      ];
      expect(fake.requests).toHaveLength(3); // one each: a refused configuration is never retried
      for (const error of errors) {
        expect(error.code).toBe("PROVIDER_CONFIG");
        expect(error.message).toContain(`HTTP ${status}`);
        expect(error.message).toMatch(hint);
        expect(error.message).toContain("refused [redacted]");
      }
    });
  }

  it("an embedder whose model answers another vector length fails with PROVIDER_CONFIG naming the right dim", async () => {
    const fake = new FakeFetch([embeddingAnswer([[1, 0, 0, 0]])]);
    const error = await caught(new OpenAIEmbedder({ baseURL: BASE, apiKey: KEY, model: "e", dim: 3, fetch: fake.fetch }).embed(["hello"]));
    expect(error.code).toBe("PROVIDER_CONFIG");
    expect(error.message).toMatch(/vectors of 4 dimensions, but dim is 3; set dim: 4/);
  });

  it("a chat function's error carrying a 401 (the AI SDK's APICallError has statusCode) is PROVIDER_CONFIG too; a 500 is not", async () => {
    const apiCallError = (statusCode: number): Error => Object.assign(new Error(`HTTP ${statusCode} from provider`), { name: "AI_APICallError", statusCode });
    const unauthorized = await caught(new LlmExtractor({ chat: () => Promise.reject(apiCallError(401)) }).extract("u", "I live in Oslo"));
    expect(unauthorized.code).toBe("PROVIDER_CONFIG");
    const failing = await caught(new LlmExtractor({ chat: () => Promise.reject(apiCallError(500)) }).extract("u", "I live in Oslo"));
    expect(failing.code).toBe("EXTRACTION_FAILURE");
    const own = new MoomemError("PROVIDER_CONFIG", "host says: bad key");
    expect(await caught(new LlmExtractor({ chat: () => Promise.reject(own) }).extract("u", "x y"))).toBe(own);
  });

  const passing: Array<[string, Step]> = [
    ["HTTP 429", errorAnswer(429, "slow down")],
    ["HTTP 500", errorAnswer(500, "boom")],
    ["HTTP 400", errorAnswer(400, "bad request")],
    ["a network error", { networkError: new TypeError("fetch failed") }],
    ["a timeout", { hang: true }],
  ];
  for (const [name, step] of passing) {
    it(`${name} stays a degradable EXTRACTION_FAILURE / EMBEDDING_FAILURE`, async () => {
      const connection = { baseURL: BASE, apiKey: KEY, model: "m", maxRetries: 0, timeoutMs: 30 };
      expect((await caught(new LlmExtractor({ ...connection, fetch: new FakeFetch([step]).fetch }).extract("u", "I live in Oslo"))).code).toBe(
        "EXTRACTION_FAILURE",
      );
      expect((await caught(new OpenAIEmbedder({ ...connection, dim: 3, fetch: new FakeFetch([step]).fetch }).embed(["x"]))).code).toBe("EMBEDDING_FAILURE");
    });
  }
});

describe("the store fails the first add on a configuration failure and stores nothing", () => {
  const city = (name: string): Step => chatAnswer(`{"facts": [{"content": "User lives in ${name}", "kind": "fact", "key": "home_city"}]}`);

  it("a rejected key on the extractor: the first add rejects, nothing stored, and so does the next", async () => {
    const fake = new FakeFetch([errorAnswer(401, "Incorrect API key provided")]);
    const mem = await MemoryStore.open(":memory:", { extractor: new LlmExtractor({ baseURL: BASE, apiKey: KEY, model: "m", fetch: fake.fetch }) });
    for (let i = 0; i < 3; i++) {
      const error = await caught(mem.add("u", `I live in Oslo ${i}`));
      expect(error.code).toBe("PROVIDER_CONFIG");
    }
    expect(await mem.list("u")).toEqual([]);
    expect((await mem.stats()).total).toBe(0);
    await mem.close();
  });

  it("an embedder with the wrong dim: add and recall reject (no silent keyword-only recall), nothing stored", async () => {
    const fake = new FakeFetch([embeddingAnswer([[1, 0, 0, 0]])]);
    const mem = await MemoryStore.open(":memory:", { embedder: new OpenAIEmbedder({ baseURL: BASE, apiKey: KEY, model: "e", dim: 3, fetch: fake.fetch }) });
    expect((await caught(mem.add("u", "I'm allergic to peanuts"))).code).toBe("PROVIDER_CONFIG");
    expect(await mem.list("u")).toEqual([]);
    expect((await caught(mem.recall("u", "peanuts"))).code).toBe("PROVIDER_CONFIG");
    await mem.close();
  });

  it("a rejected key on the judge: the add that needs a judgement rejects and changes nothing", async () => {
    const judgeFetch = new FakeFetch([errorAnswer(403, "model not allowed for this key")]);
    const mem = await MemoryStore.open(":memory:", {
      extractor: new LlmExtractor({ baseURL: BASE, apiKey: KEY, model: "m", fetch: new FakeFetch([city("Oslo"), city("Bergen")]).fetch }),
      judge: new LlmJudge({ baseURL: BASE, apiKey: KEY, model: "judge", fetch: judgeFetch.fetch }),
    });
    const first = await mem.add("u", "I live in Oslo");
    expect(first.inserted).toBe(1);
    const before = await mem.list("u", { status: "all" });
    const error = await caught(mem.add("u", "I moved to Bergen"));
    expect(error.code).toBe("PROVIDER_CONFIG");
    expect(judgeFetch.requests).toHaveLength(1);
    expect(await mem.list("u", { status: "all" })).toEqual(before);
    await mem.close();
  });

  it("import and reextract stop on a configuration failure and change nothing", async () => {
    const source = await MemoryStore.open(":memory:");
    await source.add("u", "I'm allergic to peanuts");
    const lines: string[] = [];
    for await (const line of source.export()) lines.push(line);
    await source.close();
    const embedder = new OpenAIEmbedder({ baseURL: BASE, apiKey: KEY, model: "e", dim: 3, fetch: new FakeFetch([errorAnswer(401, "bad key")]).fetch });
    const target = await MemoryStore.open(":memory:", { embedder });
    expect((await caught(target.import(lines))).code).toBe("PROVIDER_CONFIG");
    expect((await target.stats()).total).toBe(0);
    await target.close();

    // A text kept raw while the model was down; then the key is revoked: reextract stops and keeps it raw.
    const chat = new FakeFetch([errorAnswer(500, "down"), errorAnswer(401, "key revoked")]);
    const mem = await MemoryStore.open(":memory:", {
      extractor: new LlmExtractor({ baseURL: BASE, apiKey: KEY, model: "m", maxRetries: 0, fetch: chat.fetch }),
    });
    expect((await mem.add("u", "I live in Oslo")).degraded).toBe(true);
    const before = await mem.list("u", { status: "all" });
    expect((await caught(mem.reextract("u"))).code).toBe("PROVIDER_CONFIG");
    expect(await mem.list("u", { status: "all" })).toEqual(before);
    await mem.close();
  });

  it("a passing failure (HTTP 500) still degrades: the text is kept unstructured and recalled", async () => {
    const mem = await MemoryStore.open(":memory:", {
      extractor: new LlmExtractor({ baseURL: BASE, apiKey: KEY, model: "m", maxRetries: 0, fetch: new FakeFetch([errorAnswer(500, "boom")]).fetch }),
    });
    const summary = await mem.add("u", "I'm allergic to peanuts");
    expect(summary).toMatchObject({ degraded: true, inserted: 1 });
    expect((await mem.recall("u", "peanuts")).map((h) => h.content)).toEqual(["I'm allergic to peanuts"]);
    await mem.close();
  });
});
