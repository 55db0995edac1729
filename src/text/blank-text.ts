// What counts as empty text: nothing a person could read, however many characters it has.

// White space, control characters (NUL …), format and other default-ignorable characters (zero-width
// space and joiners U+200B–U+200D, word joiner U+2060, BOM U+FEFF, soft hyphen, variation selectors,
// Hangul fillers), lone surrogates, and the blank Braille pattern U+2800: none of it shows as text.
const BLANK_TEXT = /^[\s\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800]*$/u;

/**
 * True when `text` holds nothing a person could read: only white space, control characters (NUL),
 * zero-width and other invisible characters. Such text is empty for `add`, `recall`, `import` and for
 * the facts an extractor returns.
 *
 * @example
 * ```ts
 * isBlankText(" \u200b\u0000 "); // true
 * isBlankText("hi");             // false
 * ```
 */
export function isBlankText(text: string): boolean {
  return BLANK_TEXT.test(text);
}
