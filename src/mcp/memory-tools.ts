// The MCP tools (remember, recall, forget, list): JSON Schemas, argument checks and handlers over one store.

import { MoomemError, describeError, invalidArgument } from "../errors.ts";
import type { AddOptions, ForgetTarget, ListOptions, MemoryStore, RecallOptions } from "../index.ts";
import type { EntryKind, EntryStatus, Metadata } from "../types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../types.ts";
import { listedMemory, recallResult, rememberResult } from "../integrations/tool-results.ts";
import { checkUserId, describe } from "../validation/arguments.ts";

/** One tool as `tools/list` announces it. */
export interface McpToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
}

/** What a tool call answers: the result as JSON text (and structured), or an error with the MoomemError code. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: true;
}

/**
 * Whose memories the tools reach. `{ userId }` pins every call to that user: the tools take no `userId`, so the
 * client (in the end, the model) cannot name anyone else. `{ anyUser: true }` makes `userId` a required argument
 * of every tool, so the client can read and forget every user's memories: only for a client trusted with all of them.
 */
export type McpUserScope = { userId: string } | { anyUser: true };

const userIdSchema = {
  type: "string",
  pattern: "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$",
  description: "Whose memories: 1-64 characters of A-Z a-z 0-9 _ . - (the host's id for the end user).",
};
const timeSchema = (what: string): Record<string, unknown> => ({
  type: ["string", "number"],
  description: `${what}: an ISO 8601 date or date-time (e.g. "2024-03-01"), or ms since epoch.`,
});
const metadataSchema = { type: "object", description: 'Exact-match filter on metadata fields, e.g. {"agent": "travel"}.' };
const kindSchema = { type: "string", enum: [...ENTRY_KINDS] };

/** The tools, in the order `tools/list` returns them; with a `userId` argument when the server serves any user. */
function toolDefinitions(anyUser: boolean): readonly McpToolDefinition[] {
  const user: Record<string, unknown> = anyUser ? { userId: userIdSchema } : {};
  const required = (...names: string[]): string[] => (anyUser ? ["userId", ...names] : names);
  const whose = anyUser ? "the given user's" : "the user's";
  const tools: McpToolDefinition[] = [
    {
      name: "remember",
      description:
        "Store something the user said or a lasting fact about them (who they are, what they like, what happened). " +
        "Duplicates are skipped and a changed fact replaces the old one (kept as history). Returns what was stored.",
      inputSchema: {
        type: "object",
        properties: {
          ...user,
          content: { type: "string", minLength: 1, description: 'The text to remember, e.g. "I\'m allergic to peanuts".' },
          metadata: { type: "object", description: 'JSON object kept on every stored entry, e.g. {"agent": "travel"}.' },
          observedAt: timeSchema("When the user said it, for importing old conversations (default: now)"),
        },
        required: required("content"),
        additionalProperties: false,
      },
    },
    {
      name: "recall",
      description:
        `Find ${whose} memories most relevant to a query (meaning and keywords), most relevant first, each with its date. ` +
        "Only current memories are returned; nothing from other users.",
      inputSchema: {
        type: "object",
        properties: {
          ...user,
          query: {
            type: "string",
            minLength: 1,
            description: 'What the answer depends on, e.g. "food allergies and diet" before suggesting a recipe, or the user\'s question.',
          },
          topK: { type: "integer", minimum: 1, maximum: 100, description: "How many memories at most (default 5)." },
          since: timeSchema("Only memories observed at or after this time"),
          until: timeSchema("Only memories observed at or before this time"),
          kind: { ...kindSchema, description: "Only memories of this kind." },
          metadata: metadataSchema,
        },
        required: required("query"),
        additionalProperties: false,
      },
    },
    {
      name: "forget",
      description:
        `Forget one memory by id, or all of ${whose} memories with all: true. Forgotten memories are no longer recalled ` +
        "(they can be restored with the moomem CLI). Returns how many were forgotten.",
      inputSchema: {
        type: "object",
        properties: {
          ...user,
          id: { type: "string", minLength: 1, description: "The memory's id (from recall or list)." },
          all: { type: "boolean", const: true, description: "true to forget every memory of this user." },
        },
        required: required(),
        additionalProperties: false,
      },
    },
    {
      name: "list",
      description: `List ${whose} memories in the order they were stored, optionally filtered by status, kind, time or metadata.`,
      inputSchema: {
        type: "object",
        properties: {
          ...user,
          status: { type: "string", enum: [...ENTRY_STATUSES, "all"], description: 'Default "all".' },
          kind: { ...kindSchema, description: "Only memories of this kind." },
          since: timeSchema("Only memories observed at or after this time"),
          until: timeSchema("Only memories observed at or before this time"),
          metadata: metadataSchema,
          limit: { type: "integer", minimum: 1, maximum: 1000, description: "At most this many, the newest (default 100)." },
        },
        required: required(),
        additionalProperties: false,
      },
    },
  ];
  return tools;
}

