// The "chat → text" seam the LLM extractor and judge call, and its OpenAI chat-completions implementation.

import { MoomemError } from "../../errors.ts";
import type { ChatMessage } from "../../types.ts";
import { excerpt, OpenAIHttpClient, OpenAIRequestError, type ConnectionOptions } from "./http-client.ts";

/** What the extractor and judge tell a chat function about one call. */
export interface ChatCallOptions {
  /** True when the answer must be one JSON object (the prompts always ask for one). */
  json: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Sends messages to a chat model and resolves to the text of its answer. Any async function of this shape plugs
 * into `LlmExtractor` / `LlmJudge`, so a host can reuse the model client it already has.
 *
 * @example Vercel AI SDK
 * ```ts
 * import { generateText } from "ai";
 * const chat: ChatFunction = async (messages) =>
 *   (await generateText({ model, messages: messages as ModelMessage[], temperature: 0 })).text;
 * const extractor = new LlmExtractor({ chat });
 * ```
 */
export type ChatFunction = (messages: ChatMessage[], options: ChatCallOptions) => Promise<string>;

/** Settings of {@link openAIChat}. */
export interface OpenAIChatOptions extends ConnectionOptions {
  /** Chat model name, e.g. `gpt-4o-mini`, `deepseek-chat`, `qwen-plus`, `llama3.1`. */
  model: string;
  /** Sampling temperature (default 0: extraction and judging should not be creative). */
  temperature?: number | undefined;
  /** Sent as `max_tokens` when set; an answer cut off by it fails clearly instead of as broken JSON. */
  maxTokens?: number | undefined;
  /**
   * `"json_object"` (default) sends `response_format: { type: "json_object" }` when JSON is wanted;
   * `"none"` omits it, for servers that reject the field (the prompts ask for JSON either way).
   */
  responseFormat?: "json_object" | "none" | undefined;
}

/** Default per-attempt timeout of a chat call: models can take a while on a long transcript. */
export const DEFAULT_CHAT_TIMEOUT_MS = 60_000;

/**
 * A {@link ChatFunction} that POSTs `<baseURL>/chat/completions` on any OpenAI-compatible server
 * (OpenAI, DeepSeek, Qwen/DashScope compatible mode, Ollama, vLLM, LM Studio).
 * The returned function rejects with an `OpenAIRequestError` whose message never contains the API key.
 *
 * @example
 * ```ts
 * const chat = openAIChat({ baseURL: "https://api.deepseek.com/v1", apiKey: process.env.DEEPSEEK_API_KEY, model: "deepseek-chat" });
 * const text = await chat([{ role: "user", content: "Answer in JSON: {\"ok\": true}" }], { json: true });
 * ```
 */
export function openAIChat(options: OpenAIChatOptions): ChatFunction {
  const owner = "openAIChat";
  if (typeof options !== "object" || options === null) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: pass an options object { baseURL, apiKey?, model }.`);
  }
  const client = new OpenAIHttpClient(options, owner, DEFAULT_CHAT_TIMEOUT_MS);
  const model = requireModel(options.model, owner);
  const temperature = options.temperature ?? 0;
  if (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: temperature must be a number from 0 to 2 (got ${String(temperature)}).`);
  }
  const maxTokens = options.maxTokens;
  if (maxTokens !== undefined && (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: maxTokens must be a positive integer (got ${String(maxTokens)}).`);
  }
  const responseFormat = options.responseFormat ?? "json_object";
  if (responseFormat !== "json_object" && responseFormat !== "none") {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: responseFormat must be "json_object" or "none" (got ${JSON.stringify(responseFormat)}).`);
  }

  return async (messages, callOptions) => {
    const body: Record<string, unknown> = {
      model,
      messages: messages.map((message) => ({ role: message.role, content: message.content })),
      temperature,
    };
    if (callOptions.json && responseFormat === "json_object") body["response_format"] = { type: "json_object" };
    if (maxTokens !== undefined) body["max_tokens"] = maxTokens;
    const answer = await client.postJson("chat/completions", body, callOptions.signal);
    return readCompletionText(answer, client, model);
  };
}

