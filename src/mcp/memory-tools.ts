// The MCP tools (remember, recall, forget, list): JSON Schemas, argument checks and handlers over one store.

import { MoomemError, describeError, invalidArgument } from "../errors.ts";
import type { AddOptions, ForgetTarget, ListOptions, MemoryStore, RecallOptions } from "../store/memory-store.ts";
import type { EntryKind, EntryStatus, MemoryEntry, Metadata, RecallHit } from "../types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../types.ts";
import { relativeTime } from "../context/format-context.ts";
import { describe } from "../store/validation.ts";

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

const userIdSchema = { type: "string", pattern: "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$", description: "Whose memories: 1-64 characters of A-Z a-z 0-9 _ . - (the host's id for the end user)." };
const timeSchema = (what: string): Record<string, unknown> => ({
  type: ["string", "number"],
  description: `${what}: an ISO 8601 date or date-time (e.g. "2024-03-01"), or ms since epoch.`,
});
const metadataSchema = { type: "object", description: "Exact-match filter on metadata fields, e.g. {\"agent\": \"travel\"}." };
const kindSchema = { type: "string", enum: [...ENTRY_KINDS] };

/** The tools, in the order `tools/list` returns them. */
export const MCP_TOOLS: readonly McpToolDefinition[] = [
  {
    name: "remember",
    description:
      "Store something the user said or a lasting fact about them (who they are, what they like, what happened). " +
      "Duplicates are skipped and a changed fact replaces the old one (kept as history). Returns what was stored.",
    inputSchema: {
      type: "object",
      properties: {
        userId: userIdSchema,
        content: { type: "string", minLength: 1, description: "The text to remember, e.g. \"I'm allergic to peanuts\"." },
        metadata: { type: "object", description: "JSON object kept on every stored entry, e.g. {\"agent\": \"travel\"}." },
        observedAt: timeSchema("When the user said it, for importing old conversations (default: now)"),
      },
      required: ["userId", "content"],
      additionalProperties: false,
    },
  },
  {
    name: "recall",
    description:
      "Find the user's memories most relevant to a query (meaning and keywords), most relevant first, each with its date. " +
      "Only current memories are returned; nothing from other users.",
    inputSchema: {
      type: "object",
      properties: {
        userId: userIdSchema,
        query: { type: "string", minLength: 1, description: "What to look for, e.g. \"food allergies\" or the user's question." },
        topK: { type: "integer", minimum: 1, maximum: 100, description: "How many memories at most (default 5)." },
        since: timeSchema("Only memories observed at or after this time"),
        until: timeSchema("Only memories observed at or before this time"),
        kind: { ...kindSchema, description: "Only memories of this kind." },
        metadata: metadataSchema,
      },
      required: ["userId", "query"],
      additionalProperties: false,
    },
  },
  {
    name: "forget",
    description:
      "Forget one memory by id, or all of the user's memories with all: true. Forgotten memories are no longer recalled " +
      "(they can be restored with the moomem CLI). Returns how many were forgotten.",
    inputSchema: {
      type: "object",
      properties: {
        userId: userIdSchema,
        id: { type: "string", minLength: 1, description: "The memory's id (from recall or list)." },
        all: { type: "boolean", const: true, description: "true to forget every memory of this user." },
      },
      required: ["userId"],
      additionalProperties: false,
    },
  },
  {
    name: "list",
    description: "List the user's memories in the order they were stored, optionally filtered by status, kind, time or metadata.",
    inputSchema: {
      type: "object",
      properties: {
        userId: userIdSchema,
        status: { type: "string", enum: [...ENTRY_STATUSES, "all"], description: "Default \"all\"." },
        kind: { ...kindSchema, description: "Only memories of this kind." },
        since: timeSchema("Only memories observed at or after this time"),
        until: timeSchema("Only memories observed at or before this time"),
        metadata: metadataSchema,
        limit: { type: "integer", minimum: 1, maximum: 1000, description: "At most this many, the newest (default 100)." },
      },
      required: ["userId"],
      additionalProperties: false,
    },
  },
];

