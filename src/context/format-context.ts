// Renders recalled memories as a prompt block with dates, inside a character budget and marked so extractors skip it.

import { invalidArgument } from "../errors.ts";
import type { EntryKind } from "../types.ts";
import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN } from "../text/context-markers.ts";
import { checkIntegerIn, checkKnownKeys, checkOptions, checkList, checkTime, describe, readGuarded } from "../validation/arguments.ts";

/** How {@link formatContext} lays the memories out. */
export type ContextStyle = "bullets" | "xml" | "json";

/** What {@link formatContext} needs of a memory: a `RecallHit` or a `MemoryEntry` both fit. */
export interface ContextMemory {
  content: string;
  /** When the fact was observed, ms since epoch. */
  createdAt: number;
  /** Shown by the `xml` and `json` styles, so an agent can name a memory (e.g. to forget it). */
  id?: string;
  kind?: EntryKind;
}

/** Options of {@link formatContext}. */
export interface FormatContextOptions {
  /** Upper bound on the length of the whole block, markers included (default 2000, about 500 tokens). */
  maxChars?: number;
  /** `"bullets"` (default): one `- <when>: <content>` line each; `"xml"`: `<memory>` elements; `"json"`: one JSON object. */
  style?: ContextStyle;
  /** The time the dates are relative to (Date or ms since epoch; default: `Date.now()`). Pass it for reproducible prompts. */
  now?: Date | number;
  /** First line inside the block in the `bullets` style (default: "Memories about this user, most relevant first (today is YYYY-MM-DD):"). */
  title?: string;
}

const DEFAULT_MAX_CHARS = 2000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Past this age a memory shows its calendar date: "37 days ago" is harder for a model to use than a date. */
const RELATIVE_LIMIT = 30 * DAY;
const STYLES: readonly ContextStyle[] = ["bullets", "xml", "json"];
const OPTION_KEYS = ["maxChars", "style", "now", "title"] as const;

/**
 * Turns recalled memories into a block to put into a prompt. Each memory is dated relative to `now`
 * ("just now", "5 minutes ago", "3 hours ago", "2 days ago"; older than 30 days or in the future:
 * "on 2024-03-01", UTC), so the model can tell fresh facts from old ones. The output is a pure function
 * of its arguments once `now` is given.
 *
 * The block starts with a line `<moomem-context>` and ends with a line `</moomem-context>`
 * ({@link MEMORY_CONTEXT_OPEN} / {@link MEMORY_CONTEXT_CLOSE}). Extractors strip such blocks, so when a
 * prompt or transcript holding one is passed back to `add`, the injected memories are not learned again.
 *
 * Budget: the result is never longer than `maxChars`. Memories are taken in the order given (recall's
 * rank order) as long as they fit; one that does not fit is dropped whole — never cut mid-way — and the
 * following, lower-ranked ones are still tried. With no memory that fits (or no memories at all) the
 * result is `""`, so it can be appended to a prompt unconditionally.
 *
 * @example
 * ```ts
 * const hits = await mem.recall("user-42", userMessage, { topK: 8 });
 * const system = `You are a helpful assistant.\n\n${formatContext(hits, { maxChars: 1500, now: Date.now() })}`;
 * // <moomem-context>
 * // Memories about this user, most relevant first (today is 2026-05-04):
 * // - 2 days ago: I moved to Shenzhen
 * // - on 2025-11-20: I'm allergic to peanuts
 * // </moomem-context>
 * ```
 */
export function formatContext(hits: readonly ContextMemory[], options?: FormatContextOptions): string {
  const memories = checkHits(hits);
  const o = checkOptions(options, "formatContext options");
  checkKnownKeys(o, OPTION_KEYS, "formatContext");
  const maxChars = o["maxChars"] === undefined ? DEFAULT_MAX_CHARS : checkIntegerIn(o["maxChars"], "formatContext: maxChars", 1, 100_000_000);
  const style = (o["style"] ?? "bullets") as ContextStyle;
  if (!STYLES.includes(style)) throw invalidArgument(`formatContext: style must be one of ${STYLES.map((s) => `"${s}"`).join(", ")}, got ${describe(style)}`);
  const now = o["now"] === undefined ? Date.now() : checkTime(o["now"], "formatContext: now");
  const today = isoDate(now);
  let title = `Memories about this user, most relevant first (today is ${today}):`;
  if (o["title"] !== undefined) {
    if (typeof o["title"] !== "string") throw invalidArgument(`formatContext: title must be a string, got ${describe(o["title"])}`);
    title = neutralize(o["title"]).replace(/\s*\n\s*/g, " ");
  }

  const layout = LAYOUTS[style](today, title);
  const fixed = [MEMORY_CONTEXT_OPEN, ...layout.head, ...layout.tail, MEMORY_CONTEXT_CLOSE];
  // Lines of the frame, joined by "\n"; the items add their own length plus one separator each.
  let length = fixed.reduce((sum, line) => sum + line.length, 0) + fixed.length - 1;
  const kept: string[] = [];
  for (const memory of memories) {
    const item = layout.item(memory, relativeTime(memory.createdAt, now));
    const cost = item.length + (kept.length === 0 ? 1 : layout.separator.length);
    if (length + cost > maxChars) continue;
    kept.push(item);
    length += cost;
  }
  if (kept.length === 0) return "";
  const body = kept.join(layout.separator);
  return [MEMORY_CONTEXT_OPEN, ...layout.head, body, ...layout.tail, MEMORY_CONTEXT_CLOSE].join("\n");
}

