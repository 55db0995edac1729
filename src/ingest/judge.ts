// Step 6 of add: ask the conflict judge about every new fact's candidates, validate, fall back offline.

import type { ConflictJudge, JudgeItem, Verdict } from "../types.ts";
import { describeError, isMoomemError } from "../errors.ts";
import type { SimilarityJudge } from "./similarity-judge.ts";
import { checkVerdicts } from "../validation/plugin-checks.ts";

export interface JudgeOutcome {
  verdicts: Verdict[];
  /** Name of the judge whose verdicts these are (`similarity-fallback` when the configured one failed or was skipped). */
  judge: string;
  /** Why the configured judge was not used. */
  fallbackReason?: string;
}

/**
 * Judges all new facts of one add: with `judge.judgeAll` in one call when the
 * judge offers it, else fact by fact. When the judge throws, answers in the
 * wrong shape, or must be skipped (`skip`: the add already spent its model
 * budget), the offline `fallback` decides instead. Verdicts about ids that are
 * not candidates are dropped; a candidate with no verdict is ignored.
 */
export async function judgeFacts(judge: ConflictJudge, fallback: SimilarityJudge, items: JudgeItem[], skip: string | null): Promise<JudgeOutcome[]> {
  const name = judge.name ?? "custom";
  if (items.every((item) => item.candidates.length === 0)) return items.map(() => ({ verdicts: [], judge: name }));
  if (skip === null || judge === fallback) {
    try {
      const answers = await askJudge(judge, items, judge === fallback);
      return items.map((item, i) => ({ verdicts: checkVerdicts(answers[i], new Set(item.candidates.map((c) => c.id))), judge: name }));
    } catch (error) {
      // A refused configuration fails every later call too: the add stops (its write is rolled back).
      if (isMoomemError(error, "PROVIDER_CONFIG")) throw error;
      skip = `judge failed: ${describeError(error)}`;
    }
  }
  const reason = skip;
  return Promise.all(
    items.map(async (item) => ({
      verdicts: item.candidates.length === 0 ? [] : await fallback.judge(item.fact, item.candidates),
      judge: "similarity-fallback",
      fallbackReason: reason,
    })),
  );
}

async function askJudge(judge: ConflictJudge, items: JudgeItem[], builtIn: boolean): Promise<unknown[]> {
  // A host's judge gets copies: nothing it does can change the store's records. The built-in one only reads.
  const copies = builtIn ? items : items.map((item) => ({ fact: copyEntryLike(item.fact), candidates: item.candidates.map(copyEntryLike) }));
  if (typeof judge.judgeAll === "function") {
    const answers: unknown = await judge.judgeAll(copies);
    if (!Array.isArray(answers) || answers.length !== items.length) {
      throw new Error(`judgeAll returned ${Array.isArray(answers) ? answers.length : typeof answers} answers for ${items.length} facts`);
    }
    return answers;
  }
  const answers: unknown[] = [];
  for (const copy of copies) answers.push(copy.candidates.length === 0 ? [] : await judge.judge(copy.fact, copy.candidates));
  return answers;
}

function copyEntryLike<T extends { embedding?: Float32Array; metadata?: unknown }>(value: T): T {
  const copy = { ...value };
  if (value.embedding !== undefined) copy.embedding = value.embedding.slice();
  if (value.metadata !== undefined) copy.metadata = structuredClone(value.metadata);
  return copy;
}
