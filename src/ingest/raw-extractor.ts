// The default extractor: the user's own words, stored as they are.

import type { ChatMessage, ExtractedFact, Extractor } from "../types.ts";
import { stripMemoryContext } from "../text/context-markers.ts";

/**
 * Stores the input itself as one memory of kind `unstructured` (no model, no
 * filtering). For a chat transcript, the user's messages are kept (what the
 * assistant said is not a fact about the user); a transcript with no user
 * message yields nothing. Memory blocks that `formatContext` put into a prompt
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

  extract(_userId: string, input: string | readonly ChatMessage[]): Promise<ExtractedFact[]> {
    const text = typeof input === "string" ? stripMemoryContext(input) : userText(input);
    if (text.trim().length === 0) return Promise.resolve([]);
    return Promise.resolve([{ content: text.trim(), kind: "unstructured" }]);
  }
}

/** The user's messages of a transcript, one per line, without injected memory blocks. */
export function userText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role === "user")
    .map((m) => stripMemoryContext(m.content).trim())
    .filter((c) => c.length > 0)
    .join("\n");
}

/** A transcript as plain text, `role: content` per line, without injected memory blocks (what a degraded add stores). */
export function transcriptText(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => ({ role: m.role, content: stripMemoryContext(m.content).trim() }))
    .filter((m) => m.content.length > 0)
    .map((m) => `${m.role}: ${m.content}`)
    .join("\n");
}
