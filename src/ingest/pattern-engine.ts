// Applies language pattern tables to text: sentences → clauses → dropped, or a fact with a kind and maybe a slot key.

import type { ExtractedFact } from "../types.ts";
import type { LanguageTable, SlotRule, StatementKind } from "./language-table.ts";
import { splitSentences } from "./sentences.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";

/** Why a clause was not kept (for tests and for explaining the extractor). */
export type DropReason = "no-words" | "question" | "small-talk" | "request";

/** What became of one clause. */
export type ClauseOutcome = { clause: string; dropped: DropReason } | { clause: string; fact: ExtractedFact };

/** A key part longer than this (in words, or characters for CJK) is no slot value: the key is left out. */
const MAX_KEY_WORDS = 5;
const MAX_KEY_CJK_CHARS = 12;
const HAN = /\p{sc=Han}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Reads every clause of `text` with the table of the language it is written in (a clause in no
 * table's script, e.g. Japanese kana only, is kept as a plain fact unless it has no words).
 *
 * @example
 * ```ts
 * readClauses("Hi! I moved to Shenzhen. Can I eat peanuts?", [ENGLISH, CHINESE]);
 * // [{ clause: "Hi!", dropped: "small-talk" },
 * //  { clause: "I moved to Shenzhen.", fact: { content: "I moved to Shenzhen.", kind: "fact", key: "home_city" } },
 * //  { clause: "Can I eat peanuts?", dropped: "question" }]
 * ```
 */
export function readClauses(text: string, tables: readonly LanguageTable[]): ClauseOutcome[] {
  const out: ClauseOutcome[] = [];
  for (const sentence of splitSentences(text)) {
    const flat = sentence.replace(/[ \t\f\v\u00a0]+/gu, " ");
    const sentenceTable = tableFor(flat, tables);
    const clauses = sentenceTable === undefined ? [flat] : splitClauses(flat, sentenceTable.clauseBreak);
    for (const clause of clauses) out.push(readClause(clause, tableFor(clause, tables)));
  }
  return out;
}

/** The table counting the most units of its script in `text` (the first on a tie); none when no table counts any. */
function tableFor(text: string, tables: readonly LanguageTable[]): LanguageTable | undefined {
  let best: LanguageTable | undefined;
  let most = 0;
  for (const table of tables) {
    const units = text.match(table.script)?.length ?? 0;
    if (units > most) {
      best = table;
      most = units;
    }
  }
  return best;
}

/**
 * Splits at the table's clause breaks, but glues back a part of fewer than three words: "My wife and
 * I live in Paris" is one clause, "I'm Tom, and I live in Paris" two.
 */
export function splitClauses(sentence: string, clauseBreak: RegExp): string[] {
  const pieces: Array<{ text: string; sep: string }> = [];
  let last = 0;
  for (const match of sentence.matchAll(clauseBreak)) {
    const at = match.index;
    if (at === 0 || match[0].length === 0) continue;
    pieces.push({ text: sentence.slice(last, at), sep: match[0] });
    last = at + match[0].length;
  }
  pieces.push({ text: sentence.slice(last), sep: "" });
  const out: string[] = [];
  let carry = "";
  for (const piece of pieces) {
    const text = carry + piece.text;
    if (piece.sep !== "" && wordCount(text) < 3) {
      carry = text + piece.sep;
      continue;
    }
    carry = "";
    if (text.trim().length > 0) out.push(text.trim());
  }
  return out;
}

/** Latin words (a contraction counts as two: "I'm") plus Han characters. */
function wordCount(text: string): number {
  const words = text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  let n = 0;
  for (const w of words) {
    const han = w.match(/\p{sc=Han}/gu)?.length ?? 0;
    n += han > 0 ? han : /['’]/u.test(w) ? 2 : 1;
  }
  return n;
}

/** The form rules are matched against: NFKC, typographic apostrophes as `'`, spaces collapsed. */
function matchForm(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u2019\u02bc]/gu, "'")
    .replace(/\s+/gu, " ")
    .trim();
}

