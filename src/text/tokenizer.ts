// The one tokenizer shared by BM25, the hashing embedder and dedup: words from Intl.Segmenter plus CJK character grams.

import { stemEnglish } from "./english-stem.ts";
import { ENGLISH_STOP_WORDS } from "./stop-words.ts";
import { BoundedMemo, MAX_KEY_LENGTH } from "./bounded-memo.ts";
import { invalidArgument } from "../errors.ts";
import { describeValue } from "../describe-value.ts";

/**
 * What produced a token:
 * - `word`: a word-like segment outside CJK scripts, folded (`"Caroline's"` → `"carolin"`, `"paints"` → `"paint"`);
 * - `cjk-word`: a dictionary word the segmenter found inside a CJK run, of 1 or ≥ 3 characters
 *   (2-character words are already among the bigrams). Dictionaries differ between ICU versions,
 *   so these tokens may differ between runtimes;
 * - `cjk-gram`: a character bigram of a CJK run, or the single character of a 1-character run.
 *   These depend only on the text, so they are the same on every runtime;
 * - `cjk-char`: every single character of a CJK run. Not a search token ({@link tokenize} leaves it out:
 *   BM25 matches on words and bigrams); a sub-word feature for the hashing embedder, like the
 *   character 3-grams it takes from other words.
 */
export type TokenKind = "word" | "cjk-word" | "cjk-gram" | "cjk-char";

// Letters of Han, Hiragana, Katakana and Hangul, plus the prolonged sound mark ー (script Common).
// By script, not script extension: the extensions also take in punctuation such as 。 and 、.
const CJK_CLASS = String.raw`[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u30fc]`;
const CJK_CHAR = new RegExp(CJK_CLASS, "u");
const CJK_RUN = new RegExp(`${CJK_CLASS}+`, "gu");

function isCjkCodePoint(codePoint: number | undefined): boolean {
  return codePoint !== undefined && CJK_CHAR.test(String.fromCodePoint(codePoint));
}

function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const unit = text.charCodeAt(index - 1);
  const isLowSurrogate = unit >= 0xdc00 && unit <= 0xdfff;
  return text.codePointAt(isLowSurrogate && index >= 2 ? index - 2 : index - 1);
}

/** True when the segment at `start..end` of `text` has no CJK neighbour: a run of one character. */
function isWholeRun(text: string, start: number, end: number): boolean {
  return !isCjkCodePoint(codePointBefore(text, start)) && !isCjkCodePoint(text.codePointAt(end));
}

// Pinned to "en" (root rules; CJK and Thai dictionaries apply to every locale) so that the host's default
// locale cannot change word boundaries. "und" would silently resolve to the default locale.
const SEGMENTER_LOCALE = "en";
let segmenter: Intl.Segmenter | undefined;

function wordSegmenter(): Intl.Segmenter {
  // Created on first use, not at import: importing moomem must not touch Intl (and stays cheap).
  segmenter ??= new Intl.Segmenter(SEGMENTER_LOCALE, { granularity: "word" });
  return segmenter;
}

/**
 * Puts text into the form every token comes from: NFKC (full-width letters and digits become ASCII),
 * lower case (locale-independent), typographic apostrophes as `'` (so "don’t" and "don't" match), and
 * `_` as a space (so "snake_case" is two words, and the segmenter's odd "_ is no word, __ is one"
 * never matters).
 */
function canonicalText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2019\u02bc]/g, "'")
    .replace(/_/g, " ");
}

/**
 * Word-like segments of canonical text by `Intl.Segmenter`, made the same on every runtime.
 *
 * Runtimes disagree on one rule: V8 with ICU (Node 20, Bun) joins letters across `.` and `:` ("e.g",
 * "example.com", "a:b"), V8 15 (Deno 2.9) splits them. Splitting is the form kept here, because it also
 * lets "example" match "example.com": a segment is cut at every `:`, and at every `.` that does not
 * sit between two digits ("3.14" stays whole, as on every runtime). Exported for the tests that hold
 * {@link asciiWords} to it.
 */
export function segmenterWords(canonical: string, visit: (word: string, index: number) => void, chunkChars: number = SEGMENT_CHUNK): void {
  if (canonical.length <= chunkChars) {
    segmentPiece(canonical, 0, visit);
    return;
  }
  for (let start = 0; start < canonical.length;) {
    const end = pieceEnd(canonical, start, chunkChars);
    segmentPiece(canonical.slice(start, end), start, visit);
    start = end;
  }
}

/**
 * Longest text handed to `Intl.Segmenter` in one call. The segmenter's time per character grows with
 * the length of what it is given (V8 on Node 20: about 0.8 µs per CJK character in pieces of 2,048,
 * 3 µs at 16k, and past 65,536 characters so much that 66,000 took seconds and a recall ~90 s), so a
 * longer text goes in pieces, cut where a word cannot go on ({@link pieceEnd}): the work is linear in
 * the length. Ordinary text has a space or a sentence mark at least every 1,024 characters and is cut
 * only there, which changes no token (a property test holds chunked equal to whole).
 */
