// Copies of internal records in the shapes the public API returns (never the store's own objects).

import type { EntryRecord, MemoryEntry, RecallHit } from "../types.ts";

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
  };
  if (record.key !== undefined) out.key = record.key;
  if (record.supersededBy !== undefined) out.supersededBy = record.supersededBy;
  return out;
}

export function toRecallHit(record: EntryRecord, score: number, vectorRank: number | undefined, keywordRank: number | undefined, degraded: boolean): RecallHit {
  const hit: RecallHit = {
    id: record.id,
    userId: record.userId,
    content: record.content,
    kind: record.kind,
    status: record.status,
    createdAt: record.createdAt,
    metadata: structuredClone(record.metadata),
    score,
  };
  if (record.key !== undefined) hit.key = record.key;
  if (vectorRank !== undefined) hit.vectorRank = vectorRank;
  if (keywordRank !== undefined) hit.keywordRank = keywordRank;
  if (degraded) hit.degraded = true;
  return hit;
}
