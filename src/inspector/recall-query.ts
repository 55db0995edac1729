// The recall playground's request: the query and the same options `MemoryStore.recall` takes.

import type { RecallMode } from "../types.ts";
import { ENTRY_KINDS } from "../types.ts";
import type { RecallOptions } from "../index.ts";
import { invalidArgument } from "../errors.ts";
import { QueryParams } from "./query-params.ts";

/** Longest query the playground accepts: far more than anyone types, far less than a request may carry. */
export const MAX_QUERY_CHARS = 2000;

export interface RecallQuery {
  query: string;
  mode: RecallMode;
  topK: number;
  options: RecallOptions;
}

const PARAMS = ["q", "mode", "topK", "since", "until", "kind", "metadata"] as const;

/** Reads `GET api/users/<user>/recall?q=…`; throws `INVALID_ARGUMENT` naming the bad parameter. */
export function parseRecallQuery(search: URLSearchParams): RecallQuery {
  const p = new QueryParams(search, PARAMS, "recall");
  const query = p.text("q", MAX_QUERY_CHARS);
  if (query === undefined || query.trim() === "") throw invalidArgument('recall: "q" (the query text) is required');
  const mode = p.choice<RecallMode>("mode", ["hybrid", "vector", "keyword"], "hybrid");
  const topK = p.integer("topK", 1, 100, 10);
  const options: RecallOptions = { mode, topK };
  const since = p.time("since");
  if (since !== undefined) options.since = since;
  const until = p.time("until");
  if (until !== undefined) options.until = until;
  const kind = p.choice("kind", ENTRY_KINDS);
  if (kind !== undefined) options.kind = kind;
  const metadata = p.jsonObject("metadata");
  if (metadata !== undefined) options.metadata = metadata;
  return { query, mode, topK, options };
}
