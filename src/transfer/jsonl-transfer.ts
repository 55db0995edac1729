// Export/import lines: a header naming the export format, entry format, embedder and count, then one entry per line (the on-disk shape).

import type { EntryRecord } from "../types.ts";
import type { EmbedderIdentity } from "../persistence/backend.ts";
import { entryFromJson, entryJsonText } from "../persistence/record-codec.ts";
import { invalidArgument, MoomemError, describeError } from "../errors.ts";
import { checkUserId } from "../validation/arguments.ts";
import { checkImportedEntry, type EntryRules } from "./import-check.ts";
import { LineSplitter, type ImportLine } from "./import-lines.ts";

/**
 * Version of the export file itself (header `moomem_export`): a header line, then entry lines. It is
 * not the store's on-disk format (`stats().formatVersion`), which an export never depends on.
 */
export const EXPORT_FORMAT = 1;

/**
 * Version of the entry lines in an export (header `entry_format`): the entry shape of store format 4
 * (the store's bookkeeping in `lifecycle`, apart from `metadata`), dense base64 vectors. Exports made
 * before the field was named wrote it as `format`; import reads both.
 */
export const EXPORT_ENTRY_FORMAT = 4;

/**
 * The entry format of exports for a moomem before entry format 4 (which reads 1 to 3): the bookkeeping
 * written into `metadata` under its old names (`export({ entryFormat: 2 })`).
 */
export const LEGACY_EXPORT_ENTRY_FORMAT = 2;

/** The entry formats import reads: the seed's v1 (number arrays), v2 (dense base64), v3 (sparse vectors), v4 (lifecycle). */
const ENTRY_FORMATS = [1, 2, 3, 4];

/**
 * Longest line import reads, in characters: any entry moomem writes fits (its content is at most
 * `maxContentChars`, which JSON escaping can make 6 times longer, plus metadata and a vector), and a
 * hostile file cannot make one line cost unbounded memory.
 */
export function maxImportLineChars(maxContentChars: number): number {
  return 16 * 1024 * 1024 + 6 * maxContentChars;
}

export interface ExportHeader {
  moomem_export: number;
  entry_format: number;
  embedder: EmbedderIdentity;
  user_id: string | null;
  exported_at: number;
  count: number;
}

export function headerLine(header: ExportHeader): string {
  return JSON.stringify(header) + "\n";
}

/** One entry's line; `legacy`: in entry format 2 (see {@link LEGACY_EXPORT_ENTRY_FORMAT}; throws for metadata using an old bookkeeping name). */
export function entryLine(record: EntryRecord, legacy = false): string {
  return entryJsonText(record, false, legacy) + "\n";
}

/** What an import file held, validated line by line before anything is applied. */
export interface ParsedImport {
  /** Null only for a partial import without a header. */
  header: ExportHeader | null;
  entries: EntryRecord[];
  /** `lines[i]` is the line number of `entries[i]`, for messages. */
  lines: number[];
  skipped: number;
}

/** How to read an import. */
export interface ParseOptions {
  /** Accept a missing header and a count that does not match (see `ImportOptions.partial`). */
  partial: boolean;
  /** The store's `maxContentChars`. */
  maxContentChars: number;
}

/**
 * Reads lines (or JSONL chunks that may split lines anywhere) from any sync or
 * async iterable and validates every one; the first bad line rejects the
 * whole import with its line number. The first line that is not blank must be
 * the header (unless `partial`), no other line may be one, and the header's
 * count must match the entries read (unless `partial`): an export cut at a
 * line boundary is refused, not imported short.
 */
