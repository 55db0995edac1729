// Chat transcripts as moomem reads them: role names made canonical, message content made text, the user's own words.

import type { ChatMessage } from "../types.ts";
import { stripMemoryContext } from "./context-markers.ts";

/**
 * Role names other chat formats use for the same speakers: LangChain's `human` / `ai`, Gemini's
 * `model`. Case and surrounding spaces never matter ("User" is "user").
 */
const ROLE_ALIASES: Readonly<Record<string, string>> = { human: "user", ai: "assistant", model: "assistant", bot: "assistant" };

/**
 * The canonical form of a message role: trimmed, lower case, aliases mapped (`"Human"` → `"user"`,
 * `"AI"` → `"assistant"`). Other roles (`system`, `tool`, `developer`, …) are kept as they are, lower case.
 *
 * @example
 * ```ts
 * canonicalRole(" User "); // "user"
 * canonicalRole("human");  // "user"
 * ```
 */
export function canonicalRole(role: string): string {
  const lower = role.trim().toLowerCase();
  return ROLE_ALIASES[lower] ?? lower;
}

/** True when a message with this role is the end user speaking (the only words moomem remembers). */
export function isUserRole(role: string): boolean {
  return canonicalRole(role) === "user";
}

/** The user's messages of a transcript, one per line, without injected memory blocks. */
export function userText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => isUserRole(m.role))
    .map((m) => stripMemoryContext(m.content).trim())
    .filter((c) => c.length > 0)
    .join("\n");
}

/**
 * Why a transcript holds nothing to remember, or null when some user message has text: no message
 * is from the user (naming the roles it has), or the user's messages were only memory blocks that
 * moomem itself injected.
 */
export function nothingFromUser(messages: readonly ChatMessage[]): string | null {
  const fromUser = messages.filter((m) => isUserRole(m.role) && m.content.trim().length > 0);
  if (fromUser.length === 0) {
    const roles = [...new Set(messages.filter((m) => m.content.trim().length > 0).map((m) => canonicalRole(m.role)))];
    return `no message of the transcript is from the user (roles: ${roles.join(", ")}); only the user's own messages (role "user" or "human") are remembered`;
  }
  if (fromUser.every((m) => stripMemoryContext(m.content).trim().length === 0)) {
    return "the user's messages hold only <moomem-context> blocks (recalled memories moomem injected), which are never stored again";
  }
  return null;
}

/** A transcript as plain text, `role: content` per line, without injected memory blocks (what a degraded add stores). */
export function transcriptText(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => ({ role: m.role, content: stripMemoryContext(m.content).trim() }))
    .filter((m) => m.content.length > 0)
    .map((m) => `${m.role}: ${m.content}`)
    .join("\n");
}
