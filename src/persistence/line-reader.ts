// Splits a stream of byte chunks into lines with their byte offsets, so recovery can cut a file at an exact line end.

/** One line of a file, without its newline. */
export interface RawLine {
  /** 1-based line number, for messages. */
  number: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's newline (or the end of the file for an unterminated last line). */
  end: number;
  bytes: Uint8Array;
  /** False only for a last line that has no newline (a torn write, or a file written without one). */
  terminated: boolean;
}

const NEWLINE = 10;

/**
 * Yields the lines of a file given as chunks. Each chunk must be a buffer the
 * reader may keep (not reused by the producer). Lines are never joined into
 * one string of the whole file.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<RawLine, void, undefined> {
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let offset = 0;
  let lineStart = 0;
  let number = 0;
  for await (const chunk of chunks) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, from);
      if (nl < 0) break;
      let bytes = chunk.subarray(from, nl);
      if (pendingLength > 0) {
        bytes = concat([...pending, bytes], pendingLength + bytes.length);
        pending = [];
        pendingLength = 0;
      }
      const end = offset + nl + 1;
      yield { number: ++number, start: lineStart, end, bytes, terminated: true };
      lineStart = end;
      from = nl + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.subarray(from));
      pendingLength += chunk.length - from;
    }
    offset += chunk.length;
  }
  if (pendingLength > 0) {
    yield { number: number + 1, start: lineStart, end: offset, bytes: concat(pending, pendingLength), terminated: false };
  }
}

/** Joins byte arrays into one. */
export function concat(parts: readonly Uint8Array[], length?: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let total = length ?? 0;
  if (length === undefined) for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The line as text, or null when its bytes are not valid UTF-8 (torn mid-character, or garbage). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}
