// How entries and recall hits look in human output: one aligned row each.

import type { MemoryEntry, RecallHit } from "../node.ts";
import { type Cell, type Output, formatTime, oneLine } from "./output.ts";

/** Rows of `list` and `history`: id, status, kind, when, content (and what replaced it). */
export function printEntries(out: Output, entries: readonly MemoryEntry[], mark?: string): void {
  const header = ["id", "status", "kind", "created", "content"];
  const rows: Cell[][] = entries.map((e) => {
    const content = e.supersededBy === undefined ? oneLine(e.content) : `${oneLine(e.content)}  → ${e.supersededBy}`;
    const id = mark !== undefined && e.id === mark ? `${e.id} *` : e.id;
    return [
      { text: id, paint: out.style.dim },
      { text: e.status, paint: out.status(e.status) },
      { text: e.key === undefined ? e.kind : `${e.kind}:${e.key}` },
      { text: formatTime(e.createdAt), paint: out.style.dim },
      { text: content },
    ];
  });
  out.table(header, rows);
}

/** Rows of `recall`: rank, fused score, the rank each route gave it, id, content. */
export function printHits(out: Output, hits: readonly RecallHit[]): void {
  const rows: Cell[][] = hits.map((h, i) => [
    { text: String(i + 1) },
    { text: h.score.toFixed(4) },
    { text: `${h.vectorRank === undefined ? "-" : `v${h.vectorRank}`} ${h.keywordRank === undefined ? "-" : `k${h.keywordRank}`}` },
    { text: h.id, paint: out.style.dim },
    { text: oneLine(h.content) },
  ]);
  out.table(["#", "score", "routes", "id", "content"], rows);
}
