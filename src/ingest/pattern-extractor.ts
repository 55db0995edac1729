// The default, offline extractor: the user's statements, sentence by sentence, without small talk, with slot keys from pattern tables.

import type { ChatMessage, ExtractedFact, Extractor } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { stripMemoryContext } from "../text/context-markers.ts";
import type { LanguageTable } from "./language-table.ts";
import { readClauses } from "./pattern-engine.ts";
import { userText } from "../text/transcript.ts";
import { DEFAULT_LANGUAGES } from "./patterns/default-languages.ts";

/** A fenced code block (``` or ~~~), closed or running to the end of the text. */
const CODE_FENCE = /(```|~~~)[^\n]*\n[\s\S]*?(?:\1|$)/gu;

/** Options of {@link PatternExtractor}. */
export interface PatternExtractorOptions {
  /** The languages it reads (default {@link DEFAULT_LANGUAGES}: English and Chinese). Add a table to add a language. */
  languages?: readonly LanguageTable[];
}

/**
 * Finds the user's statements without a model (mode `"patterns"`, the default extractor):
 *
 * - splits the user's words into sentences and clauses (English and Chinese punctuation, line breaks);
 * - drops questions, greetings, thanks, acknowledgements, laughter, feelings of the moment and
 *   requests to the assistant ("Can I eat peanuts?", "thanks!", "好的谢谢", "帮我订个餐厅");
 * - gives common personal facts a slot `key` ("I moved to Shenzhen" and "我住在北京" both fill
 *   `home_city`), so that the judge replaces the old value by key: where the user lives, hometown,
 *   employer, job, school, name and what to call them, age, birthday, partner, children's and pets'
 *   names, diet, favourites. Things a person has several of keep one slot per value
 *   (`allergy_peanut`, `likes_jazz`, `speaks_french`) and coexist; "I'm no longer allergic to
 *   peanuts" / "我不再吃素了" fill the same slot as the positive form and retire it;
 * - keeps every other statement as it was said, of kind `preference` or `event` when a cue says so,
 *   else `fact`, without a key.
 *
 * For a transcript only the user's messages are read; `<moomem-context>` blocks and fenced code
 * blocks are removed first.
 * The rules are data: one {@link LanguageTable} per language (`src/ingest/patterns/`).
 *
 * @example
 * ```ts
 * const facts = await new PatternExtractor().extract("u1", "Hi! I just moved to Shenzhen. Can I eat peanuts?");
 * // [{ content: "I just moved to Shenzhen.", kind: "fact", key: "home_city", sourceSpan: "I just moved to Shenzhen." }]
 * ```
 */
export class PatternExtractor implements Extractor {
  readonly mode: string = "patterns";
  readonly #languages: readonly LanguageTable[];

  constructor(options: PatternExtractorOptions = {}) {
    const languages = options.languages ?? DEFAULT_LANGUAGES;
    if (!Array.isArray(languages) || languages.length === 0) {
      throw invalidArgument("PatternExtractor: languages must be a non-empty array of language tables (e.g. DEFAULT_LANGUAGES)");
    }
    this.#languages = languages;
  }

  extract(_userId: string, input: string | readonly ChatMessage[]): Promise<ExtractedFact[]> {
    // Fenced code (``` … ```) is material the user pasted, not statements about them.
    const text = (typeof input === "string" ? stripMemoryContext(input) : userText(input)).replace(CODE_FENCE, "\n");
    const facts: ExtractedFact[] = [];
    for (const outcome of readClauses(text, this.#languages)) if ("fact" in outcome) facts.push(outcome.fact);
    return Promise.resolve(facts);
  }
}
