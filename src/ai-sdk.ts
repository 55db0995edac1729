// The `moomem/ai-sdk` entry: Vercel AI SDK tools over a MemoryStore (needs the optional peer dependency `ai`).

export {
  memoryTools,
  type MemoryTools,
  type MemoryToolsOptions,
  type MemoryToolsStore,
  type RememberInput,
  type RememberOutput,
  type RecallInput,
  type RecallOutput,
  type RecalledMemory,
} from "./integrations/ai-sdk-tools.ts";
export type { RememberedFact } from "./integrations/tool-results.ts";
