// What a torn journal tail held, read from its damaged bytes without trusting them: so the write recovery cut off can be named.

import type { TornTail } from "../../types.ts";
import type { FileSystem } from "./file-system.ts";

/** Enough bytes to name the entries of an ordinary write; a huge torn import is reported from its start. */
const SAMPLE_BYTES = 256 * 1024;

// Journal lines start `{"n":N,"s":S,"t":T,` and entries `{"id":"…","user_id":"…",…,"seq":N` (record-codec field order).
const FRAME = /^\{"n":\d+,"s":\d+,"t":(\d{1,16})[,}]/;
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const ENTRY = new RegExp(String.raw`\{"id":(${STRING}),"user_id":(${STRING})`, "g");
const SEQ = /"superseded_by":(?:null|"(?:[^"\\]|\\.)*"),"seq":(\d{1,16})/;

function parseString(json: string): string | null {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Describes the torn tail of `file` (bytes from `start` to `end`), naming
 * the write time and the entries its first bytes still show. Reading is
 * best effort: a tail that cannot be read is still reported, without names.
 */
export async function describeTornTail(
  fs: FileSystem,
  dir: string,
  file: string,
  torn: { line: number; reason: string },
  start: number,
  end: number,
): Promise<TornTail> {
  const tail: TornTail = { file, line: torn.line, bytes: Math.max(0, end - start), reason: torn.reason, writtenAt: null, entries: [] };
  let sample = "";
  try {
    const decoder = new TextDecoder("utf-8", { fatal: false });
    for await (const chunk of fs.readChunks(`${dir}/${file}`, start)) {
      sample += decoder.decode(chunk, { stream: true });
      if (sample.length >= SAMPLE_BYTES) break;
    }
  } catch (error) {
    // The cut is reported all the same; only the names of what it held are missing.
    void error;
    return tail;
  }
  const frame = FRAME.exec(sample);
  if (frame !== null) tail.writtenAt = Number(frame[1]);
  const starts: { index: number; id: string; userId: string | null }[] = [];
  for (const m of sample.matchAll(ENTRY)) {
    const id = parseString(m[1]!);
    if (id !== null) starts.push({ index: m.index, id, userId: parseString(m[2]!) });
  }
  for (let i = 0; i < starts.length; i++) {
    const here = starts[i]!;
    const seq = SEQ.exec(sample.slice(here.index, starts[i + 1]?.index ?? sample.length));
    tail.entries.push({ id: here.id, userId: here.userId, seq: seq === null ? null : Number(seq[1]) });
  }
  return tail;
}
