// The add pipeline, top to bottom: extract → normalise → embed before the write queue, then
// dedup → candidates → judge → apply inside it, against one user's entries. `add` and `reextract` run it.

import type {
  AddSummary,
  ChatMessage,
  Clock,
  ConflictJudge,
  Embedder,
  EntryLifecycle,
  EntryRecord,
  Extractor,
  FactOutcome,
  JudgeItem,
  Metadata,
  Verdict,
} from "../types.ts";
import { MoomemError } from "../errors.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { normalize } from "../embedding/vector-math.ts";
import { normalizeForDedup, tokenize } from "../text/tokenizer.ts";
import { readClock } from "../validation/plugin-checks.ts";
import { isLive, type Change } from "../state/entry-state.ts";
import { MAX_CONFLICT_IDS } from "../state/lifecycle.ts";
import type { UserEntries } from "../state/user-entries.ts";
import { makeEntryId, type SeqCounter } from "../state/ids.ts";
import { extractFacts, type ExtractionGuard, type ExtractionResult, type PreparedFact } from "./extract.ts";
import { judgeFacts } from "./judge.ts";
import type { JudgeCandidate, SimilarityJudge } from "./similarity-judge.ts";

/** What the pipeline runs with: the store's plug-ins and the settings that shape an add. */
export interface AddPipeline {
  readonly extractor: Extractor;
  /** The extractor keeps text as it is (`Extractor.verbatim`): there is nothing to re-extract with. */
  readonly verbatim: boolean;
  readonly embedder: Embedder;
  /** The vector length the store checked at open. */
  readonly dim: number;
  readonly judge: ConflictJudge;
  /** The offline judge that decides when the configured one fails or must be skipped. */
  readonly fallbackJudge: SimilarityJudge;
  readonly clock: Clock;
  /** Longer facts keep their first this many characters (open option `maxContentChars`). */
  readonly maxContentChars: number;
  /** Conflict candidates also by vector (not for the built-in judge on lexical vectors: BM25 already finds its near matches). */
  readonly judgeByVector: boolean;
  /** Counts failed extractions in a row (`add` refuses the third). */
  readonly guard: ExtractionGuard;
  /** Numbers the new entries. */
  readonly seqs: SeqCounter;
}

/** Candidates per route (vector, keywords, same key) a judge sees for one fact. */
const JUDGE_CANDIDATES_PER_ROUTE = 8;
/** Judging skips the configured judge when extraction already used its retry (2 model calls per add at most). */
const BUDGET_SPENT = "extraction used its retry; the add's budget of two model calls is spent";

// ---- Steps 1-3, before the write queue: they read no store state and may take seconds (a model call),
// ---- so concurrent adds overlap them.

/** One input, extracted, normalised and embedded: ready for the write queue. */
export interface PreparedInput {
  /** Facts cut to `maxContentChars`; when extraction failed, one unstructured fact holding the input. */
  facts: PreparedFact[];
  /** One vector per fact, or null when embedding failed (the facts are stored without one). */
  vectors: Float32Array[] | null;
  /** Why extraction failed (the facts are then the degraded input). */
  extractionFailed: string | undefined;
  /** Why embedding failed. */
  embeddingFailed: string | undefined;
  /** Extraction needed its retry, so judging must not spend another model call. */
  usedRetry: boolean;
}

/**
 * Steps 1-3 of `add`: extract the facts (a failure degrades to the raw input), normalise them (cut to
 * `maxContentChars`), embed them in one call. The third failed extraction in a row throws
 * `EXTRACTION_FAILURE` instead: nothing is stored.
 */
export async function prepareAdd(p: AddPipeline, userId: string, input: string | readonly ChatMessage[]): Promise<PreparedInput> {
  const extraction = await extractFacts(p.extractor, userId, input, p.maxContentChars);
  if (p.guard.record(extraction.degradedReason !== undefined)) {
    throw new MoomemError(
      "EXTRACTION_FAILURE",
      `the extractor (${p.extractor.mode}) failed ${p.guard.failures} adds in a row (last: ${extraction.degradedReason}); this text was NOT stored — check the model service, then add it again`,
    );
  }
  return (await embedExtractions(p, [extraction]))[0]!;
}

