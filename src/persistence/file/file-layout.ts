// Names of the files a file store keeps in <path>/moomem/ (README, "On-disk layout and recovery").

/** The folder inside the user's directory that holds every file of a store. */
export const STORE_FOLDER = "moomem";
/** "0" or "1": the slot holding the current snapshot. */
export const HEAD = "head";
/** The writer's lock. */
export const LOCK = "LOCK";
/** Suffix of files written aside and renamed into place; leftovers are deleted on a writable open. */
export const TEMP_SUFFIX = ".tmp";

/** File name of snapshot slot 0 or 1. */
export function slotName(slot: 0 | 1): string {
  return `slot${slot}.jsonl`;
}

/** File name of the journal of snapshot generation `gen`. */
export function journalName(gen: number): string {
  return `journal.${gen}.jsonl`;
}

/** The gen a journal file name carries, or null for any other name. */
export function journalGen(name: string): number | null {
  const m = /^journal\.(0|[1-9]\d{0,15})\.jsonl$/.exec(name);
  if (m === null) return null;
  const gen = Number(m[1]);
  return Number.isSafeInteger(gen) ? gen : null;
}

/** Reads the head file: the slot it names, or null when it says anything else. */
export function parseHead(bytes: Uint8Array): 0 | 1 | null {
  // Exactly one byte, as the seed wrote it; a trailing newline is tolerated for hand-made stores.
  const text = bytes.length === 2 && bytes[1] === 10 ? bytes.subarray(0, 1) : bytes;
  if (text.length !== 1) return null;
  if (text[0] === 0x30) return 0;
  if (text[0] === 0x31) return 1;
  return null;
}

/** Temp files moomem itself writes (not other processes' lock attempts). */
export function isOwnTempFile(name: string): boolean {
  return name.endsWith(TEMP_SUFFIX) && !name.startsWith(`${LOCK}.`);
}
