import { describe, it, expect } from "vitest";
import { OpenAIHttpClient, OpenAIRequestError } from "../../src/adapters/openai/http-client.ts";
import { isMoomemError } from "../../src/errors.ts";
import { FakeFetch, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";

const KEY = "sk-test-SECRET-0123456789abcdef";

function client(steps: Step[], extra: Record<string, unknown> = {}): { fake: FakeFetch; http: OpenAIHttpClient } {
  const fake = new FakeFetch(steps);
  const http = new OpenAIHttpClient(
    { baseURL: "https://llm.example/v1", apiKey: KEY, fetch: fake.fetch, retryDelayMs: 1, maxRetryDelayMs: 50, ...extra },
    "Test",
    1000,
  );
  return { fake, http };
}

async function failure(promise: Promise<unknown>): Promise<OpenAIRequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAIRequestError);
    expect(everythingVisible(error)).not.toContain(KEY);
    return error as OpenAIRequestError;
  }
  throw new Error("expected the request to fail");
}

describe("OpenAIHttpClient", () => {
  it("POSTs JSON with the bearer key to <baseURL>/<path>, keeping a query string", async () => {
    const fake = new FakeFetch([{ json: { ok: 1 } }]);
    const http = new OpenAIHttpClient(
      { baseURL: "https://llm.example/api/v1/?api-version=2024", apiKey: KEY, fetch: fake.fetch, headers: { "X-Extra": "1" } },
      "Test",
      1000,
    );
    expect(await http.postJson("chat/completions", { a: 1 })).toEqual({ ok: 1 });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request!.url).toBe("https://llm.example/api/v1/chat/completions?api-version=2024");
    expect(request!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["x-extra"]).toBe("1");
    expect(request!.body).toEqual({ a: 1 });
  });

  it("sends no authorization header without a key", async () => {
    const fake = new FakeFetch([{ json: {} }]);
    const http = new OpenAIHttpClient({ baseURL: "http://localhost:11434/v1", fetch: fake.fetch }, "Test", 1000);
    await http.postJson("embeddings", {});
    expect(fake.requests[0]!.headers["authorization"]).toBeUndefined();
  });

  it("reports 401 with status, provider message and a hint, redacting a key the provider echoes", async () => {
    const { fake, http } = client([errorAnswer(401, `Incorrect API key provided: ${KEY}.`, { code: "invalid_api_key" })]);
    const error = await failure(http.postJson("chat/completions", {}));
    expect(fake.requests).toHaveLength(1);
    expect(error.kind).toBe("http");
    expect(error.status).toBe(401);
    expect(error.message).toContain("POST https://llm.example/v1/chat/completions");
    expect(error.message).toContain("HTTP 401");
    expect(error.message).toContain("Incorrect API key provided: [redacted]");
    expect(error.message).toMatch(/API key was rejected/);
  });

  const hints: Array<[number, RegExp]> = [
    [403, /access denied/],
    [404, /check baseURL .*\/v1/],
    [400, /responseFormat/],
  ];
  for (const [status, hint] of hints) {
    it(`does not retry HTTP ${status} and explains it`, async () => {
      const { fake, http } = client([errorAnswer(status, "nope")]);
      const error = await failure(http.postJson("x", {}));
      expect(fake.requests).toHaveLength(1);
      expect(error.status).toBe(status);
      expect(error.message).toMatch(hint);
      expect(error.providerMessage).toBe("nope");
    });
  }

  it("retries 429 and 5xx up to maxRetries, then names the attempts", async () => {
    const { fake, http } = client([errorAnswer(503, "overloaded")], { maxRetries: 2 });
    const error = await failure(http.postJson("x", {}));
    expect(fake.requests).toHaveLength(3);
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(3);
    expect(error.message).toContain("after 3 attempts");
    expect(error.message).toMatch(/provider failed/);
  });

  it("succeeds when a retry succeeds, honouring retry-after-ms", async () => {
    const { fake, http } = client([errorAnswer(429, "slow down", { headers: { "retry-after-ms": "5" } }), { json: { fine: true } }]);
    expect(await http.postJson("x", { n: 1 })).toEqual({ fine: true });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body).toEqual({ n: 1 });
  });

  it("fails at once when Retry-After asks for more than maxRetryDelayMs", async () => {
    const { fake, http } = client([errorAnswer(429, "slow down", { headers: { "retry-after": "30" } })]);
    const error = await failure(http.postJson("x", {}));
    expect(fake.requests).toHaveLength(1);
    expect(error.message).toMatch(/wait 30000 ms .* longer than maxRetryDelayMs \(50 ms\)/);
  });

  it("does not retry a 429 that reports an exhausted quota", async () => {
    const { fake, http } = client([errorAnswer(429, "You exceeded your current quota", { code: "insufficient_quota" })]);
    const error = await failure(http.postJson("x", {}));
    expect(fake.requests).toHaveLength(1);
    expect(error.message).toMatch(/out of quota/);
  });

  it("maxRetries 0 sends exactly one request", async () => {
    const { fake, http } = client([errorAnswer(500, "boom")], { maxRetries: 0 });
    await failure(http.postJson("x", {}));
    expect(fake.requests).toHaveLength(1);
  });

  it("times out a request that never answers, without retrying it", async () => {
    const { fake, http } = client([{ hang: true }], { timeoutMs: 30 });
    const error = await failure(http.postJson("x", {}));
    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(/timed out after 30 ms/);
    expect(fake.requests).toHaveLength(1);
  });

  it("times out even when the injected fetch ignores its abort signal", async () => {
    const { http } = client([{ hang: true, ignoreSignal: true }], { timeoutMs: 30 });
    expect((await failure(http.postJson("x", {}))).kind).toBe("timeout");
  });

  it("reports a network failure with its cause, and removes the key from that cause", async () => {
    const cause = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:9 (sent ${KEY})`), { code: "ECONNREFUSED" });
    const { fake, http } = client([{ networkError: new TypeError("fetch failed", { cause }) }]);
    const error = await failure(http.postJson("x", {}));
    expect(fake.requests).toHaveLength(1);
    expect(error.kind).toBe("network");
    expect(error.message).toMatch(/failed before any HTTP answer: fetch failed: connect ECONNREFUSED/);
    expect(error.message).toMatch(/Is the server running/);
    const copied = (error.cause as Error).cause as Error & { code?: string };
    expect(copied.code).toBe("ECONNREFUSED");
    expect(copied.message).toContain("[redacted]");
  });

  it("rejects a 200 whose body is not JSON", async () => {
    const { http } = client([{ text: "<html>gateway</html>" }]);
    const error = await failure(http.postJson("x", {}));
    expect(error.kind).toBe("invalid-response");
    expect(error.message).toContain("<html>gateway</html>");
  });

  it("stops when the caller aborts", async () => {
    const { http } = client([{ hang: true }], { timeoutMs: 5000 });
    const controller = new AbortController();
    const pending = http.postJson("x", {}, controller.signal);
    controller.abort();
    expect((await failure(pending)).kind).toBe("aborted");
  });

  it("redacts secret-looking custom header values too", async () => {
    const fake = new FakeFetch([errorAnswer(401, "bad api-key azure-SECRET-value-123")]);
    const http = new OpenAIHttpClient(
      { baseURL: "https://x.example/v1", headers: { "api-key": "azure-SECRET-value-123" }, fetch: fake.fetch, maxRetries: 0 },
      "Test",
      1000,
    );
    const error = await failure(http.postJson("x", {}));
    expect(everythingVisible(error)).not.toContain("azure-SECRET-value-123");
    expect(error.message).toContain("bad api-key [redacted]");
  });

  it("keeps the key out of the client object itself", () => {
    const { http } = client([{ json: {} }]);
    expect(JSON.stringify(http)).not.toContain(KEY);
    expect(Object.values(http).join(" ")).not.toContain(KEY);
  });

  const badOptions: Array<[string, Record<string, unknown>, RegExp]> = [
    ["baseURL missing", { baseURL: "" }, /baseURL must be a non-empty URL/],
    ["baseURL not a URL", { baseURL: "api.openai.com/v1" }, /baseURL is not a valid URL/],
    ["baseURL ftp", { baseURL: "ftp://x/v1" }, /http or https/],
    ["timeoutMs 0", { timeoutMs: 0 }, /timeoutMs must be an integer/],
    ["maxRetries -1", { maxRetries: -1 }, /maxRetries must be an integer from 0 to 10/],
    ["fetch not a function", { fetch: "nope" }, /fetch must be a function/],
    ["apiKey not a string", { apiKey: 42 }, /apiKey must be a string \(got number\)/],
    ["header value not a string", { headers: { "x-a": 1 } }, /header "x-a" must have a string value/],
  ];
  for (const [name, patch, message] of badOptions) {
    it(`rejects bad options: ${name}`, () => {
      let thrown: unknown;
      try {
        new OpenAIHttpClient({ baseURL: "https://x.example/v1", ...patch } as never, "Test", 1000);
      } catch (error) {
        thrown = error;
      }
      expect(isMoomemError(thrown, "INVALID_ARGUMENT")).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    });
  }
});
