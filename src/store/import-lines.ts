// Splits import input (whole lines, or chunks that split lines anywhere) into numbered lines, in time linear in its length.

import { invalidArgument } from "../errors.ts";

/** One line of an import, without its newline. */
export interface ImportLine {
  /** 1-based, counting every line of the input (blank ones too), for messages. */
  number: number;
  text: string;
  /** The parsed value, when the splitter already had to parse the line to know it was whole. */
  value?: unknown;
}

const NEWLINE = 10;
const RETURN = 13;

/**
 * Yields the lines of `source`. Each chunk is searched once, from where the previous search stopped,
 * and a line spread over many chunks is joined once, when its newline arrives: the work is linear in
 * the input however long its lines are (reading the pending text again for every chunk made a line of
 * n chunks cost n² and an 8 MiB line take seconds). A line longer than `maxLineChars` is refused as
 * soon as that is known, naming it, before the rest of it is read.
 *
 * Input given as lines without newlines (readline style, `["{…}", "{…}"]`) works too: a chunk that
 * holds no newline, starts a line and parses as a JSON object on its own is taken as a whole line; a
 * newline opening the next chunk then ends that line rather than adding an empty one.
 */
export async function* importLines(source: Iterable<string> | AsyncIterable<string>, maxLineChars: number): AsyncGenerator<ImportLine, void, undefined> {
  let parts: string[] = [];
  let partsLength = 0;
  let number = 0;
  let first = true;
  let endedWithoutNewline = false;
  const tooLong = (): never => {
    throw invalidArgument(
      `import: line ${number + 1} is longer than ${maxLineChars} characters, the most one entry line may hold (16 MiB plus 6 × maxContentChars); this is not an export line, nothing was imported`,
    );
  };
  for await (const chunk of source as AsyncIterable<unknown>) {
    if (typeof chunk !== "string") throw invalidArgument(`import: expected strings (lines or JSONL chunks), got ${typeof chunk}; nothing was imported`);
    if (chunk.length === 0) continue;
    let from = 0;
    if (first) {
      // A byte order mark some editors put at the start of a file is not part of the first line.
      if (chunk.charCodeAt(0) === 0xfeff) from = 1;
      first = false;
    }
    if (endedWithoutNewline) {
      if (chunk.charCodeAt(from) === NEWLINE) from++;
      else if (chunk.charCodeAt(from) === RETURN && chunk.charCodeAt(from + 1) === NEWLINE) from += 2;
      endedWithoutNewline = false;
    }
    for (let nl = chunk.indexOf("\n", from); nl >= 0; nl = chunk.indexOf("\n", from)) {
      if (partsLength + (nl - from) > maxLineChars) tooLong();
      const piece = chunk.slice(from, nl);
      const text = partsLength === 0 ? piece : parts.join("") + piece;
      parts = [];
      partsLength = 0;
      yield { number: ++number, text };
      from = nl + 1;
    }
    if (from >= chunk.length) continue;
    const rest = chunk.length - from;
    if (partsLength + rest > maxLineChars) tooLong();
    if (partsLength === 0 && from === 0) {
      const value = wholeObject(chunk);
      if (value !== undefined) {
        yield { number: ++number, text: chunk, value };
        endedWithoutNewline = true;
        continue;
      }
    }
    parts.push(from === 0 ? chunk : chunk.slice(from));
    partsLength += rest;
  }
  if (partsLength > 0) yield { number: ++number, text: parts.join("") };
}

/** The chunk parsed, when it is a JSON object by itself (every line of an export is one); else undefined. */
function wholeObject(chunk: string): unknown {
  // Only a chunk that ends like an object is worth parsing: a piece from the middle of a long line
  // rarely does, so the parse below runs at most once per chunk and seldom at all.
  const end = chunk.trimEnd();
  if (!end.endsWith("}")) return undefined;
  try {
    const value: unknown = JSON.parse(chunk);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
