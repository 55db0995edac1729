// The OpenAI adapters over the runtime's real fetch against a local server: wire format, retries, timeouts, dead servers.

import { describe, it, expect, beforeAll, afterAll, beforeEach } from "vitest";
import { LlmExtractor, LlmJudge, OpenAIEmbedder, OpenAIRequestError, openAIChat } from "../../../src/openai.ts";
import { isMoomemError } from "../../../src/errors.ts";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, type Reply, type ServedRequest } from "./openai-server.ts";
import { everythingVisible } from "../../openai/fake-fetch.ts";

const KEY = "sk-wire-SECRET-5a5a5a5a5a5a5a5a";
let server: ScriptedOpenAIServer;

beforeAll(async () => {
  server = await ScriptedOpenAIServer.start(() => ({ status: 500, json: { error: { message: "no script" } } }));
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

/** Replies in order; the last repeats. */
function script(...replies: Array<Reply | ((request: ServedRequest) => Reply)>): void {
  server.handler = (request) => {
    const next = replies.length > 1 ? replies.shift()! : replies[0]!;
    return typeof next === "function" ? next(request) : next;
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(everythingVisible(error)).not.toContain(KEY);
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("OpenAI adapters against a local server", () => {
  it("sends a chat-completions request as OpenAI expects", async () => {
    script(chatReply('{"facts": [{"content": "User is allergic to peanuts", "kind": "fact", "key": "allergy_peanuts"}]}'));
    const extractor = new LlmExtractor({ baseURL: server.baseURL, apiKey: KEY, model: "gpt-4o-mini" });
    const facts = await extractor.extract("u1", "I'm allergic to peanuts");
    expect(facts).toEqual([{ content: "User is allergic to peanuts", kind: "fact", key: "allergy_peanuts" }]);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(Object.keys(request!.body).sort()).toEqual(["messages", "model", "response_format", "temperature"]);
    expect(request!.body["model"]).toBe("gpt-4o-mini");
    expect(request!.body["temperature"]).toBe(0);
    expect(request!.body["response_format"]).toEqual({ type: "json_object" });
    const messages = request!.body["messages"] as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toMatch(/JSON/);
  });

  it("sends embeddings in batches with encoding_format float", async () => {
    script(hashEmbeddings(16));
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: KEY, model: "text-embedding-v3", dim: 16, batchSize: 10 });
    const texts = Array.from({ length: 23 }, (_v, i) => `text number ${i}`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(23);
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const calls = server.calls("embeddings");
    expect(calls.map((c) => (c.body["input"] as string[]).length)).toEqual([10, 10, 3]);
    expect(calls[0]!.body).toEqual({ model: "text-embedding-v3", input: texts.slice(0, 10), encoding_format: "float" });
  });

  it("retries 429 (honouring Retry-After) and 500, then succeeds", async () => {
    script({ status: 429, headers: { "retry-after": "0" }, json: { error: { message: "rate limit" } } }, { status: 500, text: "oops" }, chatReply("hello"));
    const chat = openAIChat({ baseURL: server.baseURL, apiKey: KEY, model: "m", retryDelayMs: 1 });
    expect(await chat([{ role: "user", content: "hi" }], { json: false })).toBe("hello");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries on a persistent 500, naming status and provider message", async () => {
    script({ status: 500, json: { error: { message: "The server had an error while processing your request" } } });
    const chat = openAIChat({ baseURL: server.baseURL, apiKey: KEY, model: "m", maxRetries: 1, retryDelayMs: 1 });
    const error = (await rejection(chat([{ role: "user", content: "hi" }], { json: true }))) as OpenAIRequestError;
    expect(server.requests).toHaveLength(2);
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/HTTP 500 Internal Server Error \(after 2 attempts\): "The server had an error/);
  });

  it("times out a server that never answers", async () => {
    script({ hang: true });
    const extractor = new LlmExtractor({ baseURL: server.baseURL, apiKey: KEY, model: "m", timeoutMs: 150 });
    const error = await rejection(extractor.extract("u1", "I live in Beijing"));
    expect(isMoomemError(error, "EXTRACTION_FAILURE")).toBe(true);
    expect(error.message).toMatch(/timed out after 150 ms/);
    // A timeout is not retried (a wall-clock bound here would depend on the machine's load).
    expect(server.requests).toHaveLength(1);
  });

  it("reports a connection that is dropped mid-request", async () => {
    script({ destroy: true });
    const judge = new LlmJudge({ baseURL: server.baseURL, apiKey: KEY, model: "m", maxRetries: 0 });
    const candidate = {
      id: "m_1",
      userId: "u1",
      content: "User lives in Beijing",
      kind: "fact" as const,
      status: "active" as const,
      createdAt: 0,
      updatedAt: 0,
      seq: 1,
      metadata: {},
    };
    const error = await rejection(judge.judge({ content: "User moved to Shenzhen", kind: "fact" }, [candidate]));
    expect(isMoomemError(error, "EXTRACTION_FAILURE")).toBe(true);
    expect(error.message).toMatch(/failed before any HTTP answer/);
  });

  it("reports a server that is down (connection refused)", async () => {
    const gone = await ScriptedOpenAIServer.start(() => chatReply("{}"));
    const baseURL = gone.baseURL;
    await gone.close();
    const embedder = new OpenAIEmbedder({ baseURL, apiKey: KEY, model: "m", dim: 8 });
    const error = await rejection(embedder.embed(["hello"]));
    expect(isMoomemError(error, "EMBEDDING_FAILURE")).toBe(true);
    expect(error.message).toMatch(/failed before any HTTP answer: .*Is the server running/);
  });

  it("rejects an HTML error page served with 200", async () => {
    script({ text: "<html><body>Bad gateway</body></html>", headers: { "content-type": "text/html" } });
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: KEY, model: "m", dim: 8 });
    const error = await rejection(embedder.embed(["hello"]));
    expect(error.message).toMatch(/body that is not JSON: "<html><body>Bad gateway/);
  });

  it("redacts a key that a 401 answer echoes back", async () => {
    script({ status: 401, json: { error: { message: `Incorrect API key provided: ${KEY}`, code: "invalid_api_key" } } });
    const chat = openAIChat({ baseURL: server.baseURL, apiKey: KEY, model: "m" });
    const error = await rejection(chat([{ role: "user", content: "hi" }], { json: true }));
    expect(error.message).toContain("Incorrect API key provided: [redacted]");
    expect(server.requests).toHaveLength(1);
  });
});
