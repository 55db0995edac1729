// The MCP server: an SDK client spawns it over stdio and round-trips every tool; errors come back as tool errors.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client";
import { MemoryStore } from "../../src/node.ts";
import { runMcpServer } from "../../src/mcp/server.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const FIXTURE = join(ROOT, "test", "node", "fixtures", "mcp-server.ts");
const NOW = Date.UTC(2024, 2, 10, 12);

type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

interface Session {
  client: Client;
  stderr: () => string;
}

/** The SDK's stdio client transport, as far as these tests use it. */
interface StdioTransport {
  stderr: Readable | null;
}
type StdioTransportClass = new (options: { command: string; args: string[]; cwd: string; stderr: "pipe" }) => StdioTransport;

// Loaded by a computed name: the SDK's `./*` subpath types do not resolve in Deno's checker (the `./client` export does).
const STDIO_CLIENT = "@modelcontextprotocol/sdk/client/stdio.js";
const { StdioClientTransport } = (await import(STDIO_CLIENT)) as { StdioClientTransport: StdioTransportClass };

/** Spawns the fixture server on `dir` and connects an SDK client to it. */
async function connect(dir: string): Promise<Session> {
  const transport = new StdioClientTransport({ command: TSX, args: [FIXTURE, dir, String(NOW)], cwd: ROOT, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.setEncoding("utf8");
  transport.stderr?.on("data", (chunk: string) => (stderr += chunk));
  const client = new Client({ name: "moomem-test", version: "1.0.0" });
  await client.connect(transport as unknown as Parameters<Client["connect"]>[0]);
  return { client, stderr: () => stderr };
}

/**
 * Polls until `read()` passes `check` (expect.poll is vitest-only; this suite also runs on Bun and Deno).
 * The time limit is a hang detector, well below the test's own, so a hang still names what it waited for.
 */
async function waitFor<T>(read: () => T, check: (value: T) => boolean, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** The structured result of a successful call (failing with the error text otherwise). */
async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  // The text block carries the same JSON, for clients that ignore structuredContent.
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

async function fails(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  const text = result.content[0]!.text!;
  expect(text.startsWith(`${code}: `)).toBe(true);
  expect((result.structuredContent as { error: { code: string } }).error.code).toBe(code);
  return text;
}

type Memory = { id: string; content: string; kind: string; status?: string; observedAt: string; when: string; score?: number };

let temp = "";
beforeAll(() => {
  temp = makeTempDir("mcp");
});
afterAll(() => {
  removeDir(temp);
});

describe("moomem MCP server over stdio", () => {
  it("lists the four tools, each requiring userId, and answers bad input with tool errors carrying the MoomemError code", async () => {
    const { client } = await connect(join(temp, "tools"));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["remember", "recall", "forget", "list"]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.inputSchema.required).toContain("userId");
      expect(t.description!.length).toBeGreaterThan(40);
    }
    expect(client.getServerVersion()?.name).toBe("moomem");

    // Bad input: tool errors carrying the MoomemError code, and the server keeps serving.
    const c = client;
    await fails(c, "remember", { userId: "a/b", content: "x" }, "INVALID_USER_ID");
    await fails(c, "remember", { userId: 42, content: "x" }, "INVALID_USER_ID");
    expect(await fails(c, "remember", { content: "x" }, "INVALID_ARGUMENT")).toContain('"userId" is required');
    await fails(c, "remember", { userId: "u", content: "   " }, "INVALID_ARGUMENT");
    expect(await fails(c, "remember", { userId: "u", content: "x", user: "v" }, "INVALID_ARGUMENT")).toContain('unknown argument "user"');
    expect(await fails(c, "remember", { userId: "u", content: "x", observedAt: "last tuesday" }, "INVALID_ARGUMENT")).toContain("observedAt");
    await fails(c, "recall", { userId: "u", query: "x", topK: 0 }, "INVALID_ARGUMENT");
    await fails(c, "recall", { userId: "u", query: "x", topK: 2.5 }, "INVALID_ARGUMENT");
    await fails(c, "recall", { userId: "u", query: "x", kind: "opinion" }, "INVALID_ARGUMENT");
    expect(await fails(c, "forget", { userId: "u" }, "INVALID_ARGUMENT")).toContain("exactly one of id");
    await fails(c, "forget", { userId: "u", id: "x", all: true }, "INVALID_ARGUMENT");
    await fails(c, "forget", { userId: "u", all: false }, "INVALID_ARGUMENT");
    await fails(c, "list", { userId: "u", status: "gone" }, "INVALID_ARGUMENT");
    await fails(c, "list", { userId: "u", limit: 5000 }, "INVALID_ARGUMENT");
    expect(await fails(c, "summarize", { userId: "u" }, "INVALID_ARGUMENT")).toContain("remember, recall, forget, list");
    // Still serving.
    expect((await ok<{ stored: number }>(c, "remember", { userId: "u", content: "still here" })).stored).toBe(1);
    await c.close();
  });

  it("round-trips remember, recall, list and forget, per user, and persists across restarts", async () => {
    const dir = join(temp, "roundtrip");
    const first = await connect(dir);
    const c = first.client;

    const stored = await ok<{ stored: number; facts: Array<{ id: string; action: string }> }>(c, "remember", { userId: "alice", content: "I'm allergic to peanuts", metadata: { agent: "chef" } });
    expect(stored.stored).toBe(1);
    expect(stored.facts[0]!.action).toBe("inserted");
    const peanutId = stored.facts[0]!.id;
    expect((await ok<{ duplicates: number }>(c, "remember", { userId: "alice", content: "I'm allergic to peanuts" })).duplicates).toBe(1);
    await ok(c, "remember", { userId: "alice", content: "I lived in Porto as a student", observedAt: "2019-09-01" });
    await ok(c, "remember", { userId: "bob", content: "I'm allergic to shellfish" });

    const recalled = await ok<{ memories: Memory[] }>(c, "recall", { userId: "alice", query: "food allergies peanuts", topK: 5 });
    expect(recalled.memories[0]).toMatchObject({ id: peanutId, content: "I'm allergic to peanuts", observedAt: new Date(NOW).toISOString(), when: "just now" });
    expect(recalled.memories[0]!.score).toBeGreaterThan(0);
    expect(recalled.memories.map((m) => m.content)).not.toContain("I'm allergic to shellfish");

    const old = await ok<{ memories: Memory[] }>(c, "recall", { userId: "alice", query: "Porto student", until: "2020-01-01" });
    expect(old.memories.map((m) => [m.content, m.when])).toEqual([["I lived in Porto as a student", "on 2019-09-01"]]);
    expect((await ok<{ memories: Memory[] }>(c, "recall", { userId: "alice", query: "peanuts", metadata: { agent: "chef" } })).memories).toHaveLength(1);

    const listed = await ok<{ total: number; memories: Memory[] }>(c, "list", { userId: "alice" });
    expect(listed.total).toBe(2);
    expect(listed.memories.map((m) => [m.content, m.status])).toEqual([
      ["I'm allergic to peanuts", "active"],
      ["I lived in Porto as a student", "active"],
    ]);
    expect((await ok<{ total: number }>(c, "list", { userId: "alice", limit: 1 })).total).toBe(2);
    expect((await ok<{ memories: Memory[] }>(c, "list", { userId: "alice", limit: 1 })).memories.map((m) => m.content)).toEqual(["I lived in Porto as a student"]);

    // Another user's id reaches nothing of alice's.
    expect(await ok(c, "forget", { userId: "bob", id: peanutId })).toEqual({ forgotten: 0 });
    expect(await ok(c, "forget", { userId: "alice", id: peanutId })).toEqual({ forgotten: 1 });
    expect((await ok<{ memories: Memory[] }>(c, "recall", { userId: "alice", query: "peanuts" })).memories.map((m) => m.id)).not.toContain(peanutId);
    expect((await ok<{ memories: Memory[] }>(c, "list", { userId: "alice", status: "deleted" })).memories.map((m) => m.id)).toEqual([peanutId]);

    await c.close();
    // The server closed the store when its input ended (lock released, journal compacted).
    await waitFor(first.stderr, (text) => text.includes("stopped cleanly"), "the first server to stop");

    const second = await connect(dir);
    const bob = await ok<{ memories: Memory[] }>(second.client, "recall", { userId: "bob", query: "allergic" });
    expect(bob.memories.map((m) => m.content)).toEqual(["I'm allergic to shellfish"]);
    expect(await ok(second.client, "forget", { userId: "bob", all: true })).toEqual({ forgotten: 1 });
    await second.client.close();
    await waitFor(second.stderr, (text) => text.includes("stopped cleanly"), "the second server to stop");

    const mem = await MemoryStore.open(dir, { readOnly: true });
    expect((await mem.list("alice", { status: "active" })).map((e) => e.content)).toEqual(["I lived in Porto as a student"]);
    expect(await mem.list("bob", { status: "active" })).toEqual([]);
    await mem.close();
  });


  it("exits with the store's error when the store is locked by another writer", async () => {
    const dir = join(temp, "locked");
    const holder = await MemoryStore.open(dir);
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(TSX, [FIXTURE, dir], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    await holder.close();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^moomem: STORE_LOCKED: /m);
  });
});

describe("runMcpServer in process", () => {
  it("serves JSON-RPC over the given streams and resolves, with the store closed, when the input ends", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    let buffer = "";
    output.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        lines.push(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
      }
    });
    const served = runMcpServer({ dir: ":memory:", input, output });
    const send = (message: Record<string, unknown>): boolean => input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    await waitFor(() => lines.length, (n) => n >= 1, "the initialize response");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: "moomem" }, capabilities: { tools: {} } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "remember", arguments: { userId: "u", content: "I play the cello" } } });
    send({ id: 3, method: "tools/call", params: { name: "recall", arguments: { userId: "u", query: "cello" } } });
    await waitFor(() => lines.length, (n) => n >= 3, "two tool results");
    expect(lines).toHaveLength(3);
    const byId = new Map(lines.map((l) => JSON.parse(l) as { id: number; result: ToolResult }).map((m) => [m.id, m.result]));
    expect(byId.get(2)!.structuredContent).toMatchObject({ stored: 1 });
    expect((byId.get(3)!.structuredContent as { memories: Memory[] }).memories.map((m) => m.content)).toEqual(["I play the cello"]);
    input.end();
    await served;
  });

  it("stops when its signal aborts, and rejects bad options before opening anything", async () => {
    const stop = new AbortController();
    const served = runMcpServer({ dir: ":memory:", input: new PassThrough(), output: new PassThrough(), signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await served;
    await expect(runMcpServer({ dir: "" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(runMcpServer(null as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
