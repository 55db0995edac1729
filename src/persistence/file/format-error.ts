// What the pure format readers throw when a line cannot be trusted; the backend turns it into STORE_CORRUPTED naming the file.

/**
 * A persisted line that breaks its format. `kind` is `"version"` when the file
 * was written in a format this moomem does not know (never guessed around),
 * `"damage"` otherwise.
 */
export class FormatError extends Error {
  /** 1-based line number in the file (or record number where there are no lines). */
  readonly line: number;
  readonly kind: "damage" | "version";

  constructor(line: number, message: string, kind: "damage" | "version" = "damage") {
    super(message);
    this.name = "FormatError";
    this.line = line;
    this.kind = kind;
  }
}
