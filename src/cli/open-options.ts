// How the CLI's flags and environment become MemoryStore.open options: the one place model providers plug in.

import type { OpenOptions } from "../node.ts";
import type { OptionSpecs, OptionValues } from "./args.ts";

/**
 * Flags that choose how the store is opened (embedder, extractor, judge),
 * accepted by every command and listed in `moomem --help`. Empty for now: the
 * offline defaults need none. `--llm` / `--embed` (OpenAI-compatible
 * adapters configured from environment variables) are added here.
 */
export const OPEN_OPTIONS: OptionSpecs = {};

/** What the command needs from the store. */
export interface OpenIntent {
  /** Reading commands take no writer lock, so they work while an agent holds the store. */
  readOnly: boolean;
  /** Recompute every vector with the selected embedder (the `reembed` command). */
  reembed?: boolean;
}

/** The options `MemoryStore.open(dir, …)` gets for one command run. */
export function buildOpenOptions(_flags: OptionValues, _env: Readonly<Record<string, string | undefined>>, intent: OpenIntent): OpenOptions {
  const options: OpenOptions = {};
  if (intent.readOnly) options.readOnly = true;
  if (intent.reembed === true) options.reembed = true;
  return options;
}
