// Vercel AI SDK tool definitions (`remember`, `recall`) bound to one store and one user.

import { jsonSchema, type Tool } from "ai";
import { invalidArgument } from "../errors.ts";
import type { AddOptions, RecallOptions } from "../index.ts";
import type { AddInput, AddSummary, EntryKind, Metadata, RecallHit } from "../types.ts";
import { recallResult, rememberResult, type RecallResult, type RememberResult } from "./tool-results.ts";
import { checkIntegerIn, checkKind, checkKnownKeys, checkMetadata, checkOptions, checkUserId, describe } from "../validation/arguments.ts";

/** The part of a `MemoryStore` the tools use (any object with these two methods works). */
export interface MemoryToolsStore {
  add(userId: string, input: AddInput, options?: AddOptions): Promise<AddSummary>;
  recall(userId: string, query: string, options?: RecallOptions): Promise<RecallHit[]>;
}

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** The user whose memory the tools read and write. The model cannot choose another one. */
  userId: string;
  /** JSON object stored on every entry `remember` creates (e.g. `{ agent: "travel" }`). */
  metadata?: Metadata;
  /** Hits `recall` returns when the model does not ask for a number (default 5; the model may ask for 1..20). */
  topK?: number;
  /** Restricts `recall` to entries of this kind. */
  kind?: EntryKind;
  /** The time "2 days ago" is measured from (default: `Date.now()` at each call). */
  now?: () => number;
}

/** Input of the `remember` tool. */
export interface RememberInput {
  /** What to remember about the user, in the user's or the agent's words. */
  content: string;
}

/**
 * Output of the `remember` tool: what the store did with it (`stored`, `duplicates`, `replaced`, `degraded`,
 * `facts`). The same shape as the MCP server's `remember` answer.
 */
export type RememberOutput = RememberResult;

/** Input of the `recall` tool. */
export interface RecallInput {
  /** What to look for, e.g. "food allergies" or the user's question. */
  query: string;
  /** How many memories at most (1..20). */
  topK?: number;
}

export type { RecalledMemory } from "./tool-results.ts";

/**
 * Output of the `recall` tool, most relevant first: `{ memories: [{ id, content, kind, key?, observedAt, when, score }] }`.
 * The same shape as the MCP server's `recall` answer.
 */
export type RecallOutput = RecallResult;

/**
 * The tools {@link memoryTools} returns; pass them (or spread them with your own) as `generateText({ tools })`.
 * A type alias, not an interface, so it is assignable to the SDK's `ToolSet` (a string-keyed record).
 */
export type MemoryTools = {
  remember: Tool<RememberInput, RememberOutput>;
  recall: Tool<RecallInput, RecallOutput>;
};

const MAX_MODEL_TOP_K = 20;

/**
 * Two AI SDK tools over one moomem store, bound to one user: `remember` stores what the model decided is
 * worth keeping (through the store's extractor, dedup and supersede), `recall` finds the user's relevant
 * memories with their dates. Input schemas are plain JSON Schema (`jsonSchema` from `ai`), so zod is not
 * needed; invalid model input is reported back to the model by the SDK.
 *
 * The user id is fixed here, by the host: whatever the model writes, it reads and writes only this user's
 * memories. Store errors (e.g. `INVALID_ARGUMENT` for empty text) reject the tool call, which the SDK turns
 * into a tool error the model sees.
 *
 * Works with `ai` 5, 6 and 7 (an optional peer dependency: install `ai` to use `moomem/ai-sdk`).
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { MemoryStore } from "moomem";
 * import { memoryTools } from "moomem/ai-sdk";
 *
 * const mem = await MemoryStore.open("./memory");
 * const { text } = await generateText({
 *   model,
 *   tools: memoryTools(mem, { userId: "user-42" }),
 *   stopWhen: stepCountIs(5),
 *   system: "Remember lasting facts about the user; recall them before you answer.",
 *   prompt: "I'm allergic to peanuts. What could I cook tonight?",
 * });
 * ```
 */
