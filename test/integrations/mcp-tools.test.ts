// The MCP tool layer without a transport: whose memories each scope reaches, and arguments checked as own properties.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import { callMemoryTool, memoryToolDefinitions, type McpToolResult, type McpUserScope } from "../../src/mcp/memory-tools.ts";

async function store(): Promise<MemoryStore> {
  const mem = await MemoryStore.open(":memory:");
  await mem.add("bob", "bob's bank PIN hint: birthday");
  return mem;
}

function errorText(result: McpToolResult): string {
  expect(result.isError).toBe(true);
  return result.content[0]!.text;
}

describe("MCP tools and their scope", () => {
  it("pinned to a user: no userId in any schema; a userId argument is refused and reaches nobody", async () => {
    const mem = await store();
    const pinned: McpUserScope = { userId: "alice" };
    for (const tool of memoryToolDefinitions(pinned)) {
      expect(Object.keys(tool.inputSchema.properties)).not.toContain("userId");
      expect(tool.inputSchema.required).not.toContain("userId");
    }
    expect(errorText(await callMemoryTool(mem, pinned, "recall", { userId: "bob", query: "PIN" }))).toMatch(
      /^INVALID_ARGUMENT: recall: unknown argument "userId" \(this server is pinned to one user/,
    );
    expect(errorText(await callMemoryTool(mem, pinned, "forget", { userId: "bob", all: true }))).toContain('unknown argument "userId"');
    expect((await callMemoryTool(mem, pinned, "forget", { all: true })).structuredContent).toEqual({ forgotten: 0 });
    expect(await mem.list("bob")).toHaveLength(1);
    const stored = await callMemoryTool(mem, pinned, "remember", { content: "I'm allergic to peanuts" });
    expect(stored.structuredContent).toMatchObject({ stored: 1 });
    expect((await mem.list("alice")).map((e) => e.content)).toEqual(["I'm allergic to peanuts"]);
    await mem.close();
  });

  it("any user: userId is required in every schema and picks the user", async () => {
    const mem = await store();
    const any: McpUserScope = { anyUser: true };
    for (const tool of memoryToolDefinitions(any)) expect(tool.inputSchema.required[0]).toBe("userId");
    expect(errorText(await callMemoryTool(mem, any, "recall", { query: "PIN" }))).toContain('"userId" is required');
    const hits = (await callMemoryTool(mem, any, "recall", { userId: "bob", query: "PIN hint" })).structuredContent as { memories: Array<{ content: string }> };
    expect(hits.memories.map((m) => m.content)).toEqual(["bob's bank PIN hint: birthday"]);
    await mem.close();
  });

  it("a missing, doubled or malformed scope is refused before the store is touched", async () => {
    const mem = await store();
    for (const scope of [{}, { userId: "a", anyUser: true }, { anyUser: false }, { userId: "a/b" }, null]) {
      const text = errorText(await callMemoryTool(mem, scope as never, "recall", { userId: "bob", query: "PIN" }));
      expect(text).toMatch(/^INVALID_(ARGUMENT|USER_ID): /);
      expect(text).not.toContain("birthday");
    }
    await mem.close();
  });

  it("argument names are own properties of the schema: Object.prototype's names and __proto__ are unknown", async () => {
    const mem = await store();
    for (const scope of [{ userId: "alice" }, { anyUser: true }] as McpUserScope[]) {
      for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "__defineGetter__", "valueOf"]) {
        // JSON.parse makes "__proto__" an own property, as a JSON-RPC request body does before any schema check.
        const args = JSON.parse(`{"userId": "alice", "content": "x", ${JSON.stringify(name)}: {}}`) as Record<string, unknown>;
        if ("userId" in scope) delete args["userId"];
        expect(errorText(await callMemoryTool(mem, scope, "remember", args))).toContain(`unknown argument ${JSON.stringify(name)}`);
      }
    }
    expect(await mem.list("alice")).toEqual([]);
    await mem.close();
  });
});