/**
 * Steps 1-3 of `addMany`: each input extracted in order, exactly as `add` would (the failure guard
 * counts each one, and its third failure in a row throws `EXTRACTION_FAILURE`: nothing of the call is
 * stored), then the facts of every input embedded in ONE embedder call. A null input (a transcript
 * with nothing from the user) is not extracted and stays null.
 */
export async function prepareAddMany(
  p: AddPipeline,
  userId: string,
  inputs: ReadonlyArray<string | readonly ChatMessage[] | null>,
): Promise<Array<PreparedInput | null>> {
  const extractions: Array<ExtractionResult | null> = [];
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    if (input === null) {
      extractions.push(null);
      continue;
    }
    const extraction = await extractFacts(p.extractor, userId, input, p.maxContentChars);
    if (p.guard.record(extraction.degradedReason !== undefined)) {
      throw new MoomemError(
        "EXTRACTION_FAILURE",
        `the extractor (${p.extractor.mode}) failed ${p.guard.failures} inputs in a row, the last one inputs[${i}] (${extraction.degradedReason}); nothing of this addMany was stored — check the model service, then add them again`,
      );
    }
    extractions.push(extraction);
  }
  return embedExtractions(p, extractions);
}

/**
 * Step 3 for one or many inputs: the facts of every extraction embedded in ONE embedder call, then
 * handed back per input. A null extraction (an input not extracted) stays null.
 */
async function embedExtractions(p: AddPipeline, extractions: ReadonlyArray<ExtractionResult | null>): Promise<Array<PreparedInput | null>> {
  const embedded = await embedTexts(
    p.embedder,
    extractions.flatMap((e) => e?.facts.map((f) => f.content) ?? []),
    p.dim,
  );
  let at = 0;
  return extractions.map((extraction) => {
    if (extraction === null) return null;
    const n = extraction.facts.length;
    const vectors = embedded.vectors === null ? null : embedded.vectors.slice(at, at + n);
    at += n;
    return {
      facts: extraction.facts,
      vectors,
      extractionFailed: extraction.degradedReason,
      // An input without facts embedded nothing: like its own add, it is not degraded by the others' call.
      embeddingFailed: n > 0 ? embedded.degradedReason : undefined,
      usedRetry: extraction.usedRetry,
    };
  });
}

/** Steps 1-3 of `reextract` for one stored text: null when extraction failed again (the entry stays as it is). */
export async function prepareReextract(p: AddPipeline, userId: string, text: string): Promise<PreparedInput | null> {
  const extraction = await extractFacts(p.extractor, userId, text, p.maxContentChars);
  if (extraction.degradedReason !== undefined) return null;
  return (await embedExtractions(p, [extraction]))[0]!;
}

// ---- Steps 4-7, inside the write queue: they must see every earlier write of the user.

/** What the entries an input creates carry over from the call. */
export interface IngestContext {
  /** The caller's metadata, kept on every new entry as it is. */
  metadata: Metadata;
  /** Lifecycle fields every new entry starts with (`reextractedFrom`). */
  lifecycle?: EntryLifecycle;
  /** When the facts were observed (ms since epoch). */
  createdAt: number;
  /** The clock's time of this write. */
  now: number;
}

