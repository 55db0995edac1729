// The markers around a memory block moomem injects into a prompt, and the function that removes such blocks again.

import { invalidArgument } from "../errors.ts";
import { describeValue } from "../describe-value.ts";

/** Opens a block of recalled memories that moomem put into a prompt (`formatContext` writes it on its own line). */
export const MEMORY_CONTEXT_OPEN = "<moomem-context>";

/** Closes the block opened by {@link MEMORY_CONTEXT_OPEN}. */
export const MEMORY_CONTEXT_CLOSE = "</moomem-context>";

/**
 * Removes every memory block moomem injected (`<moomem-context>` … `</moomem-context>`, markers included)
 * so an extractor never stores recalled memories a second time as if the user had just said them.
 *
 * An opening marker that is never closed removes everything after it: the rest of the text is taken to be
 * injected context ("rather miss than be wrong"). A closing marker without an opening one is removed alone.
 * When something was removed, blank lines left behind are collapsed and the result is trimmed;
 * text without markers comes back unchanged.
 *
 * @example
 * ```ts
 * stripMemoryContext("<moomem-context>\n- User lives in Beijing\n</moomem-context>\nI moved to Shenzhen");
 * // → "I moved to Shenzhen"
 * ```
 */
export function stripMemoryContext(text: string): string {
  if (typeof text !== "string") throw invalidArgument(`stripMemoryContext: text must be a string, got ${describeValue(text)}`);
  if (!text.includes(MEMORY_CONTEXT_OPEN) && !text.includes(MEMORY_CONTEXT_CLOSE)) return text;
  let out = "";
  let rest = text;
  for (;;) {
    const open = rest.indexOf(MEMORY_CONTEXT_OPEN);
    if (open === -1) {
      out += rest;
      break;
    }
    out += rest.slice(0, open);
    const close = rest.indexOf(MEMORY_CONTEXT_CLOSE, open + MEMORY_CONTEXT_OPEN.length);
    if (close === -1) break;
    rest = rest.slice(close + MEMORY_CONTEXT_CLOSE.length);
    // A block that filled whole lines takes its line break with it.
    if (out === "" || out.endsWith("\n")) rest = rest.replace(/^[ \t]*\r?\n/, "");
  }
  return out
    .split(MEMORY_CONTEXT_CLOSE)
    .join("")
    .replace(/\n[ \t]*(?:\n[ \t]*)+\n/g, "\n\n")
    .trim();
}
