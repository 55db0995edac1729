// `import`: lines read and checked, vectors recomputed where needed, then the new entries inserted in one write.

import type { Embedder, ImportSummary } from "../types.ts";
import type { EmbedderIdentity } from "../persistence/backend.ts";
import { invalidArgument } from "../errors.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { asArgumentError, checkKnownKeys, checkOptions, describe } from "../validation/arguments.ts";
import type { Change } from "../state/entry-state.ts";
import type { SeqCounter } from "../state/ids.ts";
import { isPurged } from "../state/lifecycle.ts";
import { parseImport, type ParsedImport } from "./jsonl-transfer.ts";
import { planImport, type StoredLookup } from "./import-check.ts";

/** Vectors recomputed per embedder call during an import. */
const EMBED_BATCH = 256;

/** Reads `import`'s options: `{ partial }`. */
export function readImportOptions(options: unknown): { partial: boolean } {
  const o = checkOptions(options, "import options");
  checkKnownKeys(o, ["partial"], "import");
  const partial = o["partial"] ?? false;
  if (typeof partial !== "boolean") throw invalidArgument(`import: partial must be true or false, got ${describe(partial)}`);
  return { partial };
}

/** Every line read and checked (see `parseImport`); a throw while reading the caller's iterable becomes `INVALID_ARGUMENT`. */
export function readImport(source: Iterable<string> | AsyncIterable<string>, partial: boolean, maxContentChars: number): Promise<ParsedImport> {
  return parseImport(source, { partial, maxContentChars }).catch((error: unknown) => Promise.reject(asArgumentError(error, "import: reading the lines")));
}

/**
 * Recomputes, in place, the vectors the store cannot use: all of them when the export names another
 * embedder, and any missing or of another length (purged tombstones have none to make). The import is
 * checked against the store first, so a refused import costs no embedding call. An embedder failure
 * leaves those entries without a vector, with the reason in their lifecycle (found by keywords).
 */
export async function embedImported(
  parsed: ParsedImport,
  stored: () => Promise<StoredLookup>,
  partial: boolean,
  embedder: Embedder,
  identity: EmbedderIdentity,
): Promise<void> {
  const sameSpace = parsed.header === null ? null : parsed.header.embedder.id === identity.id && parsed.header.embedder.dim === identity.dim;
  const reembed = parsed.entries.filter((e) => !isPurged(e) && (sameSpace === false || e.embedding === null || e.embedding.length !== identity.dim));
  // Checked against the store before any vector is computed, and again when applied.
  if (reembed.length > 0) planImport(parsed, await stored(), partial);
  for (let i = 0; i < reembed.length; i += EMBED_BATCH) {
    const slice = reembed.slice(i, i + EMBED_BATCH);
    const embedded = await embedTexts(
      embedder,
      slice.map((e) => e.content),
      identity.dim,
    );
    slice.forEach((e, j) => {
      e.embedding = embedded.vectors?.[j] ?? null;
      if (embedded.vectors === null) e.lifecycle = { ...e.lifecycle, embeddingDegraded: embedded.degradedReason ?? "embedding failed" };
    });
  }
}

/**
 * In the write queue: checks the import against the store again and inserts the entries new to it,
 * numbered by `seqs`. `inMemory(userId)` false: the entry goes to a user not loaded, without loading
 * it (`Change.insertCold`: an import under `maxLoadedUsers`).
 */
export function applyImport(
  change: Change,
  parsed: ParsedImport,
  stored: StoredLookup,
  partial: boolean,
  seqs: SeqCounter,
  inMemory: (userId: string) => boolean = () => true,
): ImportSummary {
  const plan = planImport(parsed, stored, partial);
  // The parsed entries are this call's own objects: numbered in place rather than copied.
  for (const entry of plan.fresh) {
    entry.seq = seqs.next();
    if (inMemory(entry.userId)) change.insert(entry);
    else change.insertCold(entry);
  }
  // New ids must never reach the seq an imported id names (see state/ids.ts).
  seqs.passIds(plan.fresh);
  return { entries: plan.fresh.length, users: plan.users, skipped: parsed.skipped + plan.existing };
}