/** Steps 4-7 of `add`, in the write queue: the facts ingested through `change`, and the add's summary. */
export async function commitAdd(
  change: Change,
  user: UserEntries,
  prepared: PreparedInput,
  p: AddPipeline,
  call: { metadata: Metadata; observedAt: number | undefined },
): Promise<AddSummary> {
  const summary: AddSummary = { extracted: prepared.facts.length, inserted: 0, duplicates: 0, superseded: 0, conflicts: 0, degraded: false, facts: [] };
  if (prepared.extractionFailed !== undefined || prepared.embeddingFailed !== undefined) summary.degraded = true;
  const now = readClock(p.clock);
  summary.facts = await ingestFacts(change, user, prepared, p, { metadata: call.metadata, createdAt: call.observedAt ?? now, now });
  for (const outcome of summary.facts) {
    if (outcome.action === "duplicate") summary.duplicates++;
    else summary.inserted++;
    summary.superseded += outcome.replaced?.length ?? 0;
    summary.conflicts += outcome.conflicts?.length ?? 0;
  }
  return summary;
}

/**
 * Steps 4-7 for all facts of one input: dedup (against the user's live entries and the earlier facts
 * of this input), candidates, one judge round for all new facts, then supersede/coexist and insert
 * through `change`. Returns what happened to each fact, in order.
 */
export async function ingestFacts(change: Change, user: UserEntries, prepared: PreparedInput, p: AddPipeline, ctx: IngestContext): Promise<FactOutcome[]> {
  const { outcomes, fresh } = planFacts(user, prepared, p, ctx);
  const judged = await judgeFacts(
    p.judge,
    p.fallbackJudge,
    fresh.map(({ record, candidates }) => ({ fact: judgeInput(record), candidates })),
    prepared.usedRetry ? BUDGET_SPENT : null,
  );
  fresh.forEach(({ outcome, record, candidates }, j) => {
    const { verdicts, judge, fallbackReason } = judged[j]!;
    applyVerdicts(change, user, record, verdicts, ctx.now, outcome);
    if (candidates.length > 0) record.lifecycle.judge = judge;
    if (fallbackReason !== undefined && candidates.length > 0) record.lifecycle.judgeFallback = fallbackReason;
    change.insert(record);
  });
  return outcomes;
}

/** A new fact on its way in: its entry, what the add reports about it, and the entries a judge compares it with. */
interface FreshFact {
  outcome: FactOutcome;
  record: EntryRecord;
  candidates: JudgeCandidate[];
}

/** Steps 4-5: dedup each fact, number the new ones and find their candidates. Reads the user's entries; changes nothing. */
function planFacts(user: UserEntries, prepared: PreparedInput, p: AddPipeline, ctx: IngestContext): { outcomes: FactOutcome[]; fresh: FreshFact[] } {
  const shard = user.shard();
  const degraded = prepared.extractionFailed !== undefined;
  const outcomes: FactOutcome[] = [];
  const fresh: FreshFact[] = [];
  const seenHere = new Map<string, string>();
  for (let i = 0; i < prepared.facts.length; i++) {
    const fact = prepared.facts[i]!;
    const outcome: FactOutcome = { content: fact.content, kind: fact.kind, action: "inserted", id: "" };
    if (fact.key !== undefined) outcome.key = fact.key;
    if (fact.truncated !== undefined) outcome.truncated = { ...fact.truncated };
    outcomes.push(outcome);
    // Step 4: dedup.
    const norm = normalizeForDedup(fact.content);
    const existing = shard?.dedup.get(norm)?.[0] ?? seenHere.get(norm);
    if (existing !== undefined) {
      outcome.action = "duplicate";
      outcome.id = existing;
      continue;
    }
    const seq = p.seqs.next();
    outcome.id = makeEntryId(seq);
    seenHere.set(norm, outcome.id);
    const vector = prepared.vectors?.[i] ?? null;
    const lifecycle: EntryLifecycle = { ...ctx.lifecycle, ...fact.lifecycle, extractor: p.extractor.mode };
    if (fact.sourceSpan !== undefined) lifecycle.sourceSpan = fact.sourceSpan;
    if (prepared.embeddingFailed !== undefined) lifecycle.embeddingDegraded = prepared.embeddingFailed;
    const record: EntryRecord = {
      id: outcome.id,
      userId: user.userId,
      content: fact.content,
      kind: fact.kind,
      status: degraded ? "unstructured" : "active",
      createdAt: ctx.createdAt,
      updatedAt: ctx.now,
      seq,
      metadata: { ...ctx.metadata },
      lifecycle,
      embedding: vector,
    };
    if (fact.key !== undefined) record.key = fact.key;
    // Step 5: candidates. A degraded entry is the raw input, not a fact: it never replaces anything.
    fresh.push({ outcome, record, candidates: degraded ? [] : findCandidates(user, fact.content, fact.key, vector, p.judgeByVector) });
  }
  return { outcomes, fresh };
}

