// Under test/node/ because importing "ai" reads the host name (@vercel/oidc via @ai-sdk/gateway), which the
// shared Deno run does not allow (--allow-sys); the same file passes in Chromium.
import { describe, it, expect } from "vitest";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { MemoryStore, FixedClock, MoomemError } from "../../src/index.ts";
import { memoryTools } from "../../src/ai-sdk.ts";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type ToolCall = { toolName: string; input: unknown };

const NOW = Date.UTC(2024, 2, 10);
const DAY = 86_400_000;
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that follows a script: each step either calls tools or answers with text built from what it saw. */
function scriptedModel(steps: Array<(prompt: CallOptions["prompt"]) => ToolCall[] | string>): { model: MockLanguageModelV3; calls: CallOptions[] } {
  const calls: CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: (options): Promise<GenerateResult> => {
      calls.push(options);
      const step = steps[calls.length - 1];
      if (step === undefined) throw new Error(`the script has no step ${calls.length}`);
      const out = step(options.prompt);
      if (typeof out === "string") {
        return Promise.resolve({ content: [{ type: "text", text: out }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
      }
      return Promise.resolve({
        content: out.map((c, i) => ({
          type: "tool-call" as const,
          toolCallId: `call-${calls.length}-${i}`,
          toolName: c.toolName,
          input: JSON.stringify(c.input),
        })),
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      });
    },
  });
  return { model, calls };
}

/** The JSON outputs of the tool results in the prompt's last tool message. */
function lastToolOutputs(prompt: CallOptions["prompt"]): unknown[] {
  const message = [...prompt].reverse().find((m) => m.role === "tool");
  if (message === undefined || message.role !== "tool") return [];
  return message.content.map((part) => (part.type === "tool-result" ? part.output : null));
}

describe("memoryTools inside generateText", () => {
  it("remembers, then recalls with dates, in a multi-step tool loop", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(NOW) });
    await mem.add("alice", "I moved to Lisbon last spring", { observedAt: NOW - 3 * DAY });
    await mem.add("bob", "I am allergic to shellfish");
    const { model, calls } = scriptedModel([
      () => [{ toolName: "remember", input: { content: "User is allergic to peanuts" } }],
      () => [{ toolName: "recall", input: { query: "allergic Lisbon", topK: 3 } }],
      (prompt) => {
        const [output] = lastToolOutputs(prompt) as Array<{ type: string; value: { memories: Array<{ content: string; when: string }> } }>;
        return `I remember: ${output!.value.memories.map((m) => `${m.content} (${m.when})`).join("; ")}`;
      },
    ]);

    const result = await generateText({
      model,
      tools: memoryTools(mem, { userId: "alice", metadata: { agent: "chef" }, now: () => NOW }),
      stopWhen: stepCountIs(5),
      prompt: "I'm allergic to peanuts. What do you know about me?",
    });

    // The model was offered both tools with JSON Schema inputs.
    const offered = calls[0]!.tools!.map((t) => (t.type === "function" ? [t.name, t.inputSchema] : [t.type]));
    expect(offered).toEqual([
      ["remember", expect.objectContaining({ type: "object", required: ["content"], additionalProperties: false })],
      ["recall", expect.objectContaining({ type: "object", required: ["query"], additionalProperties: false })],
    ]);

    expect(result.steps).toHaveLength(3);
    const remembered = result.steps[0]!.toolResults[0]!;
    expect(remembered.toolName).toBe("remember");
    expect(remembered.output).toEqual({
      stored: 1,
      duplicates: 0,
      replaced: 0,
      degraded: false,
      facts: [{ id: expect.any(String), content: "User is allergic to peanuts", kind: "fact", key: "allergy_peanut", action: "inserted" }],
    });
    const recalled = result.steps[1]!.toolResults[0]!;
    expect(recalled.output).toEqual({
      memories: expect.arrayContaining([
        {
          id: expect.any(String),
          content: "User is allergic to peanuts",
          kind: "fact",
          key: "allergy_peanut",
          observedAt: "2024-03-10T00:00:00.000Z",
          when: "just now",
          score: expect.any(Number),
        },
        {
          id: expect.any(String),
          content: "I moved to Lisbon last spring",
          kind: "fact",
          key: "home_city",
          observedAt: "2024-03-07T00:00:00.000Z",
          when: "3 days ago",
          score: expect.any(Number),
        },
      ]),
    });
    expect((recalled.output as { memories: unknown[] }).memories).toHaveLength(2);
    expect(result.text).toContain("User is allergic to peanuts (just now)");
    expect(result.text).not.toContain("shellfish");

    const stored = await mem.list("alice", { metadata: { agent: "chef" } });
    expect(stored.map((e) => e.content)).toEqual(["User is allergic to peanuts"]);
    expect(await mem.list("bob", { metadata: { agent: "chef" } })).toEqual([]);
    await mem.close();
  });

  it("gives the model no way to reach another user: a userId in the input is rejected, nothing runs", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("bob", "bob's bank PIN hint: birthday");
    const { model } = scriptedModel([() => [{ toolName: "recall", input: { query: "PIN", userId: "bob" } }], () => "done"]);
    const result = await generateText({ model, tools: memoryTools(mem, { userId: "alice" }), stopWhen: stepCountIs(3), prompt: "x" });
    const parts = result.steps[0]!.content;
    const error = parts.find((p) => p.type === "tool-error");
    expect(error).toBeDefined();
    expect(String((error as { error: unknown }).error)).toContain('unknown field "userId"');
    expect(result.steps[0]!.toolResults).toEqual([]);
    expect(JSON.stringify(result.steps)).not.toContain("birthday");
    await mem.close();
  });

  it("reports store errors to the model as tool errors carrying the MoomemError code", async () => {
    const mem = await MemoryStore.open(":memory:");
    const tools = memoryTools(mem, { userId: "alice" });
    await mem.close();
    const { model } = scriptedModel([() => [{ toolName: "remember", input: { content: "User likes tea" } }], () => "ok"]);
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "x" });
    const error = result.steps[0]!.content.find((p) => p.type === "tool-error") as { error: unknown } | undefined;
    expect(error?.error).toBeInstanceOf(MoomemError);
    expect((error!.error as MoomemError).code).toBe("STORE_CLOSED");
  });

  it("validates its own options", () => {
    const store = { add: () => Promise.reject(new Error("unused")), recall: () => Promise.resolve([]) };
    const bad: Array<[unknown, unknown, string]> = [
      [null, { userId: "a" }, "store must be a MemoryStore"],
      [store, undefined, "userId is required"],
      [store, {}, "userId is required"],
      [store, { userId: "a", topK: 0 }, "topK"],
      [store, { userId: "a", topK: 21 }, "topK"],
      [store, { userId: "a", kind: "opinion" }, "kind"],
      [store, { userId: "a", metadata: [] }, "metadata"],
      [store, { userId: "a", user: "b" }, 'unknown option "user"'],
      [store, { userId: "a", now: 5 }, "now"],
    ];
    for (const [s, o, text] of bad) {
      let caught: unknown;
      try {
        memoryTools(s as never, o as never);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(MoomemError);
      expect((caught as MoomemError).code).toBe("INVALID_ARGUMENT");
      expect((caught as MoomemError).message).toContain(text);
    }
    let userError: unknown;
    try {
      memoryTools(store as never, { userId: "a/b" });
    } catch (error) {
      userError = error;
    }
    expect((userError as MoomemError).code).toBe("INVALID_USER_ID");
  });

  it("passes topK and kind to recall and uses the default topK otherwise", async () => {
    const seen: unknown[] = [];
    const store = {
      add: () => Promise.reject(new Error("unused")),
      recall: (userId: string, query: string, options?: unknown) => {
        seen.push([userId, query, options]);
        return Promise.resolve([]);
      },
    };
    const tools = memoryTools(store as never, { userId: "carol", topK: 7, kind: "preference" });
    const { model } = scriptedModel([
      () => [
        { toolName: "recall", input: { query: "music" } },
        { toolName: "recall", input: { query: "food", topK: 2 } },
      ],
      () => "ok",
    ]);
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "x" });
    expect(seen).toEqual([
      ["carol", "music", { topK: 7, kind: "preference" }],
      ["carol", "food", { topK: 2, kind: "preference" }],
    ]);
  });
});
