// A user's entries read as a format-6 section reads them, or with their own vectors, for tests that compare the two.

import type { EntryRecord } from "../../src/types.ts";
import { entryFromJson, entryJsonText } from "../../src/persistence/record-codec.ts";
import { SectionBlocks, encodeBlocksLine } from "../../src/persistence/file/section-blocks.ts";

/** The entries (all of user "ann") read as sectioned-snapshot.ts reads a section: block line, then each entry line with the block. */
export function decodeWithBlock(records: readonly EntryRecord[]): EntryRecord[] {
  const blocks = new SectionBlocks(encodeBlocksLine("ann", records).slice(0, -1), "ann", records.length);
  const out = records.map((e) => {
    const read = entryFromJson(JSON.parse(entryJsonText(e, true, false, true)), blocks);
    blocks.take(read);
    return read;
  });
  blocks.finish();
  return out;
}

/** The same entry lines decoded with their own vectors (no block to leave them in). */
export function decodePlain(records: readonly EntryRecord[]): EntryRecord[] {
  return records.map((e) => entryFromJson(JSON.parse(entryJsonText(e, true))));
}