export const SEGMENT_CHUNK = 2048;

// Where a piece may end: after white space (not U+FEFF, which is a format character that words join
// across) and before a character that starts something new.
const CUT_AFTER_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
// Sentence and bracket marks that UAX #29 never joins to a neighbour (unlike . , ; : ' and ", which can
// sit inside a word or number); NFKC has already turned full-width ！？（） into ASCII.
const CUT_AFTER_MARK = /[!?()[\]{}\u3001\u3002\u3008-\u3011\u3014-\u301b]/u;
// Characters that attach to what precedes them (UAX #29 Extend, Format and ZWJ, emoji modifiers): never cut before one.
const ATTACHES = /[\p{Grapheme_Extend}\p{Mc}\p{Cf}\p{Emoji_Modifier}]/u;

/**
 * The end of the piece of `text` that starts at `start`: at most `max` UTF-16 units on, at the last
 * place in its second half where a word boundary is certain (after white space, else after a sentence
 * mark). Text with neither there (one unbroken run of letters) is cut before a character that does not
 * attach to the one before it, so no grapheme is split; only the words at such a cut can differ from
 * segmenting the whole text.
 */
function pieceEnd(text: string, start: number, max: number): number {
  const limit = start + max;
  if (limit >= text.length) return text.length;
  const floor = start + Math.max(1, Math.floor(max / 2));
  for (const after of [CUT_AFTER_SPACE, CUT_AFTER_MARK]) {
    for (let i = limit; i > floor; i--) {
      if (after.test(text[i - 1] as string) && !CUT_AFTER_SPACE.test(text[i] as string) && !startsAttached(text, i)) return i;
    }
  }
  for (let i = limit; i > floor; i--) {
    if (!startsAttached(text, i) && text.charCodeAt(i - 1) !== ZWJ) return i;
  }
  // Thousands of attached marks in a row: any cut outside a surrogate pair.
  return isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
}

const ZWJ = 0x200d;

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** True when the character at `i` cannot start a piece: the second half of a surrogate pair, or a mark that attaches. */
function startsAttached(text: string, i: number): boolean {
  if (isLowSurrogate(text.charCodeAt(i))) return true;
  return ATTACHES.test(String.fromCodePoint(text.codePointAt(i) as number));
}

/** {@link segmenterWords} for one piece whose first character is at `offset` in the whole text. */
function segmentPiece(canonical: string, offset: number, visit: (word: string, index: number) => void): void {
  for (const segment of wordSegmenter().segment(canonical)) {
    if (segment.isWordLike !== true) continue;
    const word = segment.segment;
    if (!word.includes(".") && !word.includes(":")) {
      visit(word, offset + segment.index);
      continue;
    }
    let start = 0;
    const emit = (end: number): void => {
      // Marks and format characters right after the cut belong to the `.` or `:` (as they would if the
      // segmenter had cut there itself), so they do not start the next word.
      const lead = LEADING_MARKS.exec(word.slice(start, end))?.[0].length ?? 0;
      if (end > start + lead) visit(word.slice(start + lead, end), offset + segment.index + start + lead);
    };
    for (let i = 0; i < word.length; i++) {
      const unit = word[i];
      if (unit !== "." && unit !== ":") continue;
      if (unit === "." && isDigit(codePointBefore(word, i)) && isDigit(word.codePointAt(i + 1))) continue;
      emit(i);
      start = i + 1;
    }
    emit(word.length);
  }
}

const LEADING_MARKS = /^[\p{M}\p{Cf}]+/u;

const DIGIT = /\p{Nd}/u;

function isDigit(codePoint: number | undefined): boolean {
  return codePoint !== undefined && DIGIT.test(String.fromCodePoint(codePoint));
}

/**
 * The words {@link segmenterWords} finds, for canonical text that is pure ASCII, at a fraction of the
 * cost (V8's segmenter spends about a microsecond per segment). The Unicode word rules (UAX #29)
 * restricted to lower-case ASCII without `_`: letters and digits join; `'` joins two letters; `.` `,`
 * `;` `'` join two digits. A property test holds it equal to the segmenter on every runtime.
 */
