// How the CLI's flags and environment become MemoryStore.open options: the one place model providers plug in.

import type { OpenOptions } from "../node.ts";
import { StoredEmbedder } from "../embedding/stored-embedder.ts";
import { LlmExtractor, LlmJudge, OpenAIEmbedder, readProviderSettings } from "../openai.ts";
import type { OptionSpecs, OptionValues } from "./args.ts";

/**
 * Flags that choose how the store is opened (embedder, extractor, judge),
 * accepted by every command and listed in `moomem --help`. Without them the
 * offline defaults are used; with them, OpenAI-compatible adapters configured
 * from environment variables.
 */
export const OPEN_OPTIONS: OptionSpecs = {
  llm: {
    type: "boolean",
    description: "extract facts and judge conflicts with an OpenAI-compatible chat model (MOOMEM_LLM_BASE_URL, MOOMEM_LLM_API_KEY, MOOMEM_LLM_MODEL)",
  },
  embed: {
    type: "boolean",
    description:
      "embed with an OpenAI-compatible embedding model (MOOMEM_EMBED_BASE_URL, MOOMEM_EMBED_API_KEY, MOOMEM_EMBED_MODEL, MOOMEM_EMBED_DIM); a store made with it needs it for add, recall, import and reextract (list, history, profile, stats, export, forget and restore work without it)",
  },
};

/** What the command needs from the store. */
export interface OpenIntent {
  /** Reading commands take no writer lock, so they work while an agent holds the store. */
  readOnly: boolean;
  /**
   * False for commands that never compute a vector (list, history, profile, stats, export, forget,
   * restore): they open any store, whatever embedder made it, and need no provider settings, so
   * `--embed` and `--llm` mean nothing to them.
   */
  embeds: boolean;
  /** Recompute every vector with the selected embedder (the `reembed` command). */
  reembed?: boolean;
}

/** The options `MemoryStore.open(dir, …)` gets for one command run. */
export function buildOpenOptions(flags: OptionValues, env: Readonly<Record<string, string | undefined>>, intent: OpenIntent): OpenOptions {
  const options: OpenOptions = {};
  if (!intent.embeds) {
    options.embedder = new StoredEmbedder();
    if (intent.readOnly) options.readOnly = true;
    return options;
  }
  const settings = readProviderSettings(env, { llm: flags["llm"] === true, embed: flags["embed"] === true });
  if (settings.llm !== undefined) {
    options.extractor = new LlmExtractor(settings.llm);
    options.judge = new LlmJudge(settings.llm);
  }
  if (settings.embed !== undefined) {
    const { batchSize, ...rest } = settings.embed;
    options.embedder = new OpenAIEmbedder(batchSize === undefined ? rest : { ...rest, batchSize });
  }
  if (intent.readOnly) options.readOnly = true;
  if (intent.reembed === true) options.reembed = true;
  return options;
}
