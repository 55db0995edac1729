// Provider settings from environment variables (MOOMEM_LLM_*, MOOMEM_EMBED_*), shared by the CLI and the demo.

import { MoomemError } from "../../errors.ts";

/** Where the chat model for extraction and judging lives. */
export interface LlmSettings {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
}

/** Where the embedding model lives. */
export interface EmbedSettings {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  dim: number;
  batchSize: number | undefined;
}

/**
 * Reads `MOOMEM_LLM_BASE_URL`, `MOOMEM_LLM_API_KEY`, `MOOMEM_LLM_MODEL` (when
 * `want.llm`) and `MOOMEM_EMBED_BASE_URL`, `MOOMEM_EMBED_API_KEY`,
 * `MOOMEM_EMBED_MODEL`, `MOOMEM_EMBED_DIM`, `MOOMEM_EMBED_BATCH_SIZE` (when
 * `want.embed`). Every problem is reported at once, in one `INVALID_ARGUMENT`
 * error, so one round of fixing is enough. An API key may be left out only for
 * a server on this machine (Ollama, vLLM, LM Studio).
 *
 * @example
 * ```ts
 * const { llm } = readProviderSettings(process.env, { llm: true });
 * const extractor = new LlmExtractor(llm!);
 * ```
 */
export function readProviderSettings(
  env: Readonly<Record<string, string | undefined>>,
  want: { llm?: boolean; embed?: boolean },
): { llm?: LlmSettings; embed?: EmbedSettings } {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === "" ? undefined : raw;
  };
  const problems: string[] = [];
  const required = (name: string): string => {
    const v = value(name);
    if (v === undefined) problems.push(`${name} is not set`);
    return v ?? "";
  };
  const key = (urlName: string, keyName: string, base: string): string | undefined => {
    const k = value(keyName);
    if (k === undefined && base !== "" && !isLocal(base)) problems.push(`${keyName} is not set (${urlName} is not a local server)`);
    return k;
  };
  const positive = (name: string, what = "a positive integer"): number | undefined => {
    const raw = value(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) {
      problems.push(`${name} must be ${what} (got "${raw}")`);
      return undefined;
    }
    return n;
  };
  const out: { llm?: LlmSettings; embed?: EmbedSettings } = {};
  if (want.llm === true) {
    const baseURL = required("MOOMEM_LLM_BASE_URL");
    out.llm = { baseURL, apiKey: key("MOOMEM_LLM_BASE_URL", "MOOMEM_LLM_API_KEY", baseURL), model: required("MOOMEM_LLM_MODEL") };
  }
  if (want.embed === true) {
    const baseURL = required("MOOMEM_EMBED_BASE_URL");
    const apiKey = key("MOOMEM_EMBED_BASE_URL", "MOOMEM_EMBED_API_KEY", baseURL);
    const model = required("MOOMEM_EMBED_MODEL");
    if (value("MOOMEM_EMBED_DIM") === undefined) problems.push("MOOMEM_EMBED_DIM is not set (the length of the model's vectors, e.g. 1024)");
    const dim = positive("MOOMEM_EMBED_DIM", "the embedding length, a positive integer") ?? 0;
    out.embed = { baseURL, apiKey, model, dim, batchSize: positive("MOOMEM_EMBED_BATCH_SIZE") };
  }
  if (problems.length > 0) {
    // Name every variable of the groups asked for: the message is all a user of the installed package has to go on.
    const wanted = [...(want.llm === true ? LLM_VARIABLES : []), ...(want.embed === true ? EMBED_VARIABLES : [])];
    throw new MoomemError(
      "INVALID_ARGUMENT",
      `model provider settings are incomplete: ${problems.join("; ")}. Set these environment variables: ${wanted.join("; ")}`,
    );
  }
  return out;
}

/** What each variable holds, for the error message. */
const LLM_VARIABLES = [
  "MOOMEM_LLM_BASE_URL (the chat API root, e.g. https://api.deepseek.com/v1 or http://localhost:11434/v1)",
  "MOOMEM_LLM_API_KEY (may be left out for a server on this machine)",
  "MOOMEM_LLM_MODEL (e.g. deepseek-chat, gpt-4o-mini, llama3.1)",
];
const EMBED_VARIABLES = [
  "MOOMEM_EMBED_BASE_URL (the embeddings API root, e.g. https://api.openai.com/v1)",
  "MOOMEM_EMBED_API_KEY (may be left out for a server on this machine)",
  "MOOMEM_EMBED_MODEL (e.g. text-embedding-3-small)",
  "MOOMEM_EMBED_DIM (the model's vector length, e.g. 1536)",
  "MOOMEM_EMBED_BATCH_SIZE (optional: texts per request, default 64)",
];

function isLocal(url: string): boolean {
  try {
    return ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname);
  } catch {
    // Not a URL: the adapter's own check names the value and shows an example.
    return false;
  }
}
