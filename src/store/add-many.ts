// `addMany`: many inputs of one user through the add pipeline, with one embedder call and one durable write.

import type { AddSummary, ChatMessage, Metadata } from "../types.ts";
import { nothingFromUser } from "../text/transcript.ts";
import type { Change } from "../state/entry-state.ts";
import type { UserEntries } from "../state/user-entries.ts";
import { commitAdd, prepareAddMany, type AddPipeline, type PreparedInput } from "../ingest/add-pipeline.ts";

/** What a call of `addMany` passes along besides its inputs. */
export interface AddManyCall {
  metadata: Metadata;
  observedAt: number | undefined;
  /** Runs the write for the user (loaded and pinned, in the write queue): `commit` gets the write's change and the user's entries. */
  write: (commit: (change: Change, user: UserEntries) => Promise<AddSummary[]>) => Promise<AddSummary[]>;
}

/**
 * Runs `add`'s pipeline for every input, in order: extraction per input and one embedder call for all
 * their facts (before the write queue), then, in ONE write, each input deduplicated, judged and applied
 * on top of the inputs before it, exactly as if `add` had been called for each in turn. The write is
 * one operation: durable as a whole or not at all (the write queue chains its journal batches).
 * Resolves to one summary per input, in order.
 */
export async function addMany(p: AddPipeline, userId: string, inputs: ReadonlyArray<string | ChatMessage[]>, call: AddManyCall): Promise<AddSummary[]> {
  // A transcript with nothing from the user is answered as add answers it, without asking the extractor.
  const silent = inputs.map((input) => (typeof input === "string" ? null : nothingFromUser(input)));
  const prepared = await prepareAddMany(
    p,
    userId,
    inputs.map((input, i) => (silent[i] === null ? input : null)),
  );
  const answerSilent = (i: number): AddSummary => ({
    extracted: 0,
    inserted: 0,
    duplicates: 0,
    superseded: 0,
    conflicts: 0,
    degraded: false,
    facts: [],
    nothingExtracted: silent[i]!,
  });
  if (prepared.every((x) => x === null)) return prepared.map((_, i) => answerSilent(i));
  return call.write(async (change, user) => {
    const summaries: AddSummary[] = [];
    for (let i = 0; i < prepared.length; i++) {
      const input: PreparedInput | null = prepared[i]!;
      summaries.push(input === null ? answerSilent(i) : await commitAdd(change, user, input, p, call));
    }
    return summaries;
  });
}
