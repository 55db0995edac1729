// The raw extractor (the default before 0.2): the user's own words, stored as they are.

import type { ChatMessage, ExtractedFact, Extractor } from "../types.ts";
import { stripMemoryContext } from "../text/context-markers.ts";
import { userText } from "../text/transcript.ts";

/**
 * Stores the input itself as one memory of kind `unstructured` (no model, no
 * filtering: questions and small talk too). The default extractor is
 * `PatternExtractor`; use this one to keep every word, e.g. to benchmark
 * retrieval on raw dialogue turns (`npm run eval` does). For a chat transcript,
 * the user's messages are kept (what the assistant said is not a fact about the
 * user); a transcript with no user message yields nothing. Memory blocks that `formatContext` put into a prompt
 * (`<moomem-context>` … `</moomem-context>`) are removed first, so an agent
 * that passes its whole prompt back to `add` does not learn its recalled
 * memories a second time; an input that was only such a block yields nothing.
 *
 * @example
 * ```ts
 * const mem = await MemoryStore.open("./memory", { extractor: new RawExtractor() });
 * ```
 */
export class RawExtractor implements Extractor {
  readonly mode: string = "raw";
  /** It finds no facts: `reextract` has nothing to do with it. */
  readonly verbatim: boolean = true;

  extract(_userId: string, input: string | readonly ChatMessage[]): Promise<ExtractedFact[]> {
    const text = typeof input === "string" ? stripMemoryContext(input) : userText(input);
    if (text.trim().length === 0) return Promise.resolve([]);
    return Promise.resolve([{ content: text.trim(), kind: "unstructured" }]);
  }
}