const PINNED_TOOLS = toolDefinitions(false);
const ANY_USER_TOOLS = toolDefinitions(true);

/**
 * Checks a scope as hosts pass it (exactly one of `userId` and `anyUser: true`); `where` names the caller.
 *
 * @example
 * ```ts
 * checkMcpScope({ userId: "alice" }, "runMcpServer"); // { userId: "alice" }
 * ```
 */
export function checkMcpScope(value: { userId?: unknown; anyUser?: unknown }, where: string): McpUserScope {
  if (typeof value !== "object" || value === null) throw invalidArgument(`${where}: the scope must be { userId } or { anyUser: true }, got ${describe(value)}`);
  const hasUser = value.userId !== undefined;
  const anyUser = value.anyUser;
  if (anyUser !== undefined && typeof anyUser !== "boolean") throw invalidArgument(`${where}: anyUser must be true or false, got ${describe(anyUser)}`);
  if (hasUser && anyUser === true) {
    throw invalidArgument(`${where}: pass either userId (serve one user) or anyUser: true (the client names the user), not both`);
  }
  if (hasUser) return { userId: checkUserId(value.userId) };
  if (anyUser === true) return { anyUser: true };
  throw invalidArgument(
    `${where}: say whose memories the tools reach: { userId: "alice" } pins every call to that user (the tools then take no userId), ` +
      "or { anyUser: true } lets the client name any user in each call — only for a client you trust with every user's memories",
  );
}

/**
 * The tool definitions `tools/list` announces for `scope`: without a `userId` argument when pinned to one user.
 *
 * @example
 * ```ts
 * memoryToolDefinitions({ userId: "alice" }).map((t) => t.name); // ["remember", "recall", "forget", "list"]
 * ```
 */
export function memoryToolDefinitions(scope: McpUserScope): readonly McpToolDefinition[] {
  return "anyUser" in scope && scope.anyUser === true ? ANY_USER_TOOLS : PINNED_TOOLS;
}

/** The store methods the tools call. */
export type McpToolsStore = Pick<MemoryStore, "add" | "recall" | "forget" | "list">;

/**
 * Runs one tool call for `scope` (see {@link McpUserScope}). Never throws: a bad argument or a store failure
 * becomes an error result whose text starts with the MoomemError code (`INVALID_ARGUMENT: …`), so the client's
 * model can correct itself. Answers have the shapes of `moomem/ai-sdk`'s tools (src/integrations/tool-results.ts).
 *
 * @example
 * ```ts
 * const result = await callMemoryTool(store, { userId: "alice" }, "recall", { query: "allergies" });
 * ```
 */
