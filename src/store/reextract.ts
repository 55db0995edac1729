// `reextract`: entries stored unstructured (extraction failed) run through the add pipeline again.

import type { EntryLifecycle, EntryRecord, FactOutcome } from "../types.ts";
import { readClock } from "../validation/plugin-checks.ts";
import type { Change, EntryState } from "../state/entry-state.ts";
import type { UserEntries } from "../state/user-entries.ts";
import { ingestFacts, prepareReextract, type AddPipeline, type PreparedInput } from "../ingest/add-pipeline.ts";
import type { WriteQueue } from "./write-queue.ts";
import type { ReextractSummary } from "./options.ts";

/**
 * Extracts each target again, one write per target: its facts are deduplicated and judged as in a fresh
 * add, and the target is superseded by them (or deleted when the extractor finds no fact). A target
 * whose extraction fails again, or that changed meanwhile, stays as it is.
 */
export async function reextractEntries(targets: readonly EntryRecord[], p: AddPipeline, queue: WriteQueue, state: EntryState): Promise<ReextractSummary> {
  const summary: ReextractSummary = { processed: 0, converted: 0, failed: 0, facts: [] };
  for (const target of targets) {
    summary.processed++;
    const prepared = await prepareReextract(p, target.userId, target.content);
    if (prepared === null) {
      summary.failed++;
      continue;
    }
    const outcomes = await queue.write((change) => convert(change, state.user(target.userId), target.id, prepared, p), target.userId);
    if (outcomes === null) continue;
    summary.converted++;
    summary.facts.push(...outcomes);
  }
  return summary;
}

/** In the write queue: the entry replaced by the facts extracted from it; null when it is no longer unstructured. */
async function convert(change: Change, user: UserEntries, id: string, prepared: PreparedInput, p: AddPipeline): Promise<FactOutcome[] | null> {
  const current = user.get(id);
  if (current === undefined || current.status !== "unstructured") return null;
  const now = readClock(p.clock);
  // Out of the live set first: its own text must not count as a duplicate of itself (an extractor
  // echoing it would make the entry supersede itself and vanish), nor be a candidate to replace.
  change.put({ ...current, status: "deleted" });
  // The facts keep the caller's metadata; their lifecycle is their own (extractor, judge, …) plus where they came from.
  const facts = await ingestFacts(change, user, prepared, p, {
    metadata: current.metadata,
    lifecycle: { reextractedFrom: current.id },
    createdAt: current.createdAt,
    now,
  });
  const into = facts.map((f) => f.id);
  const lifecycle: EntryLifecycle = { ...current.lifecycle, reextractedAt: now, reextractedInto: into };
  const next: EntryRecord =
    into.length > 0
      ? { ...current, status: "superseded", supersededBy: into[0]!, updatedAt: now, lifecycle }
      : { ...current, status: "deleted", updatedAt: now, lifecycle: { ...lifecycle, deletedFrom: "unstructured", deletedAt: now } };
  change.put(next);
  return facts;
}
