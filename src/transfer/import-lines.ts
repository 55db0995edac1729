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
 * Cuts chunks into lines. Each chunk is searched once, from where the previous search stopped, and a
 * line spread over many chunks is joined once, when its newline arrives: the work is linear in the
 * input however long its lines are (reading the pending text again for every chunk made a line of n
 * chunks cost n², and an 8 MiB line take seconds). A line longer than `maxLineChars` is refused as
 * soon as that is known, naming it, before the rest of it is read. Synchronous, so a line costs no
 * promise: the caller awaits the chunks.
 *
 * Input given as lines without newlines (readline style, `["{…}", "{…}"]`) works too: a chunk that
 * holds no newline, starts a line and parses as a JSON object on its own is taken as a whole line; a
 * newline opening the next chunk then ends that line rather than adding an empty one. A byte order
 * mark at the very start is skipped.
 *
 * @example
 * ```ts
 * const splitter = new LineSplitter(1024);
 * for (const chunk of ['{"a":', '1}\n{"b":2}\n']) splitter.push(chunk, (line) => console.log(line.number, line.text));
 * splitter.end((line) => console.log(line.number, line.text));
 * ```
 */
export class LineSplitter {
  readonly #maxLineChars: number;
  #parts: string[] = [];
  #partsLength = 0;
  #number = 0;
  #first = true;
  #endedWithoutNewline = false;

  constructor(maxLineChars: number) {
    this.#maxLineChars = maxLineChars;
  }

  /** Hands every line this chunk completes to `take`, in order. */
  push(chunk: string, take: (line: ImportLine) => void): void {
    if (chunk.length === 0) return;
    let from = 0;
    if (this.#first) {
      // A byte order mark some editors put at the start of a file is not part of the first line.
      if (chunk.charCodeAt(0) === 0xfeff) from = 1;
      this.#first = false;
    }
    if (this.#endedWithoutNewline) {
      if (chunk.charCodeAt(from) === NEWLINE) from++;
      else if (chunk.charCodeAt(from) === RETURN && chunk.charCodeAt(from + 1) === NEWLINE) from += 2;
      this.#endedWithoutNewline = false;
    }
    for (let nl = chunk.indexOf("\n", from); nl >= 0; nl = chunk.indexOf("\n", from)) {
      if (this.#partsLength + (nl - from) > this.#maxLineChars) this.#tooLong();
      const piece = chunk.slice(from, nl);
      const text = this.#partsLength === 0 ? piece : this.#parts.join("") + piece;
      this.#parts = [];
      this.#partsLength = 0;
      from = nl + 1;
      take({ number: ++this.#number, text });
    }
    if (from >= chunk.length) return;
    const rest = chunk.length - from;
    if (this.#partsLength + rest > this.#maxLineChars) this.#tooLong();
    if (this.#partsLength === 0 && from === 0) {
      const value = wholeObject(chunk);
      if (value !== undefined) {
        this.#endedWithoutNewline = true;
        take({ number: ++this.#number, text: chunk, value });
        return;
      }
    }
    this.#parts.push(from === 0 ? chunk : chunk.slice(from));
    this.#partsLength += rest;
  }

  /** Hands the last line to `take` when the input did not end with a newline. */
  end(take: (line: ImportLine) => void): void {
    if (this.#partsLength === 0) return;
    const text = this.#parts.join("");
    this.#parts = [];
    this.#partsLength = 0;
    take({ number: ++this.#number, text });
  }

  #tooLong(): never {
    throw invalidArgument(
      `import: line ${this.#number + 1} is longer than ${this.#maxLineChars} characters, the most one entry line may hold (16 MiB plus 6 × maxContentChars); this is not an export line, nothing was imported`,
    );
  }
}

/** The chunk parsed, when it is a JSON object by itself (every line of an export is one); else undefined. */
function wholeObject(chunk: string): unknown {
  // Only a chunk that ends like an object is worth parsing: a piece from the middle of a long line
  // rarely does, so the parse below runs at most once per chunk and seldom at all.
  let end = chunk.length - 1;
  while (end >= 0 && (chunk.charCodeAt(end) === 32 || chunk.charCodeAt(end) === 9 || chunk.charCodeAt(end) === RETURN)) end--;
  if (end < 0 || chunk.charCodeAt(end) !== 125) return undefined;
  try {
    const value: unknown = JSON.parse(chunk);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