export function asciiWords(canonical: string, visit: (word: string, index: number) => void): void {
  // A hand-written scanner: about 3× the speed of the equivalent regular expression with look-arounds.
  const n = canonical.length;
  let i = 0;
  while (i < n) {
    if (!isAsciiAlnum(canonical.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    for (;;) {
      while (i < n && isAsciiAlnum(canonical.charCodeAt(i))) i++;
      if (i + 1 >= n) break;
      const joiner = canonical.charCodeAt(i);
      const before = canonical.charCodeAt(i - 1);
      const after = canonical.charCodeAt(i + 1);
      const betweenLetters = joiner === APOSTROPHE && isAsciiLetter(before) && isAsciiLetter(after);
      const betweenDigits = isDigitJoiner(joiner) && isAsciiDigit(before) && isAsciiDigit(after);
      if (!betweenLetters && !betweenDigits) break;
      i++;
    }
    visit(canonical.slice(start, i), start);
  }
}

const APOSTROPHE = 0x27;

function isAsciiLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isAsciiAlnum(code: number): boolean {
  return isAsciiLetter(code) || isAsciiDigit(code);
}

/** `.` `,` `;` `'`: the characters UAX #29 lets join two digits. */
function isDigitJoiner(code: number): boolean {
  return code === 0x2e || code === 0x2c || code === 0x3b || code === APOSTROPHE;
}

const NON_ASCII = /[^\p{ASCII}]/u;

/**
 * Folds a word so that its forms meet: the English possessive `'s` is dropped ("caroline's" →
 * "caroline"), then English inflections are folded by {@link stemEnglish} ("painted", "paints" →
 * "paint"). Stop words ({@link ENGLISH_STOP_WORDS}) stay as written, so that one list of surface forms
 * recognises them. On LoCoMo dev the possessive lifted keyword-only AnyHit@5 from 50.3 to 50.5 %, the
 * stemming from 50.5 to 53.4 % (docs/eval/tuning.md).
 */
function foldWord(word: string): string {
  // Words of up to 3 letters fold to themselves unless possessive (most function words): no lookup.
  if (word.length < 4 && !word.endsWith("'s")) return word;
  return foldedWords.get(word);
}

/** Words repeat (Zipf), and folding was half the cost of tokenizing: the folded forms are remembered. */
const foldedWords = new BoundedMemo<string>(50_000, (word) => {
  const base = word.length > 2 && word.endsWith("'s") ? word.slice(0, -2) : word;
  return ENGLISH_STOP_WORDS.has(base) ? base : stemEnglish(base);
});

/**
 * Calls `visit` once per token of `text`: first the segmenter's words in text order, then, run by run,
 * the grams and characters of each CJK run. The building block of {@link tokenize}; the hashing
 * embedder uses it to skip the runtime-dependent `cjk-word` tokens and to reach `cjk-char`.
 *
 * @example
 * ```ts
 * forEachToken("我对花生过敏", (token, kind) => console.log(kind, token));
 * ```
 */
export function forEachToken(text: string, visit: (token: string, kind: TokenKind) => void): void {
  const stream = text.length > MAX_KEY_LENGTH ? longStream(text) : recentStreams.get(text);
  for (let i = 0; i < stream.tokens.length; i++) visit(stream.tokens[i] as string, stream.kinds[i] as TokenKind);
}

/** Every token of a text with its kind, in {@link forEachToken}'s order. */
interface TokenStream {
  readonly tokens: readonly string[];
  readonly kinds: readonly TokenKind[];
}

/**
 * One add hands the same text to the tokenizer four times (embedding, conflict candidates, judging,
 * indexing); the streams of the last few hundred texts are kept (256 to 512) so that only the first call pays.
 * Room for hundreds because adds in flight are all embedded before the first is indexed.
 */
const recentStreams = new BoundedMemo<TokenStream>(256, streamOf);

/**
 * The stream of the last text too long for {@link recentStreams} (a host that raised `maxContentChars`):
 * one add still hands it to the tokenizer four times, and a megabyte of CJK takes seconds each. Held
 * through a `WeakRef`, so a stream of millions of tokens never outlives its add when memory is wanted.
 */
let lastLong: { text: string; stream: WeakRef<TokenStream> } | undefined;

function longStream(text: string): TokenStream {
  const kept = lastLong !== undefined && lastLong.text === text ? lastLong.stream.deref() : undefined;
  if (kept !== undefined) return kept;
  const stream = streamOf(text);
  lastLong = { text, stream: new WeakRef(stream) };
  return stream;
}

function streamOf(text: string): TokenStream {
  const tokens: string[] = [];
  const kinds: TokenKind[] = [];
  scanTokens(text, (token, kind) => {
    tokens.push(token);
    kinds.push(kind);
  });
  return { tokens, kinds };
}

function scanTokens(text: string, visit: (token: string, kind: TokenKind) => void): void {
  const canonical = canonicalText(text);
  if (canonical.length === 0) return;
  if (!NON_ASCII.test(canonical)) {
    asciiWords(canonical, (word) => visit(foldWord(word), "word"));
    return;
  }
  segmenterWords(canonical, (word, index) => {
    if (!CJK_CHAR.test(word)) {
      visit(foldWord(word), "word");
      return;
    }
    const chars = Array.from(word);
    if (chars.every((c) => CJK_CHAR.test(c))) {
      const lone = chars.length === 1 && isWholeRun(canonical, index, index + word.length);
      if (chars.length !== 2 && !lone) visit(word, "cjk-word");
      return;
    }
    // A segment mixing scripts ("iphone手机" on some ICU versions): its non-CJK parts are words,
    // its CJK part is covered by the run grams below.
    for (const part of word.split(CJK_RUN)) if (part.length > 0) visit(foldWord(part), "word");
  });
  for (const match of canonical.matchAll(CJK_RUN)) {
    const chars = Array.from(match[0]);
    if (chars.length === 1) visit(chars[0] as string, "cjk-gram");
    for (let i = 0; i + 1 < chars.length; i++) visit((chars[i] as string) + (chars[i + 1] as string), "cjk-gram");
    for (const char of chars) visit(char, "cjk-char");
  }
}

/**
 * Splits text into search tokens, repeats kept (term frequency matters to BM25).
 *
 * NFKC, lower case, the word-like segments of `Intl.Segmenter` (pure-ASCII text takes an equivalent,
 * much faster path), plus the character bigrams of every
 * run of Han / Hiragana / Katakana / Hangul characters, so that a part of a CJK word still matches.
 * The segmenter's own CJK words of 1 or ≥ 3 characters are kept too (2-character ones are bigrams already).
 * Stop words are kept here; BM25 leaves them out itself (`Bm25Params.stopWords`) and the hashing
 * embedder gives them no sub-word features. English inflections are folded ({@link stemEnglish}).
 *
 * @example
 * ```ts
 * tokenize("I'm allergic to PEANUTS!");   // ["i'm", "allergic", "to", "peanut"]
 * tokenize("我对花生过敏").includes("花生"); // true
 * ```
 */
export function tokenize(text: string): string[] {
  if (typeof text !== "string") throw invalidArgument(`tokenize: text must be a string, got ${describeValue(text)}`);
  const tokens: string[] = [];
  forEachToken(text, (token, kind) => {
    if (kind !== "cjk-char") tokens.push(token);
  });
  return tokens;
}

/**
 * {@link tokenize} without the memo of recent texts: the same tokens, for a bulk build of a user's
 * index (every text seen once, so remembering it only costs time and garbage). Words are still
 * folded through their own memo (they repeat). The caller passes a string.
 */
export function tokenizeOnce(text: string): string[] {
  const tokens: string[] = [];
  scanTokens(text, (token, kind) => {
    if (kind !== "cjk-char") tokens.push(token);
  });
  return tokens;
}

// Sentence-final punctuation (ASCII, CJK, full-width survivors of NFKC) and spaces, dropped from the end of a text.
const TRAILING_PUNCTUATION = /[\s.!?,;:~…‥。、，；：！？～]/u;

/**
 * `text` without its trailing {@link TRAILING_PUNCTUATION}. A scan from the end, not `/[…]+$/`: a regular
 * expression anchored at the end is tried from every position of every run of those characters, which
 * is quadratic ("a . . . … . b": 64k characters took 4.8 s, 1 MB would take minutes).
 */
function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && TRAILING_PUNCTUATION.test(text[end - 1] as string)) end--;
  return text.slice(0, end);
}

