// A light, conservative English suffix folder: plural, -ed, -ing and a final -e, so "painted", "painting" and "paints" meet.

const ASCII_WORD = /^[a-z]+$/;
const VOWEL = /[aeiouy]/;
// Double consonants that a suffix doubled ("running" → "runn" → "run"); l, s and z doubles are usually the word's own.
const DOUBLED = /([b-df-hj-kmnp-rtv-xz])\1$/;

/**
 * Folds common English inflections of a lower-case ASCII word of ≥ 4 letters to one stem; anything
 * else (digits, apostrophes, other scripts, short words) is returned unchanged. Not a linguistic
 * stemmer (no Porter step 2–5, no irregular forms): it only has to map the forms of a word onto the same
 * string for BM25 and the hashing embedder, and rarely merge two different words.
 *
 * Steps, in order: plural or 3rd person (`-ies` → `-y`, `-sses` → `-ss`, `-s` unless after s/u/i);
 * past or participle (`-ied` → `-y`, `-ed` unless `-eed`; `-ing`), each only if the remaining stem has a
 * vowel, then undoubling a final consonant pair; finally a trailing `-e` ("hike", "hiking" → "hik").
 * On LoCoMo dev it lifted keyword-only AnyHit@5 by about 3 points (docs/eval/tuning.md).
 *
 * @example
 * ```ts
 * [ "painted", "painting", "paints", "paint" ].map(stemEnglish); // all "paint"
 * stemEnglish("hiking") === stemEnglish("hikes");                  // "hik"
 * ```
 */
export function stemEnglish(word: string): string {
  if (word.length < 4 || !ASCII_WORD.test(word)) return word;
  let s = word;
  if (s.endsWith("ies") && s.length > 4) s = s.slice(0, -3) + "y";
  else if (s.endsWith("sses")) s = s.slice(0, -2);
  else if (s.endsWith("s") && !/[sui]s$/.test(s)) s = s.slice(0, -1);

  let cut = "";
  if (s.endsWith("ied") && s.length > 4) s = s.slice(0, -3) + "y";
  else if (s.endsWith("ed") && !s.endsWith("eed") && s.length > 4) cut = s.slice(0, -2);
  else if (s.endsWith("ing") && s.length > 5) cut = s.slice(0, -3);
  if (cut.length > 0 && VOWEL.test(cut)) s = DOUBLED.test(cut) ? cut.slice(0, -1) : cut;

  if (s.length >= 4 && s.endsWith("e") && !s.endsWith("ee")) s = s.slice(0, -1);
  return s;
}
