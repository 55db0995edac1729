import { describe, it, expect } from "vitest";
import { openAIChat } from "../../src/openai.ts";
import { resolveChat } from "../../src/adapters/openai/chat.ts";
import { OpenAIRequestError } from "../../src/adapters/openai/http-client.ts";
import { FakeFetch, chatAnswer, errorAnswer, everythingVisible } from "./fake-fetch.ts";

const KEY = "sk-chat-SECRET-1234567890";
const messages = [
  { role: "system", content: "Answer in JSON." },
  { role: "user", content: "hi" },
];

describe("openAIChat", () => {
  it("POSTs /chat/completions with model, messages, temperature 0 and JSON mode", async () => {
    const fake = new FakeFetch([chatAnswer('{"facts": []}')]);
    const chat = openAIChat({ baseURL: "https://api.deepseek.example/v1/", apiKey: KEY, model: "deepseek-chat", fetch: fake.fetch });
    expect(await chat(messages, { json: true })).toBe('{"facts": []}');
    expect(fake.requests[0]!.url).toBe("https://api.deepseek.example/v1/chat/completions");
    expect(fake.requests[0]!.body).toEqual({
      model: "deepseek-chat",
      messages,
      temperature: 0,
      response_format: { type: "json_object" },
    });
  });

  it("leaves out response_format when JSON is not wanted or the server cannot do it, and sends max_tokens", async () => {
    const fake = new FakeFetch([chatAnswer("ok")]);
    const plain = openAIChat({ baseURL: "http://localhost:1234/v1", model: "m", fetch: fake.fetch, temperature: 0.3, maxTokens: 500 });
    await plain(messages, { json: false });
    expect(fake.requests[0]!.body).toEqual({ model: "m", messages, temperature: 0.3, max_tokens: 500 });
    const noFormat = openAIChat({ baseURL: "http://localhost:1234/v1", model: "m", fetch: fake.fetch, responseFormat: "none" });
    await noFormat(messages, { json: true });
    expect(fake.requests[1]!.body["response_format"]).toBeUndefined();
  });

  it("strips extra fields from messages", async () => {
    const fake = new FakeFetch([chatAnswer("ok")]);
    const chat = openAIChat({ baseURL: "http://localhost:1234/v1", model: "m", fetch: fake.fetch });
    await chat([{ role: "user", content: "hi", name: "x" } as never], { json: false });
    expect(fake.requests[0]!.body["messages"]).toEqual([{ role: "user", content: "hi" }]);
  });

  it("joins content parts", async () => {
    const fake = new FakeFetch([
      {
        json: {
          choices: [
            {
              message: {
                content: [
                  { type: "text", text: '{"a"' },
                  { type: "text", text: ":1}" },
                ],
              },
            },
          ],
        },
      },
    ]);
    const chat = openAIChat({ baseURL: "http://localhost:1234/v1", model: "m", fetch: fake.fetch });
    expect(await chat(messages, { json: true })).toBe('{"a":1}');
  });

  const broken: Array<[string, unknown, RegExp]> = [
    ["no choices", { choices: [] }, /no choices\[0\]/],
    ["cut off", { choices: [{ message: { content: '{"facts": [' }, finish_reason: "length" }] }, /cut off by the token limit/],
    ["refusal", { choices: [{ message: { content: null, refusal: "I can't help" } }] }, /refused: "I can't help"/],
    ["null content", { choices: [{ message: { content: null } }] }, /content is not text/],
  ];
  for (const [name, json, message] of broken) {
    it(`fails clearly on an answer with ${name}`, async () => {
      const fake = new FakeFetch([{ json }]);
      const chat = openAIChat({ baseURL: "http://localhost:1234/v1", apiKey: KEY, model: "m", fetch: fake.fetch });
      const error = await chat(messages, { json: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpenAIRequestError);
      expect((error as OpenAIRequestError).kind).toBe("invalid-response");
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain("model m");
    });
  }

  it("rejects with an OpenAIRequestError free of the key on HTTP errors", async () => {
    const fake = new FakeFetch([errorAnswer(401, `bad key ${KEY}`)]);
    const chat = openAIChat({ baseURL: "http://localhost:1234/v1", apiKey: KEY, model: "m", fetch: fake.fetch });
    const error = await chat(messages, { json: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as OpenAIRequestError).status).toBe(401);
    expect(everythingVisible(error)).not.toContain(KEY);
  });

  it("validates its options", () => {
    expect(() => openAIChat({ baseURL: "http://x/v1", model: " " })).toThrow(/model must be a non-empty string/);
    expect(() => openAIChat({ baseURL: "http://x/v1", model: "m", temperature: 3 })).toThrow(/temperature must be a number from 0 to 2/);
    expect(() => openAIChat({ baseURL: "http://x/v1", model: "m", maxTokens: 0 })).toThrow(/maxTokens must be a positive integer/);
    expect(() => openAIChat({ baseURL: "http://x/v1", model: "m", responseFormat: "json_schema" as never })).toThrow(/responseFormat must be/);
  });
});

describe("resolveChat with a host chat function", () => {
  it("passes messages, the json flag and a signal through", async () => {
    const seen: unknown[] = [];
    const chat = resolveChat(
      {
        chat: async (m, o) => {
          seen.push(m, o.json, o.signal instanceof AbortSignal);
          return "answer";
        },
      },
      "Test",
    );
    expect(await chat(messages, { json: true })).toBe("answer");
    expect(seen).toEqual([messages, true, true]);
  });

  it("times out a host function that never answers, and aborts its signal", async () => {
    let aborted = false;
    const chat = resolveChat(
      {
        timeoutMs: 20,
        chat: (_m, o) =>
          new Promise<string>(() => {
            o.signal?.addEventListener("abort", () => {
              aborted = true;
            });
          }),
      },
      "Test",
    );
    await expect(chat(messages, { json: true })).rejects.toThrow(/did not answer within 20 ms/);
    expect(aborted).toBe(true);
  });

  it("rejects a host function that resolves to something other than text", async () => {
    const chat = resolveChat({ chat: async () => ({ text: "x" }) as never }, "Test");
    await expect(chat(messages, { json: true })).rejects.toThrow(/resolved to object, not the model's text/);
  });

  it("validates the chat option", () => {
    expect(() => resolveChat({ chat: "nope" } as never, "Test")).toThrow(/chat must be an async function/);
    expect(() => resolveChat({ chat: async () => "", timeoutMs: -1 }, "Test")).toThrow(/timeoutMs must be a positive integer/);
  });
});
