// Copies of internal records in the shapes the public API returns (never the store's own objects).

import type { EntryRecord, MemoryEntry, RecallHit } from "../types.ts";
import { copyLifecycle } from "../persistence/lifecycle-codec.ts";

export function toPublicEntry(record: EntryRecord): MemoryEntry {
  const out: MemoryEntry = {
    id: record.id,
    userId: record.userId,
    content: record.content,
    kind: record.kind,
    status: record.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    seq: record.seq,
    metadata: structuredClone(record.metadata),
    lifecycle: copyLifecycle(record.lifecycle),
  };
  if (record.key !== undefined) out.key = record.key;
  if (record.supersededBy !== undefined) out.supersededBy = record.supersededBy;
  return out;
}

export function toRecallHit(record: EntryRecord, score: number, vectorRank: number | undefined, keywordRank: number | undefined, degraded: boolean): RecallHit {
  // A hit shows the entry's public fields except its bookkeeping (seq, updatedAt; supersededBy never applies to a live entry).
  const { seq: _seq, updatedAt: _updated, supersededBy: _by, ...entry } = toPublicEntry(record);
  const hit: RecallHit = { ...entry, score };
  if (vectorRank !== undefined) hit.vectorRank = vectorRank;
  if (keywordRank !== undefined) hit.keywordRank = keywordRank;
  if (degraded) hit.degraded = true;
  return hit;
}
