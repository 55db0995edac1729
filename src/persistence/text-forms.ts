// What a user's indexes need of an entry's text, read with the entry from a format-6 snapshot (docs/decisions.md, "Snapshot v6").

import type { EntryRecord } from "../types.ts";
import { normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { crc32UpdateAscii } from "./crc32.ts";
import { blockHome } from "./homed-record.ts";

/**
 * The tokens and dedup form of one entry's content, as `tokenize` and `normalizeForDedup` give them,
 * kept in the snapshot so that loading a user does not tokenize every text again. The entry's distinct
 * tokens (first-occurrence order) are `terms[ids[i]]` with `tfs[i]` occurrences, for `i` in
 * `start..end`; `terms`, `ids` and `tfs` are shared by the entries of one section.
 */
export interface TextForms {
  readonly terms: readonly string[];
  readonly ids: Uint32Array;
  readonly tfs: Uint32Array;
  readonly start: number;
  readonly end: number;
  readonly dedup: string;
}

/**
 * Where a record holds the forms read with it: a property under a symbol of this module, not enumerable,
 * so that no copy (spread, structuredClone, JSON, an export) carries it and no comparison sees it. A
 * record is immutable (a change makes a new object), so forms read with a record can never describe
 * another text: a record made by a write, a journal line or a copy has none. (A WeakMap did the same at
 * about a tenth of a 100,000-entry user's load, in its own cost and the collector's.)
 */
const FORMS = Symbol("moomem.textForms");

interface WithForms {
  [FORMS]?: TextForms | undefined;
}

/** The forms read with this very record, if any (tied to it, or kept by the section block it was read from: file/section-blocks.ts). */
export function textFormsOf(record: EntryRecord): TextForms | undefined {
  return (record as WithForms)[FORMS] ?? blockHome(record)?.forms(record);
}

/**
 * A {@link TextForms} filled in place by {@link takeTextFormsInto}, reused record after record (a build of 100,000
 * entries made as many objects, and as many lower-case copies of their texts). `dedup` null: the dedup form is the
 * record's content in lower case, and the content is ASCII (a block stores forms only for ASCII texts).
 */
export interface TextFormsSlot {
  terms: readonly string[];
  ids: Uint32Array;
  tfs: Uint32Array;
  start: number;
  end: number;
  dedup: string | null;
}

/** An empty {@link TextFormsSlot}. */
export function textFormsSlot(): TextFormsSlot {
  return { terms: [], ids: new Uint32Array(0), tfs: new Uint32Array(0), start: 0, end: 0, dedup: null };
}

/**
 * The forms read with this record, into `slot`, and forgotten there: an index build uses them once, and the
 * section's shared arrays are freed when its last entry is built (a later compaction tokenizes what it writes).
 * False when the record has none (the slot is then unchanged).
 */
export function takeTextFormsInto(record: EntryRecord, slot: TextFormsSlot): boolean {
  const forms = (record as WithForms)[FORMS];
  if (forms === undefined) return blockHome(record)?.takeFormsInto(record, slot) ?? false;
  (record as WithForms)[FORMS] = undefined;
  slot.terms = forms.terms;
  slot.ids = forms.ids;
  slot.tfs = forms.tfs;
  slot.start = forms.start;
  slot.end = forms.end;
  slot.dedup = forms.dedup;
  return true;
}

/** Ties `forms` (computed from `record.content` by this moomem's tokenizer, or read from a file that says so) to `record`, which has none yet. */
export function attachTextForms(record: EntryRecord, forms: TextForms): void {
  Object.defineProperty(record, FORMS, { value: forms, writable: true, enumerable: false, configurable: false });
}

// ASCII texts (the only ones whose forms a snapshot stores: see file/section-blocks.ts) whose tokens and
// dedup forms exercise each rule of the tokenizer on them: words, apostrophes, possessives, stemming,
// stop words, digits and their joiners, punctuation, case and spaces.
const PROBES = [
  "I'm allergic to PEANUTS! Caroline's paintings were painted; she paints daily.",
  "  Meeting on Tuesday at 10:30, 12,5 km from Berlin... 3.14 or 1,000,000?  ",
  "did her doing cities studies running ran happily the quick brown fox's jumps",
  "e-mail me@example.com re: U.S.A. trip -- rock'n'roll, don't won't can't (2024-05-01)",
];

let cachedId: string | null = null;

/**
 * Names the tokenizer and dedup normaliser this moomem runs: a snapshot's stored forms are used only
 * when the file names the same (a moomem whose tokenizer changed tokenizes again, and its next
 * compaction writes its own forms). Built from what they answer on {@link PROBES}, plus a version to
 * bump for a change the probes would not show.
 */
export function textFormsId(): string {
  if (cachedId !== null) return cachedId;
  let crc = 0;
  for (const probe of PROBES) {
    crc = crc32UpdateAscii(crc, escapeNonAscii(tokenize(probe).join("\u0001")));
    crc = crc32UpdateAscii(crc, escapeNonAscii(`\u0002${normalizeForDedup(probe)}\u0003`));
  }
  cachedId = `t1-${crc.toString(16)}`;
  return cachedId;
}

function escapeNonAscii(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out += code < 128 ? text[i] : `\\u${code.toString(16)}`;
  }
  return out;
}
