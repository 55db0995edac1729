// Extractor that asks a chat model for the reusable facts in an input (README, "Plugging in a model provider"), with one retry on bad output.

import { describeError, MoomemError } from "../../errors.ts";
import type { ChatMessage, ExtractedFact, ExtractionReport, Extractor } from "../../types.ts";
import { resolveChat, type ChatFunction, type LlmOptions } from "./chat.ts";
import { buildExtractionMessages, buildExtractionRetryMessages } from "./prompts.ts";
import { providerConfigError } from "./provider-config.ts";
import { parseModelJson, validateExtraction, type SchemaResult } from "./schema.ts";

/** Settings of {@link LlmExtractor}: `{ chat }` or `{ baseURL, apiKey?, model, timeoutMs?, fetch?, … }`. */
export type LlmExtractorOptions = LlmOptions;

/**
 * Finds facts worth remembering with a chat model: only reusable facts about the user (kinds fact / preference /
 * event), each with a slot `key` and its source span; small talk, feelings of the moment, third-party chatter
 * and what the assistant said are dropped. moomem's own injected `<moomem-context>` blocks are removed first.
 *
 * One model call per `extract`; an answer that is not valid JSON or breaks the schema is retried once (then
 * `report.retried` is set, so the store judges offline and the add stays within 2 model calls). A failed model
 * call, or a second bad answer, rejects with `EXTRACTION_FAILURE`; the store then keeps the text as an
 * `unstructured` entry (docs/decisions.md, "The add pipeline").
 *
 * @example
 * ```ts
 * const extractor = new LlmExtractor({ baseURL: "https://api.deepseek.com/v1", apiKey: process.env.DEEPSEEK_API_KEY, model: "deepseek-chat" });
 * const store = await MemoryStore.open("./memory", { extractor, judge: new LlmJudge({ chat: extractor.chat }) });
 * ```
 */
export class LlmExtractor implements Extractor {
  readonly mode: string = "llm";
  /** The chat function this extractor calls (reuse it for an `LlmJudge`). */
  readonly chat: ChatFunction;

  constructor(options: LlmExtractorOptions) {
    this.chat = resolveChat(options, "LlmExtractor");
  }

  async extract(userId: string, input: string | readonly ChatMessage[], report?: ExtractionReport): Promise<ExtractedFact[]> {
    checkInput(userId, input);
    const messages = buildExtractionMessages(input);
    // Nothing the user said survived (only injected memories, system or assistant text): no call needed.
    if (messages === null) return [];
    const first = await this.#ask(messages);
    const firstResult = readFacts(first);
    if (firstResult.ok) return firstResult.value;
    if (report !== undefined) report.retried = true;
    const second = await this.#ask(buildExtractionRetryMessages(messages, first, firstResult.problem));
    const secondResult = readFacts(second);
    if (secondResult.ok) return secondResult.value;
    throw new MoomemError(
      "EXTRACTION_FAILURE",
      `LlmExtractor: the model gave unusable answers twice (first: ${firstResult.problem} then: ${secondResult.problem})`,
    );
  }

  async #ask(messages: ChatMessage[]): Promise<string> {
    try {
      return await this.chat(messages, { json: true });
    } catch (error) {
      const reason = describeError(error);
      throw (
        providerConfigError("LlmExtractor", reason, error) ??
        new MoomemError("EXTRACTION_FAILURE", `LlmExtractor: the model call failed: ${reason}`, { cause: error })
      );
    }
  }
}

function readFacts(answer: string): SchemaResult<ExtractedFact[]> {
  const parsed = parseModelJson(answer);
  return parsed.ok ? validateExtraction(parsed.value) : parsed;
}

function checkInput(userId: unknown, input: unknown): void {
  if (typeof userId !== "string") {
    throw new MoomemError("INVALID_ARGUMENT", `LlmExtractor.extract: userId must be a string (got ${typeof userId}).`);
  }
  if (typeof input === "string") return;
  if (!Array.isArray(input)) {
    throw new MoomemError("INVALID_ARGUMENT", `LlmExtractor.extract: input must be text or an array of { role, content } messages (got ${typeof input}).`);
  }
  input.forEach((message: unknown, i) => {
    const { role, content } = (typeof message === "object" && message !== null ? message : {}) as { role?: unknown; content?: unknown };
    if (typeof role !== "string" || typeof content !== "string") {
      throw new MoomemError("INVALID_ARGUMENT", `LlmExtractor.extract: input[${i}] must be { role: string, content: string }.`);
    }
  });
}