export async function callMemoryTool(
  store: McpToolsStore,
  scope: McpUserScope,
  name: string,
  args: unknown,
  now: () => number = Date.now,
): Promise<McpToolResult> {
  try {
    const pinned = checkMcpScope(scope, "callMemoryTool");
    const tools = memoryToolDefinitions(pinned);
    const tool = tools.find((t) => t.name === name);
    if (tool === undefined) throw invalidArgument(`unknown tool ${JSON.stringify(name)}; the tools are ${tools.map((t) => t.name).join(", ")}`);
    const a = checkArgs(tool, args);
    const userId = "userId" in pinned ? pinned.userId : (a["userId"] as string);
    switch (tool.name) {
      case "remember": {
        const options: AddOptions = {};
        if (a["metadata"] !== undefined) options.metadata = a["metadata"] as Metadata;
        if (a["observedAt"] !== undefined) options.observedAt = readTime(a["observedAt"], "observedAt");
        return ok({ ...rememberResult(await store.add(userId, requireString(a["content"], "content"), options)) });
      }
      case "recall": {
        const options: RecallOptions = readFilters(a);
        if (a["topK"] !== undefined) options.topK = a["topK"] as number;
        const hits = await store.recall(userId, requireString(a["query"], "query"), options);
        return ok({ ...recallResult(hits, now()) });
      }
      case "forget": {
        const hasId = a["id"] !== undefined;
        if (hasId === (a["all"] !== undefined)) throw invalidArgument("forget: pass exactly one of id (a memory id from recall or list) or all: true");
        const target: ForgetTarget = hasId ? { id: requireString(a["id"], "id") } : { all: a["all"] as true };
        return ok({ forgotten: await store.forget(userId, target) });
      }
      case "list": {
        const options: ListOptions = readFilters(a);
        if (a["status"] !== undefined) options.status = a["status"] as EntryStatus | "all";
        const limit = a["limit"] === undefined ? 100 : (a["limit"] as number);
        const entries = await store.list(userId, options);
        const at = now();
        const shown = entries.slice(Math.max(0, entries.length - limit));
        return ok({ total: entries.length, memories: shown.map((e) => listedMemory(e, at)) });
      }
      default:
        throw invalidArgument(`unknown tool ${JSON.stringify(name)}`);
    }
  } catch (error) {
    const code = error instanceof MoomemError ? error.code : "UNEXPECTED";
    const message = describeError(error);
    return { content: [{ type: "text", text: `${code}: ${message}` }], structuredContent: { error: { code, message } }, isError: true };
  }
}

function ok(result: Record<string, unknown>): McpToolResult {
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
}

/** Shape checks the JSON Schema promises (the SDK's low-level server does not validate); values are checked by the store. */
function checkArgs(tool: McpToolDefinition, args: unknown): Record<string, unknown> {
  const a = args ?? {};
  if (typeof a !== "object" || Array.isArray(a)) throw invalidArgument(`${tool.name}: arguments must be an object, got ${describe(args)}`);
  const record = a as Record<string, unknown>;
  const known = tool.inputSchema.properties;
  for (const key of Object.keys(record)) {
    // Own properties only: `key in` would accept "constructor", "toString" and the rest of Object.prototype.
    if (!Object.hasOwn(known, key)) {
      const pinned = key === "userId" ? " (this server is pinned to one user: its tools take no userId)" : "";
      throw invalidArgument(`${tool.name}: unknown argument ${JSON.stringify(key)}${pinned}; the arguments are ${Object.keys(known).join(", ")}`);
    }
  }
  for (const key of tool.inputSchema.required) {
    if (!Object.hasOwn(record, key) || record[key] === undefined) throw invalidArgument(`${tool.name}: the argument "${key}" is required`);
  }
  if (Object.hasOwn(known, "userId") && typeof record["userId"] !== "string") {
    throw new MoomemError("INVALID_USER_ID", `${tool.name}: userId must be a string, got ${describe(record["userId"])}`);
  }
  for (const key of ["topK", "limit"]) {
    const v = record[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v)))
      throw invalidArgument(`${tool.name}: ${key} must be an integer, got ${describe(v)}`);
  }
  const limit = record["limit"];
  if (typeof limit === "number" && (limit < 1 || limit > 1000)) throw invalidArgument(`${tool.name}: limit must be from 1 to 1000, got ${limit}`);
  return record;
}

function readFilters(a: Record<string, unknown>): { since?: number; until?: number; kind?: EntryKind; metadata?: Metadata } {
  const out: { since?: number; until?: number; kind?: EntryKind; metadata?: Metadata } = {};
  if (a["since"] !== undefined) out.since = readTime(a["since"], "since");
  if (a["until"] !== undefined) out.until = readTime(a["until"], "until");
  if (a["kind"] !== undefined) out.kind = a["kind"] as EntryKind;
  if (a["metadata"] !== undefined) out.metadata = a["metadata"] as Metadata;
  return out;
}

/** An ISO date string or ms since epoch (JSON has no Date). */
function readTime(value: unknown, name: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw invalidArgument(`${name} must be an ISO 8601 date (e.g. "2024-03-01" or "2024-03-01T12:00:00Z") or ms since epoch, got ${describe(value)}`);
}

function requireString(value: unknown, name: string): string {
  if (typeof value !== "string") throw invalidArgument(`${name} must be a string, got ${describe(value)}`);
  return value;
}
