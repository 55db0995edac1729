// The AI SDK tools and the MCP server answer remember and recall in one shape (src/integrations/tool-results.ts).
// Under test/node/ because importing "ai" reads the host name, which the shared Deno run does not allow.

import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock } from "../../src/index.ts";
import { memoryTools } from "../../src/ai-sdk.ts";
import { callMemoryTool } from "../../src/mcp/memory-tools.ts";

const NOW = Date.UTC(2024, 2, 10, 12);
const DAY = 86_400_000;

/** Runs an AI SDK tool's execute as generateText would. */
async function execute<I, O>(tool: { execute?: (input: I, options: never) => unknown }, input: I): Promise<O> {
  return (await tool.execute!(input, { toolCallId: "t", messages: [] } as never)) as O;
}

/** `value` with every entry id replaced by its order of first appearance: two stores draw different random ids. */
function sameIds(value: unknown, seen = new Map<string, string>()): unknown {
  if (Array.isArray(value)) return value.map((v) => sameIds(v, seen));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const ids = key === "id" || key === "supersededBy" ? [v] : key === "replaced" && Array.isArray(v) ? v : key === "conflicts" ? (v as unknown[]) : null;
    if (ids === null) out[key] = sameIds(v, seen);
    else {
      const mapped = ids.map((id) => {
        if (!seen.has(String(id))) seen.set(String(id), `id#${seen.size + 1}`);
        return seen.get(String(id));
      });
      out[key] = Array.isArray(v) ? mapped : mapped[0];
    }
  }
  return out;
}

/** Two stores with the same history, one per face, so each face's own writes stay comparable. */
async function twin(): Promise<MemoryStore> {
  const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(NOW) });
  await mem.add("alice", "I moved to Lisbon last spring", { observedAt: NOW - 3 * DAY });
  await mem.add("alice", "I lived in Porto as a student", { observedAt: Date.UTC(2019, 8, 1) });
  return mem;
}

describe("one shape for both faces", () => {
  it("remember and recall answer the same objects through memoryTools and the MCP tools", async () => {
    const viaSdk = await twin();
    const viaMcp = await twin();
    const tools = memoryTools(viaSdk, { userId: "alice", now: () => NOW });
    const mcp = async (name: string, args: Record<string, unknown>): Promise<unknown> => {
      const result = await callMemoryTool(viaMcp, { userId: "alice" }, name, args, () => NOW);
      expect(result.isError).toBeUndefined();
      return result.structuredContent;
    };

    for (const content of ["I'm allergic to peanuts", "I'm allergic to peanuts", "I moved to Lisbon last spring"]) {
      const sdkAnswer = await execute(tools.remember, { content });
      expect(sameIds(sdkAnswer)).toEqual(sameIds(await mcp("remember", { content })));
      expect(Object.keys(sdkAnswer as object)).toEqual(["stored", "duplicates", "replaced", "degraded", "facts"]);
    }
    for (const query of ["peanuts allergy", "Lisbon Porto city", "nothing matches this"]) {
      const sdkAnswer = await execute<{ query: string; topK: number }, { memories: Array<Record<string, unknown>> }>(tools.recall, { query, topK: 5 });
      expect(sameIds(sdkAnswer)).toEqual(sameIds(await mcp("recall", { query, topK: 5 })));
      for (const memory of sdkAnswer.memories) {
        // `key` is there exactly when the memory fills a slot (the default extractor gives "I'm allergic to peanuts" one).
        const keys =
          memory["key"] === undefined
            ? ["id", "content", "kind", "observedAt", "when", "score"]
            : ["id", "content", "kind", "key", "observedAt", "when", "score"];
        expect(Object.keys(memory)).toEqual(keys);
        expect(new Date(memory["observedAt"] as string).toISOString()).toBe(memory["observedAt"]);
      }
    }
    const porto = await execute<{ query: string }, { memories: Array<Record<string, unknown>> }>(tools.recall, { query: "Porto student" });
    expect(porto.memories[0]).toMatchObject({ content: "I lived in Porto as a student", observedAt: "2019-09-01T00:00:00.000Z", when: "on 2019-09-01" });
    await viaSdk.close();
    await viaMcp.close();
  });

  it("facts carry their key, what they replaced and a degraded flag in both faces", async () => {
    const extractor = {
      mode: "keyed",
      extract: (_user: string, input: unknown) =>
        Promise.resolve([
          { content: String(input), kind: "fact" as const, key: String(input).includes("moved") || String(input).includes("live") ? "home_city" : "misc" },
        ]),
    };
    const open = (): Promise<MemoryStore> => MemoryStore.open(":memory:", { clock: new FixedClock(NOW), extractor });
    const viaSdk = await open();
    const viaMcp = await open();
    const tools = memoryTools(viaSdk, { userId: "alice", now: () => NOW });
    for (const content of ["I live in Beijing", "I moved to Shenzhen"]) {
      const sdkAnswer = await execute<{ content: string }, { facts: Array<Record<string, unknown>> }>(tools.remember, { content });
      const mcpAnswer = (await callMemoryTool(viaMcp, { userId: "alice" }, "remember", { content }, () => NOW)).structuredContent;
      expect(sameIds(sdkAnswer)).toEqual(sameIds(mcpAnswer));
      expect(sdkAnswer.facts[0]).toMatchObject({ key: "home_city", action: "inserted" });
    }
    const last = await execute<{ content: string }, { replaced: number; facts: Array<{ replaced?: string[] }> }>(tools.remember, {
      content: "I moved to Guangzhou",
    });
    expect(last.replaced).toBe(1);
    expect(last.facts[0]!.replaced).toHaveLength(1);
    const recalled = await execute<{ query: string }, { memories: Array<Record<string, unknown>> }>(tools.recall, { query: "Guangzhou" });
    expect(recalled.memories[0]).toMatchObject({ key: "home_city", content: "I moved to Guangzhou" });
    await viaSdk.close();
    await viaMcp.close();
  });
});