export async function parseImport(source: Iterable<string> | AsyncIterable<string>, options: ParseOptions): Promise<ParsedImport> {
  const out: ParsedImport = { header: null, entries: [], lines: [], skipped: 0 };
  const seen = new Set<string>();
  const rules: EntryRules = { maxContentChars: options.maxContentChars, dim: null, userId: null, validUsers: new Set() };
  let started = false;
  const take = (line: ImportLine): void => {
    const lineNo = line.number;
    const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
    if (line.value === undefined && text.trim().length === 0) {
      out.skipped++;
      return;
    }
    let value: unknown = line.value;
    if (value === undefined) {
      try {
        value = JSON.parse(text);
      } catch {
        throw invalidArgument(`import: line ${lineNo} is not valid JSON (${JSON.stringify(text.slice(0, 60))}); nothing was imported`);
      }
    }
    const first = !started;
    started = true;
    if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, "moomem_export")) {
      if (!first) {
        throw invalidArgument(
          `import: line ${lineNo} is an export header, but an export has exactly one, on its first line (two exports joined, or an edited file?); nothing was imported`,
        );
      }
      out.header = checkHeader(value as Record<string, unknown>, lineNo, options.partial);
      rules.dim = out.header.embedder.dim;
      rules.userId = out.header.user_id;
      out.skipped++;
      return;
    }
    if (first && !options.partial) {
      throw invalidArgument(
        `import: line ${lineNo} is not an export header; an export starts with one ({"moomem_export":1,…,"count":N}), which tells a complete file from a cut one. Pass { partial: true } (moomem import --partial) to import lines without it; nothing was imported`,
      );
    }
    let entry: EntryRecord;
    try {
      entry = entryFromJson(value);
      checkImportedEntry(entry, rules);
    } catch (error) {
      throw invalidArgument(`import: line ${lineNo} is not a valid memory entry: ${describeError(error)}; nothing was imported`);
    }
    if (seen.has(entry.id)) throw invalidArgument(`import: line ${lineNo} repeats id ${entry.id}; nothing was imported`);
    seen.add(entry.id);
    out.entries.push(entry);
    out.lines.push(lineNo);
  };
  const splitter = new LineSplitter(maxImportLineChars(options.maxContentChars));
  for await (const chunk of source as AsyncIterable<unknown>) {
    if (typeof chunk !== "string") throw invalidArgument(`import: expected strings (lines or JSONL chunks), got ${typeof chunk}; nothing was imported`);
    splitter.push(chunk, take);
  }
  splitter.end(take);
  if (!options.partial) {
    if (out.header === null) {
      throw invalidArgument(
        "import: the input is empty: an export has at least its header line; pass { partial: true } (moomem import --partial) to accept that; nothing was imported",
      );
    }
    if (out.header.count !== out.entries.length) {
      throw invalidArgument(
        `import: the export header announces ${out.header.count} entries but the input holds ${out.entries.length}: the export is incomplete (cut short?) or was edited; pass { partial: true } (moomem import --partial) to import what is there; nothing was imported`,
      );
    }
  }
  return out;
}

function checkHeader(o: Record<string, unknown>, lineNo: number, partial: boolean): ExportHeader {
  const field = (name: string): unknown => (Object.hasOwn(o, name) ? o[name] : undefined);
  if (field("moomem_export") !== EXPORT_FORMAT) {
    throw new MoomemError(
      "INVALID_ARGUMENT",
      `import: line ${lineNo} is an export of format ${JSON.stringify(field("moomem_export"))}; this moomem reads export format ${EXPORT_FORMAT}; nothing was imported`,
    );
  }
  const embedder = field("embedder") as Record<string, unknown> | undefined;
  if (
    typeof embedder !== "object" ||
    embedder === null ||
    Array.isArray(embedder) ||
    typeof embedder["id"] !== "string" ||
    embedder["id"].length === 0 ||
    !Number.isSafeInteger(embedder["dim"]) ||
    (embedder["dim"] as number) < 1
  ) {
    throw invalidArgument(`import: line ${lineNo}: the export header has no valid "embedder" { id, dim }; nothing was imported`);
  }
  // `entry_format`, or `format` in exports written before the field was named.
  const entryFormat = field("entry_format") ?? field("format") ?? EXPORT_ENTRY_FORMAT;
  if (!ENTRY_FORMATS.includes(entryFormat as number)) {
    throw invalidArgument(
      `import: line ${lineNo}: the export header names entry format ${JSON.stringify(entryFormat)}; this moomem reads entry formats ${ENTRY_FORMATS.join(", ")}; nothing was imported`,
    );
  }
  const count = field("count");
  const countOk = Number.isSafeInteger(count) && (count as number) >= 0;
  if (!countOk && !(partial && count === undefined)) {
    throw invalidArgument(
      `import: line ${lineNo}: the export header's "count" must be the number of entry lines, got ${JSON.stringify(count) ?? "none"}; nothing was imported`,
    );
  }
  const userId = field("user_id") ?? null;
  if (userId !== null) {
    try {
      checkUserId(userId);
    } catch (error) {
      throw invalidArgument(`import: line ${lineNo}: the export header's user_id is not a user id: ${describeError(error)}; nothing was imported`);
    }
  }
  const exportedAt = field("exported_at");
  return {
    moomem_export: EXPORT_FORMAT,
    entry_format: entryFormat as number,
    embedder: { id: embedder["id"], dim: embedder["dim"] as number },
    user_id: userId as string | null,
    exported_at: typeof exportedAt === "number" ? exportedAt : 0,
    count: countOk ? (count as number) : 0,
  };
}