/** Reads one clause with one table (or none). */
export function readClause(raw: string, table: LanguageTable | undefined): ClauseOutcome {
  const clause = table === undefined ? raw.trim() : raw.replace(table.filler, "").trim();
  if (!LETTER_OR_DIGIT.test(clause)) return { clause: raw, dropped: "no-words" };
  if (table === undefined) return { clause: raw, fact: { content: clause, kind: "fact", sourceSpan: raw } };
  const text = matchForm(clause);
  if (table.question.some((q) => q.test(text))) return { clause: raw, dropped: "question" };
  if (isSmallTalk(text, table)) return { clause: raw, dropped: "small-talk" };
  const body = firstPerson(text.replace(table.lead, ""), table);
  for (const rule of table.slots) {
    const match = rule.pattern.exec(body);
    if (match === null || !namesHold(rule, match)) continue;
    const fact: ExtractedFact = { content: clause, kind: rule.kind, sourceSpan: raw };
    const key = renderKey(rule.key, match.groups ?? {}, table);
    if (key !== null) fact.key = key;
    return { clause: raw, fact };
  }
  if (table.request.some((r) => r.test(text))) return { clause: raw, dropped: "request" };
  return { clause: raw, fact: { content: clause, kind: plainKind(text, table), sourceSpan: raw } };
}

/** The table's perspective rewrites, in order: "User lives in Berlin" → "i live in Berlin". */
function firstPerson(text: string, table: LanguageTable): string {
  let out = text;
  for (const [from, to] of table.perspective) out = out.replace(from, to);
  return out;
}

/** Phrase, glue, phrase… to the end, left to right with sticky expressions (linear in the text's length). */
function isSmallTalk(text: string, table: LanguageTable): boolean {
  const { phrase, glue } = table.smallTalk;
  let pos = skip(glue, text, 0);
  let phrases = 0;
  while (pos < text.length) {
    phrase.lastIndex = pos;
    const match = phrase.exec(text);
    if (match === null || match[0].length === 0) return false;
    phrases++;
    pos = skip(glue, text, pos + match[0].length);
  }
  return phrases > 0;
}

function skip(sticky: RegExp, text: string, pos: number): number {
  sticky.lastIndex = pos;
  const match = sticky.exec(text);
  return match === null ? pos : pos + match[0].length;
}

function namesHold(rule: SlotRule, match: RegExpExecArray): boolean {
  for (const name of rule.names ?? []) {
    const value = match.groups?.[name]?.trim();
    if (value === undefined || !/^(?:\p{Lu}|\p{sc=Han})/u.test(value)) return false;
  }
  return true;
}

function plainKind(text: string, table: LanguageTable): StatementKind {
  if (table.preference.test(text)) return "preference";
  if (table.event.test(text)) return "event";
  return "fact";
}

/**
 * Fills a key template from a match's named groups (see {@link SlotRule.key}); null when a group's
 * text is too long to be a slot value ("I like long walks on the beach at sunset with…").
 */
export function renderKey(template: string, groups: Readonly<Record<string, string | undefined>>, table: LanguageTable): string | null {
  let tooLong = false;
  const filled = template.replace(/\{(\w+)\}/gu, (_all, name: string) => {
    const value = groups[name];
    if (value === undefined) return "";
    const part = keyPart(value, table);
    if (part === null) tooLong = true;
    return part ?? "";
  });
  if (tooLong) return null;
  const key = filled.replace(/_+/gu, "_").replace(/^_|_$/gu, "");
  return key.length > 0 ? key : null;
}

/** A group's text as part of a key: "Peanuts" → "peanut", "my wife" → "partner", 老婆 → "partner", 花生 → "花生". */
export function keyPart(value: string, table: LanguageTable): string | null {
  const text = value
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2019\u02bc]/gu, "'")
    .trim();
  if (HAN.test(text)) {
    const compact = text.replace(/[^\p{L}\p{N}]+/gu, "").replace(/^(?:我的|我们的|我|的)/u, "");
    const mapped = table.keyWords[compact] ?? compact;
    return mapped.length === 0 || mapped.length > MAX_KEY_CJK_CHARS ? null : mapped;
  }
  const words: string[] = [];
  for (const raw of text.split(/[^\p{L}\p{N}']+/u)) {
    const word = raw.replace(/'s$/u, "").replace(/^'+|'+$/gu, "");
    if (word.length === 0 || ENGLISH_STOP_WORDS.has(word)) continue;
    const single = singular(word);
    words.push(table.keyWords[single] ?? table.keyWords[word] ?? single);
  }
  if (words.length === 0 || words.length > MAX_KEY_WORDS) return null;
  return words.join("_");
}

/** English plural → singular, for the common regular forms only ("peanuts", "berries", "dishes"). */
function singular(word: string): string {
  if (word.length <= 3 || !word.endsWith("s") || /(?:ss|us|is|ous)$/u.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ches|shes|xes|zes|sses)$/u.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}
