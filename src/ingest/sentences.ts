// Splits what a user wrote into sentences (English and CJK punctuation, line breaks), the same on every runtime.

/** Ends a sentence when followed by a space or the end of the line: `.` `!` `?` `…` (and runs of them). */
const LATIN_END = /[.!?…]/u;
/** Ends a sentence wherever it stands: the ideographic full stop and full-width marks. */
const CJK_END = /[。！？｡]/u;
/** May follow the end mark and still belong to the sentence: closing quotes and brackets. */
const CLOSERS = /["'”’»)\]）」』】〕》]/u;

/**
 * Words after which a `.` does not end a sentence (lower case, without the dot): titles before a name
 * and Latin abbreviations, which seldom end a sentence. Single letters other than "I" (initials,
 * "J. K. Rowling") never end one either, nor "No." before a number.
 */
const ABBREVIATIONS: ReadonlySet<string> = new Set(["mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "e.g", "i.e", "eg", "ie", "approx", "fig", "cf"]);

/**
 * The sentences of `text`, trimmed, empty ones left out. A line break always ends a sentence (chat
 * messages use them as sentence breaks). `.` `!` `?` `…` end one when a space or the end of the line
 * follows, whatever the case of the next word ("ok. i live in Paris" is two sentences, which
 * `Intl.Segmenter`'s sentence rules do not split); `。` `！` `？` end one wherever they stand. A `.`
 * after an abbreviation ("Dr.") or an initial does not, nor one inside a number ("3.14").
 *
 * Written by hand rather than with `Intl.Segmenter`'s sentence granularity: ICU versions differ
 * between runtimes, and its rules keep lower-case chat text together.
 *
 * @example
 * ```ts
 * splitSentences("Hi! I moved to Shenzhen. 我对花生过敏。谢谢");
 * // ["Hi!", "I moved to Shenzhen.", "我对花生过敏。", "谢谢"]
 * ```
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r\n|[\n\r\u2028\u2029]/u)) splitLine(line, out);
  return out;
}

function splitLine(line: string, out: string[]): void {
  const chars = Array.from(line);
  let start = 0;
  let i = 0;
  const push = (end: number): void => {
    const sentence = chars.slice(start, end).join("").trim();
    if (sentence.length > 0) out.push(sentence);
    start = end;
  };
  while (i < chars.length) {
    const ch = chars[i] as string;
    const cjk = CJK_END.test(ch);
    if (!cjk && !LATIN_END.test(ch)) {
      i++;
      continue;
    }
    // A run of end marks ("?!", "...", "！！") and the closers after it belong to this sentence.
    let end = i + 1;
    while (end < chars.length && (LATIN_END.test(chars[end] as string) || CJK_END.test(chars[end] as string))) end++;
    while (end < chars.length && CLOSERS.test(chars[end] as string)) end++;
    const atBreak = end >= chars.length || /\s/u.test(chars[end] as string);
    if ((cjk || atBreak) && !(ch === "." && end === i + 1 && keepsDot(chars, start, i))) push(end);
    i = end;
  }
  push(chars.length);
}

/** True when the single `.` at `dot` follows an abbreviation or an initial, so it does not end the sentence. */
function keepsDot(chars: readonly string[], start: number, dot: number): boolean {
  let w = dot;
  while (w > start && /[\p{L}\p{N}.]/u.test(chars[w - 1] as string)) w--;
  const word = chars.slice(w, dot).join("").toLowerCase();
  if (word.length === 0) return false;
  if (word.length === 1 && word !== "i" && /\p{L}/u.test(word)) return true;
  if (word === "no" || word === "nr") return /^\s*\p{N}/u.test(chars.slice(dot + 1, dot + 4).join(""));
  return ABBREVIATIONS.has(word);
}