/** The user's nearest live entries by vector and by keywords (8 each), plus the live entries with the same key. */
function findCandidates(user: UserEntries, content: string, key: string | undefined, vector: Float32Array | null, byVector: boolean): JudgeCandidate[] {
  const shard = user.shard();
  if (shard === undefined) return [];
  const seqs = new Set<number>();
  // The vector scan is O(entries) per add; with hashing vectors (the same words BM25 sees) it finds nothing BM25's top 8 misses.
  if (vector !== null && byVector) {
    for (const hit of shard.vectors.search(normalize(Float32Array.from(vector)), JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(hit.doc);
  }
  for (const hit of shard.keywords.search(tokenize(content), JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(hit.doc);
  // The slot's current values, however differently they are worded ("I live in Beijing" / "moved to Shenzhen").
  if (key !== undefined) for (const seq of (shard.keys.get(key) ?? []).slice(-JUDGE_CANDIDATES_PER_ROUTE)) seqs.add(seq);
  const out: JudgeCandidate[] = [];
  for (const seq of seqs) {
    const record = user.bySeq(seq);
    if (record === undefined || !isLive(record.status)) continue;
    // No copy here: records are immutable, and judgeFacts copies what it hands to a host's judge.
    if (record.embedding !== null) {
      out.push(record as JudgeCandidate);
      continue;
    }
    const { embedding: _none, ...entry } = record;
    out.push(entry);
  }
  return out;
}

/** The new fact as a judge sees it. */
function judgeInput(record: EntryRecord): JudgeItem["fact"] {
  const fact: JudgeItem["fact"] = { content: record.content, kind: record.kind };
  if (record.key !== undefined) fact.key = record.key;
  if (record.embedding !== null) fact.embedding = record.embedding;
  return fact;
}

/** Step 7: supersedes or flags the entries the judge named; records what happened on `record` and `outcome`. */
function applyVerdicts(change: Change, user: UserEntries, record: EntryRecord, verdicts: Verdict[], now: number, outcome: FactOutcome): void {
  const reasons: string[] = [];
  const replaced: string[] = [];
  const conflicts: string[] = [];
  for (const verdict of verdicts) {
    const old = user.get(verdict.id);
    if (old === undefined || !isLive(old.status)) continue;
    if (verdict.decision === "replace") {
      if (old.createdAt > record.createdAt) {
        // The new fact was observed before the one it contradicts: it arrives already replaced.
        record.status = "superseded";
        record.supersededBy = old.id;
        record.lifecycle.conflictReason = verdict.reason ?? "replaced by a later fact";
        continue;
      }
      change.put({ ...old, status: "superseded", supersededBy: record.id, updatedAt: now });
      replaced.push(old.id);
      reasons.push(verdict.reason ?? "replaces an older fact");
    } else if (verdict.decision === "coexist") {
      const theirs = [...(old.lifecycle.conflict ?? []), record.id];
      if (theirs.length > MAX_CONFLICT_IDS) theirs.splice(0, theirs.length - MAX_CONFLICT_IDS);
      change.put({ ...old, lifecycle: { ...old.lifecycle, conflict: theirs }, updatedAt: now });
      conflicts.push(old.id);
    }
  }
  if (reasons.length > 0) record.lifecycle.conflictReason = reasons.join("; ");
  if (conflicts.length > 0) record.lifecycle.conflict = conflicts;
  if (replaced.length > 0) outcome.replaced = replaced;
  if (conflicts.length > 0) outcome.conflicts = conflicts;
}
