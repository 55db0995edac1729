// Checks what a chat model answered against the shapes the prompts ask for, by hand (no schema library needed).

import type { ExtractedFact, Verdict } from "../../types.ts";

/**
 * Outcome of checking a model answer: the value, or a `problem` phrased so it can be shown to the model in a
 * retry prompt and recorded in an entry's metadata.
 */
export type SchemaResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One judge verdict as the model numbers it (candidate 1, 2, …), before it is mapped back to an entry id. */
export interface NumberedVerdict {
  candidate: number;
  decision: Verdict["decision"];
  reason?: string;
}

const FACT_KINDS = new Set(["fact", "preference", "event"]);
const DECISIONS = new Set(["replace", "coexist", "ignore"]);
const KEY_PATTERN = /^[a-z][a-z0-9_]*$/;
const MAX_KEY_CHARS = 64;
const MAX_REASON_CHARS = 500;
const EXCERPT_CHARS = 120;

/**
 * Parses a model's text as one JSON value. Tolerates what chat models commonly wrap around JSON:
 * a Markdown code fence, or prose before the first `{` / after the last `}`.
 */
export function parseModelJson(text: string): SchemaResult<unknown> {
  const trimmed = text.trim();
  // DeepSeek's JSON mode can answer blank content; that is an invalid answer, worth the retry.
  if (trimmed === "") return { ok: false, problem: "the answer is empty; expected one JSON object." };
  const unfenced = trimmed
    .replace(/^```[a-zA-Z]*\s*\n?/, "")
    .replace(/\n?\s*```$/, "")
    .trim();
  const attempts = [unfenced];
  const first = unfenced.indexOf("{");
  const last = unfenced.lastIndexOf("}");
  if (first > 0 || (first !== -1 && last !== unfenced.length - 1)) attempts.push(unfenced.slice(first, last + 1));
  let reason = "";
  for (const candidate of attempts) {
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  return { ok: false, problem: `the answer is not valid JSON (${reason}): ${excerpt(trimmed)}` };
}

/**
 * Checks an extraction answer `{ "facts": [...] }` (a bare array is accepted too).
 * Fails on a missing `facts` array, a fact that is not an object, empty `content`, or a `kind` other than
 * fact / preference / event. Repairs cosmetic slips in optional fields instead of failing: a `key` is
 * normalised to snake_case (dropped if that leaves no valid key of at most 64 chars); a `source_span` that
 * is not text is dropped.
 */
export function validateExtraction(value: unknown): SchemaResult<ExtractedFact[]> {
  const list = Array.isArray(value) ? value : asRecord(value)?.["facts"];
  if (!Array.isArray(list)) return { ok: false, problem: 'expected a JSON object with a "facts" array.' };
  const facts: ExtractedFact[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = asRecord(list[i]);
    if (item === undefined) return { ok: false, problem: `facts[${i}] is not an object.` };
    const content = item["content"];
    if (typeof content !== "string" || content.trim() === "") {
      return { ok: false, problem: `facts[${i}].content must be a non-empty string.` };
    }
    const kind = typeof item["kind"] === "string" ? item["kind"].trim().toLowerCase() : item["kind"];
    if (typeof kind !== "string" || !FACT_KINDS.has(kind)) {
      return { ok: false, problem: `facts[${i}].kind is ${JSON.stringify(kind ?? null)}; use "fact", "preference" or "event".` };
    }
    const fact: ExtractedFact = { content: content.trim(), kind: kind as ExtractedFact["kind"] };
    const key = normaliseKey(item["key"]);
    if (key !== undefined) fact.key = key;
    const span = item["source_span"] ?? item["sourceSpan"];
    if (typeof span === "string" && span.trim() !== "") fact.sourceSpan = span.trim();
    facts.push(fact);
  }
  return { ok: true, value: facts };
}

/**
 * Checks a judge answer `{ "verdicts": [...] }` against `candidateCount` numbered candidates.
 * Fails on a missing `verdicts` array, a candidate number outside 1..candidateCount (or given twice), or a
 * decision other than replace / coexist / ignore. Candidates the model left out are simply absent here.
 */
export function validateVerdicts(value: unknown, candidateCount: number): SchemaResult<NumberedVerdict[]> {
  const list = Array.isArray(value) ? value : asRecord(value)?.["verdicts"];
  if (!Array.isArray(list)) return { ok: false, problem: 'expected a JSON object with a "verdicts" array.' };
  const seen = new Set<number>();
  const verdicts: NumberedVerdict[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = asRecord(list[i]);
    if (item === undefined) return { ok: false, problem: `verdicts[${i}] is not an object.` };
    const raw = item["candidate"] ?? item["id"];
    const candidate = typeof raw === "string" && /^\s*\[?\d+\]?\s*$/.test(raw) ? Number(raw.replace(/[^\d]/g, "")) : raw;
    if (typeof candidate !== "number" || !Number.isInteger(candidate) || candidate < 1 || candidate > candidateCount) {
      return {
        ok: false,
        problem: `verdicts[${i}].candidate is ${JSON.stringify(raw ?? null)}; use a memory number from 1 to ${candidateCount}.`,
      };
    }
    if (seen.has(candidate)) return { ok: false, problem: `verdicts give memory ${candidate} twice.` };
    seen.add(candidate);
    const decision = typeof item["decision"] === "string" ? item["decision"].trim().toLowerCase() : item["decision"];
    if (typeof decision !== "string" || !DECISIONS.has(decision)) {
      return {
        ok: false,
        problem: `verdicts[${i}].decision is ${JSON.stringify(decision ?? null)}; use "replace", "coexist" or "ignore".`,
      };
    }
    const verdict: NumberedVerdict = { candidate, decision: decision as Verdict["decision"] };
    const reason = item["reason"];
    if (typeof reason === "string" && reason.trim() !== "") verdict.reason = cut(reason.trim(), MAX_REASON_CHARS);
    verdicts.push(verdict);
  }
  return { ok: true, value: verdicts };
}

/** `home City` → `home_city`; undefined when nothing usable is left (non-ASCII names, too long, empty). */
function normaliseKey(value: unknown): string | undefined {
  // A key in another script cannot be turned into snake_case without losing what it names.
  if (typeof value !== "string" || /[^\x20-\x7e]/.test(value)) return undefined;
  const key = value
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return key.length <= MAX_KEY_CHARS && KEY_PATTERN.test(key) ? key : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function excerpt(text: string): string {
  return JSON.stringify(cut(text.replace(/\s+/g, " "), EXCERPT_CHARS));
}
