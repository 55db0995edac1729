// What makes two look-alike facts different facts: their numbers, identifiers, names, dates, negations and whose they are.

import type { LanguageTable } from "./language-table.ts";
import { BoundedMemo } from "../text/bounded-memo.ts";
import { STOP_WORDS } from "../text/stop-words.ts";

/**
 * Capitalised words that open sentences without being names (function words are left out anyway):
 * a sentence starting with one says nothing about who it is about.
 */
const COMMON_STARTS: ReadonlySet<string> = new Set(
  "yes no yeah please thanks sorry well oh hey hi hello actually also anyway today yesterday tomorrow tonight now currently recently lately last next every sometimes usually always never maybe".split(
    " ",
  ),
);

/** A token holding a digit: a number, an order or ticket id, a time ("#1234", "10:30", "iphone12", "3.5"). */
const WITH_DIGIT = /[#@]?[a-z0-9]*[0-9][a-z0-9]*(?:[.,:/-][0-9]+)*/giu;
/** A capitalised word (a name, in Latin script; not the letters of an identifier such as "LH721"), and what comes before it. */
const CAPITALISED = /(^|[^\p{L}\p{N}'’])(\p{Lu}[\p{L}'’-]*)(?![\p{L}\p{N}'’-])/gu;
/** Where a sentence starts: its first word is capitalised whether or not it is a name. */
const SENTENCE_START = /(?:^|[.!?。！？]\s*|\n\s*|:\s+)$/u;

/**
 * The anchors of a fact: the things that, when two facts differ in them, make them two facts rather
 * than an old and a new wording of one ("My order #1234 shipped" / "My order #5678 shipped", "I ran a
 * marathon in 2019 / 2022", "My son / daughter plays football", "I like / don't like spicy food").
 *
 * - numbers and identifiers: every token with a digit, plus number words (`table.anchors.number`);
 * - names: capitalised Latin words that are no function word ("I", "My"), nor a common sentence
 *   opener when they start a sentence; and the table's `anchors.name` (小王, 张伟);
 * - dates and times of day (`table.anchors.date`), relations (`table.anchors.relation`);
 * - negation: one anchor `"¬"` when the text has any negation word.
 *
 * Lower case. The tables of every language are applied (a text may mix them).
 *
 * @example
 * ```ts
 * anchorsOf("My order #1234 shipped today", [ENGLISH]); // Set { "#1234", "today" }
 * ```
 */
export function anchorsOf(text: string, tables: readonly LanguageTable[]): ReadonlySet<string> {
  const out = new Set<string>();
  const canonical = text.normalize("NFKC");
  for (const match of canonical.matchAll(WITH_DIGIT)) out.add(match[0].toLowerCase());
  for (const match of canonical.matchAll(CAPITALISED)) {
    const word = (match[2] as string).toLowerCase().replace(/['’](?:s|m|ve|d|ll|re)$/u, "");
    const at = (match.index ?? 0) + (match[1] as string).length;
    // A sentence's first word is capitalised anyway: a name only when it is no function word ("Tom", not "My").
    if (STOP_WORDS.has(word) || (SENTENCE_START.test(canonical.slice(0, at)) && COMMON_STARTS.has(word))) continue;
    out.add(word);
  }
  const lower = canonical.toLowerCase();
  for (const table of tables) {
    const { negation, date, number, relation, name } = table.anchors;
    if (lower.search(negation) !== -1) out.add("¬");
    for (const pattern of [date, number, relation]) for (const match of lower.matchAll(pattern)) out.add(match[0]);
    if (name !== undefined) for (const match of canonical.matchAll(name)) out.add(match[0]);
  }
  return out;
}

/**
 * Compares facts' anchors ({@link anchorsOf}) with a memo of recent texts, for the conflict judge: the
 * same neighbours come up as candidates add after add.
 */
export class AnchorComparer {
  readonly #memo: BoundedMemo<ReadonlySet<string>>;

  constructor(tables: readonly LanguageTable[]) {
    this.#memo = new BoundedMemo(4096, (text) => anchorsOf(text, tables));
  }

  /** The anchors one text has and the other has not (empty when they agree), at most three shown each way. */
  difference(a: string, b: string): string[] {
    const x = this.#memo.get(a);
    const y = this.#memo.get(b);
    const onlyA = [...x].filter((v) => !y.has(v));
    const onlyB = [...y].filter((v) => !x.has(v));
    if (onlyA.length === 0 && onlyB.length === 0) return [];
    return [...onlyA.slice(0, 3).map(show), ...onlyB.slice(0, 3).map(show)];
  }
}

const show = (anchor: string): string => (anchor === "¬" ? "a negation" : JSON.stringify(anchor));
