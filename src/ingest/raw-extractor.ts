// The default extractor: the user's own words, stored as they are.

import type { ChatMessage, ExtractedFact, Extractor } from "../types.ts";

/**
 * Stores the input itself as one memory of kind `unstructured` (no model, no
 * filtering). For a chat transcript, the user's messages are kept (what the
 * assistant said is not a fact about the user); a transcript with no user
 * message yields nothing.
 *
 * @example
 * ```ts
 * const mem = await MemoryStore.open("./memory", { extractor: new RawExtractor() });
 * ```
 */
export class RawExtractor implements Extractor {
  readonly mode: string = "raw";

  extract(_userId: string, input: string | readonly ChatMessage[]): Promise<ExtractedFact[]> {
    const text = typeof input === "string" ? input : userText(input);
    if (text.trim().length === 0) return Promise.resolve([]);
    return Promise.resolve([{ content: text.trim(), kind: "unstructured" }]);
  }
}

/** The user's messages of a transcript, one per line. */
export function userText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role === "user")
    .map((m) => m.content.trim())
    .filter((c) => c.length > 0)
    .join("\n");
}

/** A transcript as plain text, `role: content` per line (what a degraded add stores). */
export function transcriptText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.content.trim().length > 0)
    .map((m) => `${m.role}: ${m.content.trim()}`)
    .join("\n");
}
