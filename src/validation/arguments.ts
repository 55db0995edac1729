// Argument checks for the public API: each failure says what was wrong and what to do.

import { MoomemError, describeError, invalidArgument } from "../errors.ts";
import { dateTime, describeValue as describe } from "../describe-value.ts";
import { isBlankText } from "../text/blank-text.ts";
import { isValidTime, MAX_TIME_MS } from "../clock.ts";

export { isBlankText, isValidTime, MAX_TIME_MS };
import type { ChatMessage, EntryKind, JsonValue, Metadata } from "../types.ts";
import { ENTRY_KINDS } from "../types.ts";
import { canonicalRole } from "../text/transcript.ts";

const USER_ID_MAX = 64;
const USER_ID_CHAR = /^[A-Za-z0-9_.-]$/;

/**
 * Enforces the user-id contract (README, "API at a glance"): 1–64 characters of
 * `[A-Za-z0-9_.-]`, not starting with `.`, case-sensitive.
 */
export function checkUserId(userId: unknown): string {
  if (typeof userId !== "string") {
    throw new MoomemError("INVALID_USER_ID", `user id must be a string, got ${describe(userId)}`);
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
  if (userId.startsWith("."))
    throw new MoomemError("INVALID_USER_ID", `user id ${JSON.stringify(userId)} starts with "."; start it with a letter, digit, _ or -`);
  return userId;
}

/**
 * Runs `read`, which reads a value the caller passed (options, metadata, a transcript), and turns any
 * throw that is not already a {@link MoomemError} (a getter that throws, a Proxy trap, a revoked Proxy)
 * into `INVALID_ARGUMENT` naming `what`, with the original error as `cause`.
 */
export function readGuarded<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw asArgumentError(error, what);
  }
}

/** What {@link readGuarded} throws for `error`: the error itself when it is a `MoomemError`, else `INVALID_ARGUMENT` with it as `cause`. */
export function asArgumentError(error: unknown, what: string): MoomemError {
  if (error instanceof MoomemError) return error;
  return new MoomemError("INVALID_ARGUMENT", `${what}: reading it threw (${describeError(error)}); pass plain data (no getters that throw, no Proxies)`, {
    cause: error,
  });
}

/** What `import` reads from: a sync or async iterable of strings (not a string itself). */
export function checkImportSource(lines: unknown): Iterable<string> | AsyncIterable<string> {
  const iterable = readGuarded(
    "import: the lines",
    () => typeof lines === "object" && lines !== null && (Symbol.iterator in lines || Symbol.asyncIterator in lines),
  );
  if (!iterable) {
    throw invalidArgument(`import: pass an iterable of lines or JSONL chunks (e.g. the result of export(), or an array of strings), got ${describe(lines)}`);
  }
  return lines as Iterable<string> | AsyncIterable<string>;
}

/**
 * A copy of an options object's own enumerable properties (undefined → `{}`), each read once: a getter
 * cannot answer differently to the check and to the use, and a throwing one becomes `INVALID_ARGUMENT`.
 */
export function checkOptions(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  return readGuarded(what, () => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw invalidArgument(`${what} must be an object, got ${describe(value)}`);
    }
    const copy: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value)) copy[key] = (value as Record<string, unknown>)[key];
    return copy;
  });
}

