// No configured secret (API key, secret header or query values, a password in baseURL) leaves the adapters,
// whole or in part, however the provider or the runtime quotes it back (shared suite: a scripted fetch).

import { describe, it, expect } from "vitest";
import { OpenAIHttpClient } from "../../src/adapters/openai/http-client.ts";
import { LlmExtractor, OpenAIEmbedder, openAIChat } from "../../src/openai.ts";
import { isMoomemError } from "../../src/errors.ts";
import { FakeFetch, chatAnswer, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";
import { base64Of, leakedFragments } from "./secret-fragments.ts";

// "/" and "+" change under URL encoding; the quote and backslash under JSON escaping.
const KEY = "sk-leak-Zq8/Wv+3Rm0Tx7Kp2Ld9Hs4Nc6Bf1Yg5";
const HEADER_SECRET = 'tenant"Qx7\\Vb2Mn8Lp4Kz1';
const QUERY_SECRET = "q-Jm3/Rt8+Wy2Hd6Ns0Fc";
const SECRETS = [KEY, HEADER_SECRET, QUERY_SECRET];
const BASE = `https://llm.example/v1?api-key=${encodeURIComponent(QUERY_SECRET)}`;

function client(steps: Step[]): OpenAIHttpClient {
  const fake = new FakeFetch(steps);
  return new OpenAIHttpClient(
    { baseURL: BASE, apiKey: KEY, headers: { "x-tenant": HEADER_SECRET }, fetch: fake.fetch, maxRetries: 0, timeoutMs: 1000 },
    "Test",
    1000,
  );
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Every fragment of any secret (8 characters or more, in any encoding) that `error` shows anywhere. */
function leaksIn(error: unknown): string[] {
  const visible = everythingVisible(error);
  return SECRETS.flatMap((secret) => leakedFragments(visible, secret));
}

/** A provider message with `secret` so far in that the usual 300-character excerpt cuts it in two. */
function straddling(secret: string, at = 300): string {
  return `${"x".repeat(at - Math.floor(secret.length / 2))}${secret} and more text after it`;
}

describe("secrets in what a provider answers", () => {
  const echoes: Array<[string, (secret: string) => string]> = [
    ["whole", (s) => `Incorrect API key provided: ${s}.`],
    ["straddling the excerpt cut", (s) => straddling(s)],
    ["straddling the cut after whitespace is collapsed", (s) => `${"  \n".repeat(200)}${straddling(s, 290)}`],
    ["in part (its first half)", (s) => `key ${s.slice(0, Math.ceil(s.length / 2))}… is not valid`],
    ["in part (its last half)", (s) => `key …${s.slice(Math.floor(s.length / 2))} is not valid`],
    ["URL-encoded", (s) => `GET /v1?key=${encodeURIComponent(s)} rejected`],
    ["base64-encoded", (s) => `credentials ${base64Of(s)} rejected`],
    ["JSON-escaped", (s) => `{"detail": ${JSON.stringify(`bad ${s}`)}} (raw)`],
  ];
  for (const [how, echo] of echoes) {
    for (const status of [401, 500]) {
      it(`an HTTP ${status} whose message echoes every secret ${how} shows none of them`, async () => {
        const text = SECRETS.map(echo).join(" | ");
        const error = await caught(client([errorAnswer(status, text)]).postJson("chat/completions", {}));
        expect(leaksIn(error)).toEqual([]);
        expect(everythingVisible(error)).toContain(`HTTP ${status}`);
      });
    }
    it(`a body that is not JSON, echoing every secret ${how}, shows none of them`, async () => {
      const error = await caught(client([{ status: 502, text: `<html>${SECRETS.map(echo).join(" ")}</html>` }]).postJson("x", {}));
      expect(leaksIn(error)).toEqual([]);
      const ok200 = await caught(client([{ text: `<html>${SECRETS.map(echo).join(" ")}</html>` }]).postJson("x", {}));
      expect(leaksIn(ok200)).toEqual([]);
    });
  }

  it("the HTTP status text is cleaned too", async () => {
    const http = new OpenAIHttpClient(
      {
        baseURL: BASE,
        apiKey: KEY,
        maxRetries: 0,
        fetch: () =>
          Promise.resolve({ ok: false, status: 418, statusText: `teapot ${KEY.slice(0, 20)}`, headers: new Headers(), text: () => Promise.resolve("") }),
      },
      "Test",
      1000,
    );
    expect(leaksIn(await caught(http.postJson("x", {})))).toEqual([]);
  });

  it("a network error quoting the full URL (as Deno's fetch does) shows no query secret", async () => {
    const url = `https://llm.example/v1/chat/completions?api-key=${encodeURIComponent(QUERY_SECRET)}`;
    const networkError = new TypeError(`error sending request for url (${url}): client error (Connect)`, {
      cause: Object.assign(new Error(`tcp connect error to ${url}; key ${QUERY_SECRET}`), { code: "ECONNREFUSED", url }),
    });
    const error = await caught(client([{ networkError }]).postJson("chat/completions", {}));
    expect(leaksIn(error)).toEqual([]);
    expect(String(error)).toMatch(/failed before any HTTP answer/);
  });

  it("a chat answer that quotes the key (a proxy echoing its request) returns it redacted", async () => {
    const chat = openAIChat({ baseURL: BASE, apiKey: KEY, model: "m", fetch: new FakeFetch([chatAnswer(`{"facts": [], "echo": "${KEY}"}`)]).fetch });
    const text = await chat([{ role: "user", content: "hi" }], { json: true });
    expect(SECRETS.flatMap((s) => leakedFragments(text, s))).toEqual([]);
    expect(JSON.parse(text)).toMatchObject({ facts: [] });
  });

  it("a refusal or an unusable answer quoting the key past the excerpt cut shows none of it", async () => {
    const refusal = { json: { choices: [{ message: { content: null, refusal: straddling(KEY) }, finish_reason: "stop" }] } };
    const chat = openAIChat({ baseURL: BASE, apiKey: KEY, model: "m", maxRetries: 0, fetch: new FakeFetch([refusal]).fetch });
    expect(leaksIn(await caught(chat([{ role: "user", content: "hi" }], { json: true })))).toEqual([]);

    const extractor = new LlmExtractor({
      baseURL: BASE,
      apiKey: KEY,
      model: "m",
      fetch: new FakeFetch([chatAnswer(`not json ${straddling(KEY, 100)}`)]).fetch,
    });
    const error = await caught(extractor.extract("u", "I live in Oslo"));
    expect(isMoomemError(error, "EXTRACTION_FAILURE")).toBe(true);
    expect(leaksIn(error)).toEqual([]);
  });

  it("an embedder failure shows no secret either", async () => {
    const embedder = new OpenAIEmbedder({
      baseURL: BASE,
      apiKey: KEY,
      headers: { "x-tenant": HEADER_SECRET },
      model: "e",
      dim: 4,
      maxRetries: 0,
      fetch: new FakeFetch([errorAnswer(500, SECRETS.map((s) => straddling(s, 120)).join(" "))]).fetch,
    });
    expect(leaksIn(await caught(embedder.embed(["hello"])))).toEqual([]);
  });
});

describe("secrets in baseURL", () => {
  const PASSWORD = "Pw-8vK2mQ7xR4tZ9";

  for (const baseURL of [
    `http://svc:${PASSWORD}@127.0.0.1:8080/v1`,
    `https://${PASSWORD}@llm.example/v1`,
    `http://svc:${encodeURIComponent(PASSWORD + "/+")}@h/v1`,
  ]) {
    it(`rejects user info in baseURL without quoting it (${baseURL.replace(PASSWORD, "…")})`, () => {
      const attempts: Array<() => unknown> = [
        () => new OpenAIHttpClient({ baseURL }, "Test", 1000),
        () => new OpenAIEmbedder({ baseURL, model: "e", dim: 4 }),
        () => new LlmExtractor({ baseURL, model: "m" }),
      ];
      for (const attempt of attempts) {
        let thrown: unknown;
        try {
          attempt();
        } catch (error) {
          thrown = error;
        }
        expect(isMoomemError(thrown, "INVALID_ARGUMENT")).toBe(true);
        expect((thrown as Error).message).toMatch(/user name or password/);
        expect(leakedFragments(everythingVisible(thrown), PASSWORD)).toEqual([]);
      }
    });
  }

  it("a malformed baseURL holding a password is not quoted back (nor kept in the cause)", () => {
    let thrown: unknown;
    try {
      new OpenAIHttpClient({ baseURL: `http://svc:${PASSWORD}@bad host/v1` }, "Test", 1000);
    } catch (error) {
      thrown = error;
    }
    expect(isMoomemError(thrown, "INVALID_ARGUMENT")).toBe(true);
    expect(leakedFragments(everythingVisible(thrown), PASSWORD)).toEqual([]);
  });
});
