// Export/import lines: a header naming the format and embedder, then one entry per line (the on-disk shape).

import type { EntryRecord } from "../types.ts";
import type { EmbedderIdentity } from "../persistence/backend.ts";
import { entryFromJson, entryJsonText } from "../persistence/record-codec.ts";
import { invalidArgument, MoomemError, describeError } from "../errors.ts";
import { checkUserId } from "./validation.ts";

export const EXPORT_FORMAT = 1;

export interface ExportHeader {
  moomem_export: number;
  format: number;
  embedder: EmbedderIdentity;
  user_id: string | null;
  exported_at: number;
  count: number;
}

export function headerLine(header: ExportHeader): string {
  return JSON.stringify(header) + "\n";
}

export function entryLine(record: EntryRecord): string {
  return entryJsonText(record) + "\n";
}

/** What an import file held, validated line by line before anything is applied. */
export interface ParsedImport {
  header: ExportHeader | null;
  entries: EntryRecord[];
  skipped: number;
}

/**
 * Reads lines (or JSONL chunks that may split lines anywhere) from any sync or
 * async iterable and validates every one; the first bad line rejects the
 * whole import with its line number.
 */
export async function parseImport(source: Iterable<string> | AsyncIterable<string>): Promise<ParsedImport> {
  const out: ParsedImport = { header: null, entries: [], skipped: 0 };
  const seen = new Set<string>();
  let lineNo = 0;
  const take = (line: string): void => {
    lineNo++;
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim().length === 0) {
      out.skipped++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidArgument(`import: line ${lineNo} is not valid JSON (${JSON.stringify(text.slice(0, 60))}); nothing was imported`);
    }
    if (typeof value === "object" && value !== null && "moomem_export" in value) {
      if (lineNo !== 1 && out.header === null && out.entries.length > 0) {
        throw invalidArgument(`import: line ${lineNo} is an export header in the middle of the file; nothing was imported`);
      }
      out.header = checkHeader(value as Record<string, unknown>, lineNo);
      out.skipped++;
      return;
    }
    let entry: EntryRecord;
    try {
      entry = entryFromJson(value);
      checkUserId(entry.userId);
    } catch (error) {
      throw invalidArgument(`import: line ${lineNo} is not a valid memory entry: ${describeError(error)}; nothing was imported`);
    }
    if (seen.has(entry.id)) throw invalidArgument(`import: line ${lineNo} repeats id ${entry.id}; nothing was imported`);
    seen.add(entry.id);
    out.entries.push(entry);
  };
  let pending = "";
  for await (const chunk of source as AsyncIterable<string>) {
    if (typeof chunk !== "string") throw invalidArgument(`import: expected strings (lines or JSONL chunks), got ${typeof chunk}`);
    pending += chunk;
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      take(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf("\n");
    }
    // A piece without a newline is a whole line when it parses on its own (readline-style input).
    if (pending.length > 0 && isJson(pending)) {
      take(pending);
      pending = "";
    }
  }
  if (pending.trim().length > 0) take(pending);
  return out;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function checkHeader(o: Record<string, unknown>, lineNo: number): ExportHeader {
  if (o["moomem_export"] !== EXPORT_FORMAT) {
    throw new MoomemError("INVALID_ARGUMENT", `import: line ${lineNo} is an export of format ${JSON.stringify(o["moomem_export"])}; this moomem reads format ${EXPORT_FORMAT}`);
  }
  const embedder = o["embedder"] as Record<string, unknown> | undefined;
  if (typeof embedder !== "object" || embedder === null || typeof embedder["id"] !== "string" || typeof embedder["dim"] !== "number") {
    throw invalidArgument(`import: line ${lineNo}: the export header has no valid "embedder" { id, dim }`);
  }
  return {
    moomem_export: EXPORT_FORMAT,
    format: typeof o["format"] === "number" ? o["format"] : 2,
    embedder: { id: embedder["id"], dim: embedder["dim"] },
    user_id: typeof o["user_id"] === "string" ? o["user_id"] : null,
    exported_at: typeof o["exported_at"] === "number" ? o["exported_at"] : 0,
    count: typeof o["count"] === "number" ? o["count"] : 0,
  };
}
