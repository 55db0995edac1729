// Entry records built by hand, for tests that give a state or a backend exactly what a store file could hold.

import type { EntryRecord } from "../../src/types.ts";

/** A fixed time the built records count from (2023-11-14). */
export const T0 = 1_700_000_000_000;

/**
 * An entry record: an active fact with no vector and no metadata, created and updated at `T0 + seq`,
 * with whatever `fields` says instead.
 */
export function entryRecord(fields: Pick<EntryRecord, "id" | "userId" | "seq"> & Partial<EntryRecord>): EntryRecord {
  return {
    content: `fact ${fields.seq}`,
    kind: "fact",
    status: "active",
    createdAt: T0 + fields.seq,
    updatedAt: T0 + fields.seq,
    metadata: {},
    lifecycle: {},
    embedding: null,
    ...fields,
  };
}
