// The shape of one language's pattern table: what the offline extractor drops, which statements fill which slot.

import type { EntryKind } from "../types.ts";

/** The kinds the offline extractor gives (it never produces `unstructured`). */
export type StatementKind = Exclude<EntryKind, "unstructured">;

/**
 * One kind of statement that fills a slot, e.g. "I live in …" → `home_city`.
 *
 * @example
 * ```ts
 * const rule: SlotRule = { pattern: /^i'?m allergic to (?<value>.+)/iu, key: "allergy_{value}", kind: "fact" };
 * ```
 */
export interface SlotRule {
  /**
   * Tried from the start of a clause, once its leading filler ("by the way,") and leading time words
   * ("these days") are set aside. Named groups feed {@link SlotRule.key} and {@link SlotRule.names}.
   */
  readonly pattern: RegExp;
  /**
   * The slot key. `{group}` stands for the text of that named group, made key-like: lower case, words
   * joined by `_`, English plurals made singular, function words left out, each word mapped through
   * {@link LanguageTable.keyWords} ("wife" → "partner"). A group that did not take part disappears
   * with the `_` next to it (`{who}_home_city` → `home_city`).
   *
   * A slot holds one value: a new statement with the same key replaces the old one. Put the value
   * into the key for things a person has several of (`allergy_{value}`: peanuts and cats coexist),
   * and give the "no longer" form the same key as the positive one, so that it retires it.
   */
  readonly key: string;
  readonly kind: StatementKind;
  /**
   * Named groups that must be a name for the rule to apply: written with a capital letter by the
   * user, or in a script without case (Han). "My girlfriend is Anna" fills `partner_name`; "my
   * girlfriend is pregnant" does not.
   */
  readonly names?: readonly string[];
}

/** Word lists whose members make two facts different facts (see `anchorsOf`). All global (`g`) expressions. */
export interface AnchorPatterns {
  /** Negation: "not", "never", 不, 没. */
  readonly negation: RegExp;
  /** Dates and times of day: month and weekday names, "tomorrow", 周一, 五月. */
  readonly date: RegExp;
  /** Numbers written as words: "two", "twenty", 二十八 (digits are found for every language). */
  readonly number: RegExp;
  /** Who a fact is about, other than the user: "wife", "son", "dog", 妈妈, 儿子. */
  readonly relation: RegExp;
  /**
   * Personal names, for scripts without capital letters (小王, 张伟). Latin names are found by their
   * capital letter for every language. A false match only makes the judge more careful.
   */
  readonly name?: RegExp;
}

/**
 * Everything the offline extractor knows about one language, as data: adding a language is adding
 * a table (see `src/ingest/patterns/en.ts` and `zh.ts`), not changing the engine.
 *
 * Each clause goes through: filler removed → dropped when it has no letter or digit, is a question,
 * or is small talk → the first slot rule that matches gives a keyed fact → else dropped when it is a
 * request → else kept as said, as a fact without a key, of kind preference or event when a cue says
 * so. `clauseBreak` and `filler` see the text as written; the other expressions see it in NFKC form
 * with `'` for ’ and single spaces (full-width `？` is `?` there). Give them the `i` flag.
 */
export interface LanguageTable {
  /** BCP 47 code ("en", "zh"), for documentation and tests. */
  readonly language: string;
  /**
   * Counts the text units of this language: a global (`g`) expression, one match per unit (a Latin
   * word, a Han character). A clause is read with the table that counts the most units in it (the
   * first one on a tie): "Hi, 我住在北京" is Chinese, "I work at 腾讯" English.
   */
  readonly script: RegExp;
  /** Where a sentence splits into clauses ("…, and I …"; "…，我…"): a global expression for `String.split`, without capturing groups. */
  readonly clauseBreak: RegExp;
  /** Discourse filler at the start of a clause ("oh, and", "btw", "remember that", 对了): removed, also from the stored fact. */
  readonly filler: RegExp;
  /** Time words at the start ("these days", "now"): ignored while matching slot rules, kept in the stored fact. */
  readonly lead: RegExp;
  /**
   * Rewrites of the matching form, tried in order (each once, from the start), so that statements
   * about "the user" as agents write them ("User lives in Berlin", 用户住在北京) read as the user's
   * own ("I live in Berlin") and fill the same slots. The stored fact keeps its words.
   */
  readonly perspective: ReadonlyArray<readonly [RegExp, string]>;
  /** A clause matching any of these is a question (dropped). */
  readonly question: readonly RegExp[];
  /**
   * Small talk: a clause made only of `phrase`s (greetings, thanks, acknowledgements, laughter,
   * feelings of the moment: "ok cool", "lol that's funny", 好的谢谢) with `glue` (punctuation,
   * emoticons) around and between them is dropped. Both must be sticky (`y`): the engine matches
   * phrase, glue, phrase… from left to right without backtracking, so no input can make it slow.
   * List longer alternatives first ("good night" before "good").
   */
  readonly smallTalk: { readonly phrase: RegExp; readonly glue: RegExp };
  /** Requests to the assistant ("can you…", "book me…"), dropped unless a slot rule matched first. */
  readonly request: readonly RegExp[];
  /** Statements that fill a slot, tried in order: the first match wins. */
  readonly slots: readonly SlotRule[];
  /** Words mapped to one key word ("colour" → "color", "wife" → "partner", 老婆 → "partner"). */
  readonly keyWords: Readonly<Record<string, string>>;
  /** A statement without a slot that matches this is a preference ("I prefer…", 喜欢). */
  readonly preference: RegExp;
  /** A statement without a slot that matches this (and is no preference) is an event ("yesterday", 明天). */
  readonly event: RegExp;
  /** What the conflict judge compares besides digits and capitalised names. */
  readonly anchors: AnchorPatterns;
}

/**
 * Joins regular-expression alternatives, longest source first, so that a sticky match takes "nice
 * weather" before "nice" and "no worries" before "no" (JavaScript takes the first alternative that
 * matches, not the longest). Each source may itself be a `|` list; only its top-level `|` split it.
 *
 * @example
 * ```ts
 * longestFirst(["no|nope", "no\\s+worries"]); // "no\\s+worries|nope|no"
 * ```
 */
export function longestFirst(sources: readonly string[]): string {
  const alternatives: string[] = [];
  for (const source of sources) {
    let depth = 0;
    let start = 0;
    for (let i = 0; i < source.length; i++) {
      const ch = source[i];
      if (ch === "\\") i++;
      else if (ch === "(" || ch === "[") depth++;
      else if (ch === ")" || ch === "]") depth--;
      else if (ch === "|" && depth === 0) {
        alternatives.push(source.slice(start, i));
        start = i + 1;
      }
    }
    alternatives.push(source.slice(start));
  }
  return alternatives.sort((a, b) => b.length - a.length).join("|");
}
