// Argument checks for the public API: each failure says what was wrong and what to do.

import { MoomemError, invalidArgument } from "../errors.ts";
import type { ChatMessage, EntryKind, JsonValue, Metadata } from "../types.ts";
import { ENTRY_KINDS } from "../types.ts";
import { canonicalRole } from "../ingest/transcript.ts";

const USER_ID_MAX = 64;
const USER_ID_CHAR = /^[A-Za-z0-9_.-]$/;

/**
 * Enforces the user-id contract (DESIGN §4): 1–64 characters of
 * `[A-Za-z0-9_.-]`, not starting with `.`, case-sensitive.
 */
export function checkUserId(userId: unknown): string {
  if (typeof userId !== "string") {
    throw new MoomemError("INVALID_USER_ID", `user id must be a string, got ${typeof userId}`);
  }
  if (userId.length === 0) throw new MoomemError("INVALID_USER_ID", "user id is empty; use 1-64 characters of A-Z a-z 0-9 _ . -");
  if (userId.length > USER_ID_MAX) {
    throw new MoomemError("INVALID_USER_ID", `user id is ${userId.length} characters long; the limit is ${USER_ID_MAX}`);
  }
  for (const ch of userId) {
    if (!USER_ID_CHAR.test(ch)) {
      const shown = /[\p{Cc}\p{Cf}\s]/u.test(ch) ? `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}` : `"${ch}"`;
      throw new MoomemError(
        "INVALID_USER_ID",
        `user id ${JSON.stringify(userId)} contains the character ${shown}; only A-Z a-z 0-9 _ . - are allowed (hash or encode other ids first)`,
      );
    }
  }
  if (userId.startsWith(".")) throw new MoomemError("INVALID_USER_ID", `user id ${JSON.stringify(userId)} starts with "."; start it with a letter, digit, _ or -`);
  return userId;
}

/** A plain options object (or undefined → {}). */
export function checkOptions(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(`${what} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Rejects option names the call does not know (catches typos like `topk`). */
export function checkKnownKeys(options: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key) && options[key] !== undefined) {
      throw invalidArgument(`${what}: unknown option "${key}"; known options are ${known.join(", ")}`);
    }
  }
}

export function checkIntegerIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(`${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

export function checkNumberIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw invalidArgument(`${name} must be a number from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** A time in ms since epoch, or a Date. */
export function checkTime(value: unknown, name: string): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isFinite(ms)) {
    throw invalidArgument(`${name} must be a Date or ms since epoch, got ${describe(value)}`);
  }
  return ms;
}

/**
 * Non-empty text, or a transcript of `{ role, content }` messages with some text: roles in canonical
 * form ("User", "human" → "user"), content as text (a string, or the text parts of an OpenAI / AI
 * SDK content array joined by line breaks; other parts ignored; null is no text).
 */
export function checkAddInput(input: unknown): string | ChatMessage[] {
  if (typeof input === "string") {
    if (input.trim().length === 0) throw invalidArgument("add: the text is empty or only whitespace; pass what the user said");
    return input;
  }
  if (Array.isArray(input)) {
    if (input.length === 0) throw invalidArgument("add: the transcript has no messages");
    const messages: ChatMessage[] = [];
    input.forEach((m: unknown, i) => {
      if (typeof m !== "object" || m === null) throw invalidArgument(`add: transcript message ${i} is not an object`);
      const { role, content } = m as Record<string, unknown>;
      if (typeof role !== "string" || role.trim().length === 0) throw invalidArgument(`add: transcript message ${i} needs a string "role"`);
      messages.push({ role: canonicalRole(role), content: messageText(content, i) });
    });
    if (messages.every((m) => m.content.trim().length === 0)) {
      throw invalidArgument("add: no message of the transcript has text (parts other than text, such as images, are ignored)");
    }
    return messages;
  }
  throw invalidArgument(`add: input must be a string or an array of { role, content } messages, got ${describe(input)}`);
}

/** A message's content as text: a string as it is, null as "", an array of parts as its text parts. */
function messageText(content: unknown, i: number): string {
  if (typeof content === "string") return content;
  if (content === null) return "";
  if (!Array.isArray(content)) {
    throw invalidArgument(`add: transcript message ${i} needs "content" as a string or an array of parts like { type: "text", text: "…" } (got ${describe(content)})`);
  }
  const texts: string[] = [];
  content.forEach((part: unknown, j) => {
    const { type, text } = (typeof part === "object" && part !== null ? part : {}) as Record<string, unknown>;
    if (typeof type !== "string") throw invalidArgument(`add: transcript message ${i} content part ${j} needs a string "type" (e.g. { type: "text", text: "…" }), got ${describe(part)}`);
    if (type !== "text") return; // images, files, tool calls: nothing to remember as words
    if (typeof text !== "string") throw invalidArgument(`add: transcript message ${i} content part ${j} is of type "text" but its "text" is ${describe(text)}, not a string`);
    texts.push(text);
  });
  return texts.join("\n");
}

/** A JSON-serialisable plain object (metadata). */
export function checkMetadata(value: unknown, name: string): Metadata {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(`${name} must be a plain JSON object, got ${describe(value)}`);
  }
  checkJson(value, name, 0);
  return structuredClone(value) as Metadata;
}

function checkJson(value: unknown, path: string, depth: number): asserts value is JsonValue {
  if (depth > 32) throw invalidArgument(`${path} is nested too deeply (over 32 levels)`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalidArgument(`${path} is ${String(value)}; JSON has no NaN or Infinity`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkJson(v, `${path}[${i}]`, depth + 1));
    return;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) checkJson(v, `${path}.${k}`, depth + 1);
    return;
  }
  throw invalidArgument(`${path} is a ${describe(value)}, which is not JSON (use strings, numbers, booleans, null, arrays, plain objects)`);
}

export function checkKind(value: unknown, name: string): EntryKind {
  if (!ENTRY_KINDS.includes(value as EntryKind)) throw invalidArgument(`${name} must be one of ${ENTRY_KINDS.join(", ")}, got ${describe(value)}`);
  return value as EntryKind;
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "object") return value.constructor?.name ? `a ${value.constructor.name}` : "an object";
  return typeof value;
}
