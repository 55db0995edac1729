// The relevance floor of lexical recall: a memory that shares no content word or word piece with the query is not a match.

import { forEachToken } from "./tokenizer.ts";
import { STOP_WORDS, isCjkStopToken } from "./stop-words.ts";
import { BoundedMemo } from "./bounded-memo.ts";

const HAS_LETTER = /\p{L}/u;

/**
 * What a text says beyond function words: its content words (folded as the tokenizer folds them),
 * their character 3-grams between `<` `>` marks (so "allergic" and "allergy" meet, as they do in the
 * hashing embedder), its CJK bigrams that are not two function characters, and its CJK characters
 * that are not function characters (English and Chinese stop words, see `stop-words.ts`). The
 * segmenter's CJK dictionary words are left out: they differ between runtimes, and the bigrams and
 * characters cover them.
 *
 * @example
 * ```ts
 * contentFeatures("我能吃花生吗").has("我"); // false: a function character
 * contentFeatures("Can I eat peanuts?").has("peanut"); // true
 * ```
 */
export function contentFeatures(text: string): ReadonlySet<string> {
  return recent.get(text);
}

const recent = new BoundedMemo<ReadonlySet<string>>(2048, (text) => {
  const out = new Set<string>();
  forEachToken(text, (token, kind) => {
    if (kind === "word") {
      if (STOP_WORDS.has(token)) return;
      out.add(token);
      // A number or identifier counts whole: "1234" and "1243" share pieces but nothing else.
      if (!HAS_LETTER.test(token)) return;
      const marked = `<${token}>`;
      for (let i = 0; i + 3 <= marked.length; i++) out.add(marked.slice(i, i + 3));
    } else if (kind === "cjk-gram" || kind === "cjk-char") {
      if (!isCjkStopToken(token)) out.add(token);
    }
  });
  return out;
});

/**
 * True when `memory` shares at least one content feature with `query` ({@link contentFeatures}).
 * With a lexical embedder (the built-in hashing one) the vector route matches on the same words BM25
 * sees, so a vector hit that shares nothing but function words ("我" in 我能吃花生吗 and 我住在北京),
 * or nothing at all (a hash collision), is noise: recall leaves it out.
 *
 * @example
 * ```ts
 * sharesContent("我能吃花生吗？", "我住在北京"); // false
 * sharesContent("我能吃花生吗？", "我对花生过敏"); // true
 * ```
 */
export function sharesContent(query: string, memory: string): boolean {
  const a = contentFeatures(query);
  const b = contentFeatures(memory);
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const feature of small) if (large.has(feature)) return true;
  return false;
}