/**
 * The form two facts are compared in for dedup: NFKC, lower case, whitespace collapsed and trimmed,
 * trailing sentence punctuation dropped.
 *
 * @example
 * ```ts
 * normalizeForDedup("  I'm   allergic to Peanuts. ") === normalizeForDedup("i'm allergic to peanuts"); // true
 * normalizeForDedup("我对花生过敏。") === "我对花生过敏";                                                // true
 * ```
 */
export function normalizeForDedup(text: string): string {
  return dedupForms.get(text);
}

/** {@link normalizeForDedup} without the memo of recent texts (a bulk build sees each text once). */
export function normalizeForDedupOnce(text: string): string {
  return trimTrailingPunctuation(text.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim());
}

/** An add asks for a text's dedup form twice (the duplicate check, then indexing): the last few are kept. */
const dedupForms = new BoundedMemo<string>(512, normalizeForDedupOnce);

/**
 * Jaccard similarity of two token lists taken as sets: |A ∩ B| / |A ∪ B|; 0 when both are empty.
 *
 * @example
 * ```ts
 * jaccard(tokenize("I live in Paris"), tokenize("I live in Berlin")); // 0.6
 * ```
 */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  if (setA.size === 0 && setB.size === 0) return 0;
  const [small, large] = setA.size <= setB.size ? [setA, setB] : [setB, setA];
  let shared = 0;
  for (const token of small) if (large.has(token)) shared++;
  return shared / (setA.size + setB.size - shared);
}
