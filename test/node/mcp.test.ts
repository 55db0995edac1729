// The MCP server: an SDK client spawns it over stdio and round-trips every tool; errors come back as tool errors.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client";
import { MemoryStore } from "../../src/node.ts";
import { runMcpServer } from "../../src/mcp/server.ts";
import { MCP_CLIENT_ENTRY } from "../../src/cli/commands/mcp.ts";
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

/** Spawns the fixture server on `dir` (scope "any" or "user=<id>") and connects an SDK client to it. */
async function connect(dir: string, scope = "any"): Promise<Session> {
  return connectTo(TSX, [FIXTURE, dir, scope, String(NOW)]);
}

/** Starts `command args…` as an MCP server over stdio and connects an SDK client to it. */
async function connectTo(command: string, args: string[]): Promise<Session> {
  const transport = new StdioClientTransport({ command, args, cwd: ROOT, stderr: "pipe" });
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

/** Opens `dir` for writing once the server that held it has let go (its process exits after the client closes). */
async function waitForOpen(dir: string): Promise<MemoryStore> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await MemoryStore.open(dir);
    } catch (error) {
      if ((error as { code?: string }).code !== "STORE_LOCKED" || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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

/**
 * A call carrying an argument named after an Object.prototype member is refused. moomem answers with a tool
 * error naming the unknown argument. The one exception is "constructor" under an SDK that validates with a
 * zod before 4.1 (zod 3.25's "zod/v4", which this repository's lock resolves: a dev dependency's openai 4
 * wants zod 3): its z.record refuses an object whose "constructor" is not a function (colinhacks/zod#5066),
 * so the SDK answers the request with a protocol error before moomem sees it. Either way the call does
 * nothing; test/integrations/mcp-tools.test.ts checks moomem's own answer to every such name.
 */
async function refusesPrototypeName(client: Client, name: string, args: Record<string, unknown>, argument: string): Promise<void> {
  let text: string;
  try {
    text = await fails(client, name, args, "INVALID_ARGUMENT");
  } catch (error) {
    if (
      argument !== "constructor" ||
      !(error instanceof Error) ||
      !/"path": \[\s*"params",\s*"arguments"\s*\][\s\S]*expected record, received object/.test(error.message)
    )
      throw error;
    return;
  }
  expect(text).toContain(`unknown argument ${JSON.stringify(argument)}`);
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
  it("with anyUser: lists the four tools, each requiring userId, and answers bad input with tool errors carrying the MoomemError code", async () => {
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
    // Arguments are checked as own properties of the schema: Object.prototype's names are unknown too.
    for (const name of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const args = JSON.parse(`{"userId": "u", "content": "x", ${JSON.stringify(name)}: 1}`) as Record<string, unknown>;
      await refusesPrototypeName(c, "remember", args, name);
    }
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

    const stored = await ok<{ stored: number; facts: Array<{ id: string; action: string }> }>(c, "remember", {
      userId: "alice",
      content: "I'm allergic to peanuts",
      metadata: { agent: "chef" },
    });
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
    expect((await ok<{ memories: Memory[] }>(c, "list", { userId: "alice", limit: 1 })).memories.map((m) => m.content)).toEqual([
      "I lived in Porto as a student",
    ]);

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
      const child = spawn(TSX, [FIXTURE, dir, "any"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
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

describe("moomem MCP server pinned to one user", () => {
  it("offers tools without userId, serves only that user, and rejects a userId the client slips in", async () => {
    const dir = join(temp, "pinned");
    const seed = await MemoryStore.open(dir);
    await seed.add("bob", "bob's bank PIN hint: birthday");
    const bobId = (await seed.list("bob"))[0]!.id;
    await seed.close();

    const { client: c, stderr } = await connect(dir, "user=alice");
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["remember", "recall", "forget", "list"]);
    for (const t of tools) {
      expect(Object.keys(t.inputSchema.properties ?? {})).not.toContain("userId");
      expect(t.inputSchema.required ?? []).not.toContain("userId");
      expect(JSON.stringify(t)).not.toMatch(/userId/);
    }

    expect((await ok<{ stored: number }>(c, "remember", { content: "I'm allergic to peanuts" })).stored).toBe(1);
    const recalled = await ok<{ memories: Memory[] }>(c, "recall", { query: "peanuts" });
    expect(recalled.memories.map((m) => m.content)).toEqual(["I'm allergic to peanuts"]);

    // The model names another user: refused, nothing of bob's is read, written or forgotten.
    for (const [name, args] of [
      ["recall", { userId: "bob", query: "PIN" }],
      ["list", { userId: "bob" }],
      ["forget", { userId: "bob", all: true }],
      ["remember", { userId: "bob", content: "I owe alice 100 euros" }],
    ] as const) {
      const text = await fails(c, name, args, "INVALID_ARGUMENT");
      expect(text).toContain('unknown argument "userId"');
      expect(text).toContain("pinned to one user");
      expect(text).not.toContain("birthday");
    }
    expect(await ok(c, "forget", { id: bobId })).toEqual({ forgotten: 0 });
    expect((await ok<{ memories: Memory[] }>(c, "recall", { query: "bank PIN hint birthday" })).memories).toEqual([]);
    expect((await ok<{ total: number }>(c, "list", {})).total).toBe(1);
    for (const name of ["constructor", "toString"]) {
      const args = JSON.parse(`{"query": "x", ${JSON.stringify(name)}: 1}`) as Record<string, unknown>;
      await refusesPrototypeName(c, "recall", args, name);
    }
    await c.close();
    await waitFor(stderr, (text) => text.includes("stopped cleanly"), "the server to stop");

    const mem = await MemoryStore.open(dir, { readOnly: true });
    expect((await mem.list("bob")).map((e) => [e.content, e.status])).toEqual([["bob's bank PIN hint: birthday", "active"]]);
    expect((await mem.list("alice")).map((e) => e.content)).toEqual(["I'm allergic to peanuts"]);
    await mem.close();
  }, 60_000);

  it("refuses to start without a user or anyUser, and with both, before touching the folder", async () => {
    const dir = join(temp, "unscoped");
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(TSX, [FIXTURE, dir, "none"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^moomem: INVALID_ARGUMENT: runMcpServer: say whose memories the tools reach: \{ userId: "alice" \}.* \{ anyUser: true \}.*trust/m,
    );
    await expect(runMcpServer({ dir, userId: "a", anyUser: true })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(runMcpServer({ dir, userId: "a/b" })).rejects.toMatchObject({ code: "INVALID_USER_ID" });
    await expect(runMcpServer({ dir, anyUser: "yes" as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(existsSync(dir)).toBe(false);
  }, 30_000);
});

describe("moomem mcp (the CLI command) over stdio", () => {
  const CLI = join(ROOT, "src", "cli", "main.ts");

  it("--user pins the server: the tools take no userId, and what it stores is that user's", async () => {
    const dir = join(temp, "cli-pinned");
    const { client: c, stderr } = await connectTo(TSX, [CLI, "--dir", dir, "mcp", "--user", "carol"]);
    const { tools } = await c.listTools();
    expect(tools.every((t) => !JSON.stringify(t.inputSchema).includes("userId"))).toBe(true);
    await ok(c, "remember", { content: "I play the cello" });
    expect(await fails(c, "recall", { userId: "dave", query: "cello" }, "INVALID_ARGUMENT")).toContain('unknown argument "userId"');
    await c.close();
    await waitFor(stderr, () => existsSync(join(dir, "moomem")), "the store folder");
    // The process has exited once the store is readable without a lock conflict.
    const mem = await waitForOpen(dir);
    expect((await mem.list("carol")).map((e) => e.content)).toEqual(["I play the cello"]);
    await mem.close();
  }, 60_000);

  it("--any-user makes userId a required argument", async () => {
    const { client: c } = await connectTo(TSX, [CLI, "--dir", join(temp, "cli-any"), "mcp", "--any-user"]);
    const { tools } = await c.listTools();
    for (const t of tools) expect(t.inputSchema.required).toContain("userId");
    await c.close();
  }, 60_000);

  it("without --user or --any-user (or with both) exits 2 saying what each one means", async () => {
    for (const flags of [[], ["--user", "a", "--any-user"]]) {
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(TSX, [CLI, "--dir", join(temp, "cli-none"), "mcp", ...flags], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stderr }));
        child.stdin.end();
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        flags.length === 0 ? /^moomem: INVALID_ARGUMENT: mcp needs --user <user> .* or --any-user .*trusted clients only/ : /not both/,
      );
    }
    expect(existsSync(join(temp, "cli-none"))).toBe(false);
  }, 60_000);
});

describe("the MCP client entry in the docs", () => {
  it("README, docs/agents.md and `moomem mcp --help` show one entry, and the moomem arguments in it serve a pinned store", async () => {
    const entries = [readFileSync(join(ROOT, "README.md"), "utf8"), readFileSync(join(ROOT, "docs", "agents.md"), "utf8")].flatMap((text) =>
      text.split("\n").filter((line) => line.includes('"mcpServers"')),
    );
    expect(entries).toHaveLength(2);
    expect(new Set(entries).size).toBe(1);
    expect(entries[0]).toContain(MCP_CLIENT_ENTRY);
    const help = await new Promise<string>((resolve, reject) => {
      const child = spawn(TSX, [join(ROOT, "src", "cli", "main.ts"), "mcp", "--help"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      child.on("error", reject);
      child.on("close", () => resolve(out));
    });
    expect(help).toContain(MCP_CLIENT_ENTRY);

    const { command, args } = (JSON.parse(entries[0]!) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers["moomem"]!;
    expect(command).toBe("npx");
    // npx installs moomem and the SDK (-p twice), then runs the moomem bin with the rest.
    expect(args.slice(0, 6)).toEqual(["-y", "-p", "moomem", "-p", "@modelcontextprotocol/sdk", "moomem"]);
    const cliArgs = args.slice(6).map((a) => (a === "/home/me/.agent-memory" ? join(temp, "docs-entry") : a));
    expect(cliArgs).toContain("--user");
    const { client: c } = await connectTo(TSX, [join(ROOT, "src", "cli", "main.ts"), ...cliArgs]);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["remember", "recall", "forget", "list"]);
    expect(JSON.stringify(tools)).not.toContain("userId");
    await c.close();
  }, 60_000);
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
    const served = runMcpServer({ dir: ":memory:", anyUser: true, input, output });
    const send = (message: Record<string, unknown>): boolean => input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    await waitFor(
      () => lines.length,
      (n) => n >= 1,
      "the initialize response",
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: "moomem" }, capabilities: { tools: {} } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "remember", arguments: { userId: "u", content: "I play the cello" } } });
    send({ id: 3, method: "tools/call", params: { name: "recall", arguments: { userId: "u", query: "cello" } } });
    await waitFor(
      () => lines.length,
      (n) => n >= 3,
      "two tool results",
    );
    expect(lines).toHaveLength(3);
    const byId = new Map(lines.map((l) => JSON.parse(l) as { id: number; result: ToolResult }).map((m) => [m.id, m.result]));
    expect(byId.get(2)!.structuredContent).toMatchObject({ stored: 1 });
    expect((byId.get(3)!.structuredContent as { memories: Memory[] }).memories.map((m) => m.content)).toEqual(["I play the cello"]);
    input.end();
    await served;
  });

  it("stops when its signal aborts, and rejects bad options before opening anything", async () => {
    const stop = new AbortController();
    const served = runMcpServer({ dir: ":memory:", userId: "u", input: new PassThrough(), output: new PassThrough(), signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await served;
    await expect(runMcpServer({ dir: "", userId: "u" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(runMcpServer(null as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