/**
 * How long ago `time` was, as {@link formatContext} writes it: "just now", "N minutes ago", "N hours ago",
 * "N days ago" up to 30 days, else (or for a time in the future) "on YYYY-MM-DD" in UTC.
 *
 * @example
 * ```ts
 * relativeTime(Date.parse("2024-03-08"), Date.parse("2024-03-10")); // "2 days ago"
 * relativeTime(Date.parse("2024-01-01"), Date.parse("2024-03-10")); // "on 2024-01-01"
 * ```
 */
export function relativeTime(time: number, now: number): string {
  for (const [name, value] of [
    ["time", time],
    ["now", now],
  ] as const) {
    if (typeof value !== "number" || !Number.isFinite(value)) throw invalidArgument(`relativeTime: ${name} must be ms since epoch, got ${describe(value)}`);
  }
  const age = now - time;
  if (age < -MINUTE || age >= RELATIVE_LIMIT) return `on ${isoDate(time)}`;
  if (age < MINUTE) return "just now";
  if (age < HOUR) return plural(Math.floor(age / MINUTE), "minute");
  if (age < DAY) return plural(Math.floor(age / HOUR), "hour");
  return plural(Math.floor(age / DAY), "day");
}

interface Layout {
  head: string[];
  tail: string[];
  separator: string;
  item(memory: ContextMemory, when: string): string;
}

const LAYOUTS: Record<ContextStyle, (today: string, title: string) => Layout> = {
  bullets: (_today, title) => ({
    head: [title],
    tail: [],
    separator: "\n",
    // Continuation lines are indented so a multi-line memory cannot pose as another bullet or as prompt text.
    item: (m, when) => `- ${when}: ${neutralize(m.content).replace(/\r?\n/g, "\n  ")}`,
  }),
  xml: (today) => ({
    head: [`<memories today="${today}">`],
    tail: ["</memories>"],
    separator: "\n",
    item: (m, when) => {
      let attributes = "";
      if (m.id !== undefined) attributes += ` id="${escapeXml(m.id)}"`;
      if (m.kind !== undefined) attributes += ` kind="${escapeXml(m.kind)}"`;
      attributes += ` date="${isoDate(m.createdAt)}" when="${escapeXml(when)}"`;
      return `<memory${attributes}>${escapeXml(m.content)}</memory>`;
    },
  }),
  json: (today) => ({
    head: [`{"today":${JSON.stringify(today)},"memories":[`],
    tail: ["]}"],
    separator: ",\n",
    item: (m, when) => {
      const out: Record<string, string> = {};
      if (m.id !== undefined) out["id"] = m.id;
      if (m.kind !== undefined) out["kind"] = m.kind;
      out["date"] = isoDate(m.createdAt);
      out["when"] = when;
      out["content"] = m.content;
      return neutralize(JSON.stringify(out));
    },
  }),
};

function checkHits(hits: unknown): ContextMemory[] {
  return readGuarded("formatContext: hits", () => readHits(hits));
}

function readHits(hits: unknown): ContextMemory[] {
  return Array.from(checkList(hits, "formatContext: hits", "the result of recall or list"), (hit: unknown, i) => {
    if (typeof hit !== "object" || hit === null)
      throw invalidArgument(`formatContext: hits[${i}] must be an object with content and createdAt, got ${describe(hit)}`);
    const { content, createdAt, id, kind } = hit as Record<string, unknown>;
    if (typeof content !== "string") throw invalidArgument(`formatContext: hits[${i}].content must be a string, got ${describe(content)}`);
    if (typeof createdAt !== "number" || !Number.isFinite(createdAt)) {
      throw invalidArgument(`formatContext: hits[${i}].createdAt must be ms since epoch, got ${describe(createdAt)}`);
    }
    const memory: ContextMemory = { content, createdAt };
    if (typeof id === "string") memory.id = id;
    if (typeof kind === "string") memory.kind = kind as EntryKind;
    return memory;
  });
}

/** A memory that quotes the markers must not end the block early (the rest would be learned again). */
function neutralize(text: string): string {
  return text.split(MEMORY_CONTEXT_OPEN).join("(moomem-context)").split(MEMORY_CONTEXT_CLOSE).join("(/moomem-context)");
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function isoDate(time: number): string {
  const date = new Date(time);
  // Years outside 0..9999 have no YYYY-MM-DD form; the full ISO string still dates them unambiguously.
  return Number.isNaN(date.getTime())
    ? "unknown date"
    : date.getUTCFullYear() >= 0 && date.getUTCFullYear() <= 9999
      ? date.toISOString().slice(0, 10)
      : date.toISOString();
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"} ago`;
}
