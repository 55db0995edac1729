// The `moomem/openai` entry: OpenAI-compatible embedder, LLM extractor and judge over fetch (no SDK).

export { OpenAIEmbedder, DEFAULT_EMBED_TIMEOUT_MS, type OpenAIEmbedderOptions } from "./adapters/openai/openai-embedder.ts";
export { LlmExtractor, type LlmExtractorOptions } from "./adapters/openai/llm-extractor.ts";
export { LlmJudge, NO_VERDICT_REASON, type LlmJudgeOptions } from "./adapters/openai/llm-judge.ts";
export {
  openAIChat,
  DEFAULT_CHAT_TIMEOUT_MS,
  type ChatFunction,
  type ChatCallOptions,
  type OpenAIChatOptions,
  type LlmOptions,
} from "./adapters/openai/chat.ts";
export {
  OpenAIRequestError,
  type ConnectionOptions,
  type FetchLike,
  type FetchInitLike,
  type FetchResponseLike,
  type OpenAIFailureKind,
} from "./adapters/openai/http-client.ts";
export {
  EXTRACTION_SYSTEM_PROMPT,
  JUDGE_SYSTEM_PROMPT,
  buildExtractionMessages,
  buildExtractionRetryMessages,
  buildJudgeMessages,
  type JudgeItem,
  type JudgeNumbering,
} from "./adapters/openai/prompts.ts";
export { parseModelJson, validateExtraction, validateVerdicts, type SchemaResult, type NumberedVerdict } from "./adapters/openai/schema.ts";
export { MEMORY_CONTEXT_OPEN, MEMORY_CONTEXT_CLOSE, stripMemoryContext } from "./text/context-markers.ts";
export { readProviderSettings, type LlmSettings, type EmbedSettings } from "./adapters/openai/env-settings.ts";