/** Rejects option names the call does not know (catches typos like `topk`). */
export function checkKnownKeys(options: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key) && options[key] !== undefined) {
      throw invalidArgument(`${what}: unknown option ${describe(key)}; known options are ${known.join(", ")}`);
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

/**
 * A time in ms since epoch, or a `Date`, within the range of a `Date` ({@link MAX_TIME_MS}). The one
 * check for every time that enters the store: `add`'s `observedAt`, `since` / `until` filters, the
 * clock's answers, and imported `created_at` / `updated_at`.
 */
export function checkTime(value: unknown, name: string): number {
  const ms = dateTime(value) ?? value;
  if (!isValidTime(ms)) {
    throw invalidArgument(
      `${name} must be a Date or ms since epoch within ±8.64e15 (the range of a JavaScript Date, years -271821 to 275760), got ${describe(value)}`,
    );
  }
  return ms;
}

/**
 * The longest query `recall` accepts, in UTF-16 units. A query is what to look for (the user's latest
 * message, a question), not a document: longer ones are rejected with `INVALID_ARGUMENT` rather than
 * searched in part, so that no part of a query is silently ignored and one call's work stays bounded.
 */
export const MAX_QUERY_CHARS = 8192;

/** A recall query: text with something visible in it, at most {@link MAX_QUERY_CHARS} long. */
export function checkQuery(value: unknown, call: string): string {
  if (typeof value !== "string") throw invalidArgument(`${call}: query must be text, got ${describe(value)}`);
  if (value.length > MAX_QUERY_CHARS) {
    throw invalidArgument(
      `${call}: the query is ${value.length} characters long; the limit is ${MAX_QUERY_CHARS}. Search with the user's latest message or a short description of what to look for, not a whole document or conversation`,
    );
  }
  if (isBlankText(value)) throw invalidArgument(`${call}: the query is empty (only white space or invisible characters); pass the text to search for`);
  return value;
}

/**
 * The most items an array argument of a helper may have (`formatContext` hits, `buildProfile` entries):
 * far more than any real list, few enough that walking a sparse array of 2³² − 1 holes cannot hang.
 */
export const MAX_LIST_ITEMS = 1_000_000;

/** An array argument of at most {@link MAX_LIST_ITEMS} items (the items are checked by the caller). */
export function checkList(value: unknown, name: string, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw invalidArgument(`${name} must be an array (${what}), got ${describe(value)}`);
  if (value.length > MAX_LIST_ITEMS) throw invalidArgument(`${name} has ${value.length} items; the limit is ${MAX_LIST_ITEMS}`);
  return value;
}

/** The most messages one transcript may have (a hole in a sparse array counts). */
export const MAX_TRANSCRIPT_MESSAGES = 100_000;

/**
 * Non-empty text, or a transcript of `{ role, content }` messages with some text: roles in canonical
 * form ("User", "human" → "user"), content as text (a string, or the text parts of an OpenAI / AI
 * SDK content array joined by line breaks; other parts ignored; null is no text).
 */
export function checkAddInput(input: unknown): string | ChatMessage[] {
  if (typeof input === "string") {
    if (isBlankText(input)) throw invalidArgument("add: the text is empty (only white space or invisible characters); pass what the user said");
    return input;
  }
  return readGuarded("add: the transcript", () => {
    if (!Array.isArray(input)) throw invalidArgument(`add: input must be a string or an array of { role, content } messages, got ${describe(input)}`);
    if (input.length === 0) throw invalidArgument("add: the transcript has no messages");
    if (input.length > MAX_TRANSCRIPT_MESSAGES) {
      throw invalidArgument(`add: the transcript has ${input.length} messages; the limit is ${MAX_TRANSCRIPT_MESSAGES} (add a long history in parts)`);
    }
    const messages: ChatMessage[] = [];
    for (let i = 0; i < input.length; i++) {
      const m: unknown = input[i];
      if (typeof m !== "object" || m === null) throw invalidArgument(`add: transcript message ${i} is not an object (got ${describe(m)})`);
      const { role, content } = m as Record<string, unknown>;
      if (typeof role !== "string" || isBlankText(role)) throw invalidArgument(`add: transcript message ${i} needs a string "role" (got ${describe(role)})`);
      messages.push({ role: canonicalRole(role), content: messageText(content, i) });
    }
    if (messages.every((m) => isBlankText(m.content))) {
      throw invalidArgument(
        "add: no message of the transcript has text (only white space or invisible characters; parts other than text, such as images, are ignored)",
      );
    }
    return messages;
  });
}

/** The most inputs one `addMany` call takes (README, "Adding many inputs at once"): one call is one write, held in memory until durable. */
export const MAX_ADD_MANY_INPUTS = 1_000;

/**
 * `addMany`'s inputs: an array of what `add` takes, each checked with `add`'s rules; a bad one is
 * `INVALID_ARGUMENT` naming its index, before anything runs.
 */
export function checkAddManyInputs(inputs: unknown): Array<string | ChatMessage[]> {
  return readGuarded("addMany: inputs", () => {
    if (!Array.isArray(inputs)) throw invalidArgument(`addMany: inputs must be an array of texts or transcripts (what add takes), got ${describe(inputs)}`);
    if (inputs.length > MAX_ADD_MANY_INPUTS) {
      throw invalidArgument(`addMany: ${inputs.length} inputs; the limit is ${MAX_ADD_MANY_INPUTS} per call (split them into several addMany calls)`);
    }
    const checked: Array<string | ChatMessage[]> = [];
    for (let i = 0; i < inputs.length; i++) {
      try {
        checked.push(checkAddInput(inputs[i]));
      } catch (error) {
        // add's message, with the input it is about (a hole in the array reads as undefined and is refused the same way).
        if (!(error instanceof MoomemError)) throw error;
        throw new MoomemError(error.code, `addMany: inputs[${i}]: ${error.message.replace(/^add: /, "")}`, { cause: error });
      }
    }
    return checked;
  });
}

/** A message's content as text: a string as it is, null as "", an array of parts as its text parts. */
function messageText(content: unknown, i: number): string {
  if (typeof content === "string") return content;
  if (content === null) return "";
  if (!Array.isArray(content)) {
    throw invalidArgument(
      `add: transcript message ${i} needs "content" as a string or an array of parts like { type: "text", text: "…" } (got ${describe(content)})`,
    );
  }
  // Bounded like the messages themselves: walking a sparse array of 2³² − 1 holes would hang.
  if (content.length > MAX_TRANSCRIPT_MESSAGES) {
    throw invalidArgument(`add: transcript message ${i} has ${content.length} content parts; the limit is ${MAX_TRANSCRIPT_MESSAGES}`);
  }
  const texts: string[] = [];
  for (let j = 0; j < content.length; j++) {
    const part: unknown = content[j];
    const { type, text } = (typeof part === "object" && part !== null ? part : {}) as Record<string, unknown>;
    if (typeof type !== "string")
      throw invalidArgument(`add: transcript message ${i} content part ${j} needs a string "type" (e.g. { type: "text", text: "…" }), got ${describe(part)}`);
    if (type !== "text") continue; // images, files, tool calls: nothing to remember as words
    if (typeof text !== "string")
      throw invalidArgument(`add: transcript message ${i} content part ${j} is of type "text" but its "text" is ${describe(text)}, not a string`);
    texts.push(text);
  }
  return texts.join("\n");
}

/**
 * The largest `maxContentChars` (open option): an add's work grows linearly with the length it keeps,
 * and a million characters of unbroken CJK already take seconds to tokenize and index
 * (`npm run bench:hostile`). A longer document is several memories.
 */
export const MAX_CONTENT_CHARS = 1_000_000;

/** Limits of one metadata object (`add`, and the `metadata` filter of `recall` / `list`). */
export const METADATA_LIMITS = {
  /** Levels of nested objects and arrays. */
  depth: 32,
  /** Values in all (each object, array, string, number, boolean and null counts one). */
  values: 10_000,
  /** Length of its JSON text, in UTF-16 units. */
  chars: 65_536,
} as const;

/**
 * A JSON object (metadata), copied: plain objects (or null-prototype ones), arrays, strings, finite
 * numbers, booleans and null, within {@link METADATA_LIMITS}. A property whose value is `undefined` is
 * left out, as `JSON.stringify` leaves it out. Each value is read once; a getter or Proxy trap that throws
 * becomes `INVALID_ARGUMENT`.
 */
export function checkMetadata(value: unknown, name: string): Metadata {
  return readGuarded(name, () => {
    if (!isPlainObject(value)) throw invalidArgument(`${name} must be a plain JSON object, got ${describe(value)}`);
    const budget = { values: METADATA_LIMITS.values, chars: METADATA_LIMITS.chars };
    const copy = copyJson(value, name, 0, budget, new Set()) as Metadata;
    // JSON takes at most 6 characters per character of a key or string (\uXXXX) and 25 per other value
    // (a number, its comma and quotes): below that bound the exact length need not be computed.
    const rawChars = METADATA_LIMITS.chars - budget.chars;
    const values = METADATA_LIMITS.values - budget.values;
    if (6 * rawChars + 25 * values > METADATA_LIMITS.chars) {
      const chars = JSON.stringify(copy).length;
      if (chars > METADATA_LIMITS.chars) throw tooLarge(name, `${chars} characters as JSON`);
    }
    return copy;
  });
}

function tooLarge(name: string, what: string): MoomemError {
  return invalidArgument(
    `${name} is too large (${what}); the limits are ${METADATA_LIMITS.chars} characters as JSON and ${METADATA_LIMITS.values} values. Keep metadata to small labels and ids; store documents elsewhere`,
  );
}

/** A plain object of any realm, or one without a prototype (never a class instance, an array or a Date). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || (Object.getPrototypeOf(proto) === null && Object.prototype.toString.call(value) === "[object Object]");
}

function copyJson(value: unknown, path: string, depth: number, budget: { values: number; chars: number }, ancestors: Set<object>): JsonValue {
  if (depth > METADATA_LIMITS.depth) throw invalidArgument(`${path} is nested too deeply (over ${METADATA_LIMITS.depth} levels)`);
  if (--budget.values < 0) throw tooLarge(path, `over ${METADATA_LIMITS.values} values`);
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") {
    budget.chars -= value.length;
    if (budget.chars < 0) throw tooLarge(path, `over ${METADATA_LIMITS.chars} characters`);
    return value;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalidArgument(`${path} is ${String(value)}; JSON has no NaN or Infinity`);
    return value;
  }
  if (typeof value === "object" && ancestors.has(value))
    throw invalidArgument(`${path} refers back to an object that contains it (a cycle); JSON cannot hold cycles`);
  if (Array.isArray(value)) {
    if (value.length > budget.values) throw tooLarge(path, `an array of ${value.length} items`);
    ancestors.add(value);
    const copy: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw invalidArgument(`${path}[${i}] is a hole in a sparse array; JSON has no holes (use null)`);
      copy.push(copyJson(value[i], `${path}[${i}]`, depth + 1, budget, ancestors));
    }
    ancestors.delete(value);
    return copy;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length > budget.values) throw tooLarge(path, `an object with ${keys.length} keys`);
    ancestors.add(value);
    const copy: { [key: string]: JsonValue } = {};
    for (const key of keys) {
      budget.chars -= key.length;
      if (budget.chars < 0) throw tooLarge(path, `over ${METADATA_LIMITS.chars} characters`);
      const item = value[key];
      if (item === undefined) continue;
      const itemCopy = copyJson(item, keyPath(path, key), depth + 1, budget, ancestors);
      // defineProperty for "__proto__", so it stays an own property (as JSON.parse makes it) instead of setting the prototype.
      if (key === "__proto__") Object.defineProperty(copy, key, { value: itemCopy, enumerable: true, writable: true, configurable: true });
      else copy[key] = itemCopy;
    }
    ancestors.delete(value);
    return copy;
  }
  throw invalidArgument(`${path} is ${describe(value)}, which is not JSON (use strings, numbers, booleans, null, arrays and plain objects)`);
}

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]{0,39}$/.test(key) ? `${path}.${key}` : `${path}[${describe(key)}]`;
}

export function checkKind(value: unknown, name: string): EntryKind {
  if (!ENTRY_KINDS.includes(value as EntryKind)) throw invalidArgument(`${name} must be one of ${ENTRY_KINDS.join(", ")}, got ${describe(value)}`);
  return value as EntryKind;
}

/** Names a value in a message ("got …"); never throws. */
export { describeValue as describe } from "../describe-value.ts";