/** Checks a model name option (shared with the embedder). */
export function requireModel(model: unknown, owner: string): string {
  if (typeof model !== "string" || model.trim() === "") {
    throw new MoomemError(
      "INVALID_ARGUMENT",
      `${owner}: model must be a non-empty string naming the provider's model (got ${typeof model === "string" ? '""' : typeof model}).`,
    );
  }
  return model.trim();
}

/** The assistant text of a chat-completions answer, or an `invalid-response` failure saying what was off. */
function readCompletionText(answer: unknown, client: OpenAIHttpClient, model: string): string {
  const endpoint = `POST ${client.baseLabel}/chat/completions`;
  const fail = (what: string): never => {
    throw new OpenAIRequestError("invalid-response", `${endpoint} (model ${model}): ${client.redact(what)}`, { endpoint, attempts: 1 });
  };
  const choices = (answer as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return fail("the answer has no choices[0]; is this an OpenAI-compatible chat endpoint?");
  const choice = choices[0] as { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown } | null;
  const message = choice?.message;
  if (typeof message?.refusal === "string" && message.refusal.trim() !== "") {
    return fail(`the model refused: ${JSON.stringify(excerpt(client.redact(message.refusal)))}`);
  }
  if (choice?.finish_reason === "length") {
    return fail('the answer was cut off by the token limit (finish_reason "length"); raise maxTokens or send less text.');
  }
  const content = message?.content;
  // A secret can never be part of a real answer, but a proxy that echoes its request would put one there, and the
  // text goes on into facts, retry prompts and error messages: it leaves the adapter redacted.
  if (typeof content === "string") return client.redact(content);
  if (Array.isArray(content)) {
    // Some servers answer with content parts instead of one string.
    const parts = content.map((part: unknown) => (typeof part === "string" ? part : (part as { text?: unknown } | null)?.text));
    if (parts.every((part) => typeof part === "string")) return client.redact(parts.join(""));
  }
  return fail("choices[0].message.content is not text.");
}

/** How `LlmExtractor` / `LlmJudge` reach a model: any chat function, or an OpenAI-compatible server. */
export type LlmOptions =
  | {
      /** Any async chat → text function (e.g. one wrapping the Vercel AI SDK's `generateText`). */
      chat: ChatFunction;
      /** Time limit per call in ms (default 60 000); the function gets an AbortSignal that fires then. */
      timeoutMs?: number | undefined;
    }
  | OpenAIChatOptions;

/**
 * The chat function an LLM adapter calls: `options.chat` guarded by a time limit (a hung model call must not
 * block the store's write queue forever), or {@link openAIChat} built from the connection options.
 */
export function resolveChat(options: LlmOptions, owner: string): ChatFunction {
  if (typeof options !== "object" || options === null) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: pass { chat } (an async chat function) or { baseURL, apiKey?, model }.`);
  }
  if (!("chat" in options)) return openAIChat(options);
  const chat = options.chat;
  if (typeof chat !== "function") {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: chat must be an async function (messages, { json }) => string (got ${typeof chat}).`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: timeoutMs must be a positive integer of ms (got ${String(timeoutMs)}).`);
  }
  return (messages, callOptions) => withTimeout(chat, messages, callOptions, timeoutMs);
}

async function withTimeout(chat: ChatFunction, messages: ChatMessage[], callOptions: ChatCallOptions, timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  const outer = callOptions.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = (): void => controller.abort();
  outer?.addEventListener("abort", onAbort, { once: true });
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the chat function did not answer within ${timeoutMs} ms (timeoutMs).`));
    }, timeoutMs);
  });
  try {
    const answer: unknown = await Promise.race([chat(messages, { json: callOptions.json, signal: controller.signal }), deadline]);
    if (typeof answer !== "string") throw new Error(`the chat function resolved to ${answer === null ? "null" : typeof answer}, not the model's text.`);
    return answer;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}