/** The store methods the tools call. */
export type McpToolsStore = Pick<MemoryStore, "add" | "recall" | "forget" | "list">;

/**
 * Runs one tool call. Never throws: a bad argument or a store failure becomes an error result whose text
 * starts with the MoomemError code (`INVALID_ARGUMENT: …`), so the client's model can correct itself.
 */
export async function callMemoryTool(store: McpToolsStore, name: string, args: unknown, now: () => number = Date.now): Promise<McpToolResult> {
  try {
    const tool = MCP_TOOLS.find((t) => t.name === name);
    if (tool === undefined) throw invalidArgument(`unknown tool ${JSON.stringify(name)}; the tools are ${MCP_TOOLS.map((t) => t.name).join(", ")}`);
    const a = checkArgs(tool, args);
    const userId = a["userId"] as string;
    switch (tool.name) {
      case "remember": {
        const options: AddOptions = {};
        if (a["metadata"] !== undefined) options.metadata = a["metadata"] as Metadata;
        if (a["observedAt"] !== undefined) options.observedAt = readTime(a["observedAt"], "observedAt");
        const summary = await store.add(userId, requireString(a["content"], "content"), options);
        return ok({
          stored: summary.inserted,
          duplicates: summary.duplicates,
          replaced: summary.superseded,
          degraded: summary.degraded,
          facts: summary.facts.map((f) => ({ id: f.id, content: f.content, kind: f.kind, action: f.action, ...(f.replaced ? { replaced: f.replaced } : {}) })),
        });
      }
      case "recall": {
        const options: RecallOptions = readFilters(a);
        if (a["topK"] !== undefined) options.topK = a["topK"] as number;
        const hits = await store.recall(userId, requireString(a["query"], "query"), options);
        const at = now();
        return ok({ memories: hits.map((h) => memory(h, at)) });
      }
      case "forget": {
        const hasId = a["id"] !== undefined;
        if (hasId === (a["all"] !== undefined)) throw invalidArgument('forget: pass exactly one of id (a memory id from recall or list) or all: true');
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
        return ok({ total: entries.length, memories: shown.map((e) => memory(e, at)) });
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

function memory(e: RecallHit | MemoryEntry, now: number): Record<string, unknown> {
  const out: Record<string, unknown> = { id: e.id, content: e.content, kind: e.kind };
  if (e.key !== undefined) out["key"] = e.key;
  if (!("score" in e)) out["status"] = e.status;
  out["observedAt"] = new Date(e.createdAt).toISOString();
  out["when"] = relativeTime(e.createdAt, now);
  if ("score" in e) out["score"] = e.score;
  if ("supersededBy" in e && e.supersededBy !== undefined) out["supersededBy"] = e.supersededBy;
  return out;
}

/** Shape checks the JSON Schema promises (the SDK's low-level server does not validate); values are checked by the store. */
function checkArgs(tool: McpToolDefinition, args: unknown): Record<string, unknown> {
  const a = args ?? {};
  if (typeof a !== "object" || Array.isArray(a)) throw invalidArgument(`${tool.name}: arguments must be an object, got ${describe(args)}`);
  const record = a as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(key in tool.inputSchema.properties)) {
      throw invalidArgument(`${tool.name}: unknown argument "${key}"; the arguments are ${Object.keys(tool.inputSchema.properties).join(", ")}`);
    }
  }
  for (const key of tool.inputSchema.required) {
    if (record[key] === undefined) throw invalidArgument(`${tool.name}: the argument "${key}" is required`);
  }
  if (typeof record["userId"] !== "string") throw new MoomemError("INVALID_USER_ID", `${tool.name}: userId must be a string, got ${describe(record["userId"])}`);
  for (const key of ["topK", "limit"]) {
    const v = record[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v))) throw invalidArgument(`${tool.name}: ${key} must be an integer, got ${describe(v)}`);
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