export function memoryTools(store: MemoryToolsStore, options: MemoryToolsOptions): MemoryTools {
  if (typeof store !== "object" || store === null || typeof store.add !== "function" || typeof store.recall !== "function") {
    throw invalidArgument(`memoryTools: store must be a MemoryStore (an object with add and recall), got ${describe(store)}`);
  }
  const o = checkOptions(options, "memoryTools options");
  checkKnownKeys(o, ["userId", "metadata", "topK", "kind", "now"], "memoryTools");
  if (o["userId"] === undefined)
    throw invalidArgument('memoryTools: options.userId is required: the tools read and write one user\'s memories, e.g. { userId: "user-42" }');
  const userId = checkUserId(o["userId"]);
  const metadata = o["metadata"] === undefined ? undefined : checkMetadata(o["metadata"], "memoryTools: metadata");
  const defaultTopK = o["topK"] === undefined ? 5 : checkIntegerIn(o["topK"], "memoryTools: topK", 1, MAX_MODEL_TOP_K);
  const kind = o["kind"] === undefined ? undefined : checkKind(o["kind"], "memoryTools: kind");
  const now = (o["now"] ?? Date.now) as () => number;
  if (typeof now !== "function") throw invalidArgument(`memoryTools: now must be a function returning ms since epoch, got ${describe(now)}`);

  const remember: Tool<RememberInput, RememberOutput> = {
    description:
      "Save a lasting fact about the user (who they are, what they like, what happened to them) so it can be recalled in later conversations. " +
      'Use one short sentence per fact, e.g. "User is allergic to peanuts". Do not save small talk or passing moods.',
    inputSchema: jsonSchema<RememberInput>(
      {
        type: "object",
        properties: { content: { type: "string", minLength: 1, description: "The fact to remember, in one sentence." } },
        required: ["content"],
        additionalProperties: false,
      },
      { validate: validateRemember },
    ),
    execute: async ({ content }) => rememberResult(await store.add(userId, content, metadata === undefined ? undefined : { metadata })),
  };

  const recall: Tool<RecallInput, RecallOutput> = {
    description:
      "Look up what you remember about the user. Call it before answering anything where their facts, preferences or history matter, " +
      'with a query naming what the answer depends on (e.g. "food allergies and diet" before suggesting a recipe). ' +
      "Returns the most relevant memories first, each with when it was learned.",
    inputSchema: jsonSchema<RecallInput>(
      {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: 'What to look for, e.g. "food allergies" or the user\'s question.' },
          topK: { type: "integer", minimum: 1, maximum: MAX_MODEL_TOP_K, description: `How many memories at most (default ${defaultTopK}).` },
        },
        required: ["query"],
        additionalProperties: false,
      },
      { validate: validateRecall },
    ),
    execute: async ({ query, topK }) => {
      const recallOptions: RecallOptions = { topK: topK ?? defaultTopK };
      if (kind !== undefined) recallOptions.kind = kind;
      return recallResult(await store.recall(userId, query, recallOptions), now());
    },
  };
  return { remember, recall };
}

type Validation<T> = { success: true; value: T } | { success: false; error: Error };

function validateRemember(value: unknown): Validation<RememberInput> {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("remember: input must be an object { content }");
  const extra = Object.keys(v).find((k) => k !== "content");
  if (extra !== undefined) return fail(`remember: unknown field "${extra}"; the only field is content`);
  if (typeof v["content"] !== "string" || v["content"].trim() === "") return fail("remember: content must be a non-empty string");
  return { success: true, value: { content: v["content"] } };
}

function validateRecall(value: unknown): Validation<RecallInput> {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("recall: input must be an object { query, topK? }");
  const extra = Object.keys(v).find((k) => k !== "query" && k !== "topK");
  if (extra !== undefined) return fail(`recall: unknown field "${extra}"; the fields are query and topK`);
  if (typeof v["query"] !== "string" || v["query"].trim() === "") return fail("recall: query must be a non-empty string");
  const topK = v["topK"];
  if (topK === undefined || topK === null) return { success: true, value: { query: v["query"] } };
  if (typeof topK !== "number" || !Number.isInteger(topK) || topK < 1 || topK > MAX_MODEL_TOP_K) {
    return fail(`recall: topK must be an integer from 1 to ${MAX_MODEL_TOP_K}, got ${describe(topK)}`);
  }
  return { success: true, value: { query: v["query"], topK } };
}

function fail(message: string): { success: false; error: Error } {
  return { success: false, error: invalidArgument(message) };
}
