// Example: moomem as Vercel AI SDK tools. The model decides when to `remember` and when to `recall`;
// the host fixes the user id, so the model can only ever touch this user's memories.
// A scripted mock model stands in for a real one (no key, no network); swap in e.g. openai("gpt-4o-mini").
//
// Run: npm run build && npx tsx examples/ai-sdk-tools.ts

import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { FixedClock, MemoryStore } from "moomem";
import { memoryTools, type RecallOutput, type RememberOutput } from "moomem/ai-sdk";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/**
 * What the model asks `recall` for. A tool-calling model writes its own query, naming what its answer depends
 * on: before suggesting a dish, the user's food allergies and diet. That matters with moomem's offline default,
 * which matches words, not meaning: the question itself ("What should I cook tonight?") shares no word with
 * "I'm allergic to peanuts" and would find nothing. (A real embedder, see README, links the two by meaning.)
 */
function recallQuery(question: string): string {
  return /cook|eat|dinner|lunch|recipe|snack/i.test(question) ? "food allergies, diet and dislikes" : question;
}

/** A tool-calling "model" that follows simple rules, reading only what is in its prompt, like a real one. */
const model = new MockLanguageModelV3({
  doGenerate: (options: CallOptions): Promise<GenerateResult> => {
    const prompt = options.prompt;
    const last = prompt[prompt.length - 1]!;
    const userText = prompt
      .filter((m) => m.role === "user")
      .flatMap((m) => m.content)
      .map((p) => (p.type === "text" ? p.text : ""))
      .join(" ");
    const toolCall = (toolName: string, input: unknown): GenerateResult => ({
      content: [{ type: "tool-call", toolCallId: `call-${prompt.length}`, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage,
      warnings: [],
    });
    const say = (text: string): GenerateResult => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });

    if (last.role === "user") {
      // A statement about the user: remember it. A question: recall what the answer depends on first.
      return Promise.resolve(userText.includes("?") ? toolCall("recall", { query: recallQuery(userText) }) : toolCall("remember", { content: userText }));
    }
    // After a tool ran: answer from its result.
    const result = last.role === "tool" ? last.content.find((p) => p.type === "tool-result") : undefined;
    const output = result?.output.type === "json" ? (result.output.value as Partial<RecallOutput>) : {};
    if (output.memories === undefined) return Promise.resolve(say("Got it, I'll remember that."));
    const allergy = output.memories.find((m) => /allergic/i.test(m.content));
    return Promise.resolve(
      say(allergy === undefined ? "Anything you like!" : `Since you told me ${allergy.when} ("${allergy.content}"), how about a peanut-free Thai green curry?`),
    );
  },
});

// A clock the example moves by hand, so "yesterday" is a day ago in the answers (a real agent leaves it out).
const clock = new FixedClock(Date.parse("2025-06-02T18:00:00Z"));
const mem = await MemoryStore.open(":memory:", { clock });
const tools = memoryTools(mem, { userId: "user-42", metadata: { agent: "chef" }, now: () => clock.now() });

async function chat(prompt: string): Promise<void> {
  console.log(`user: ${prompt}`);
  const messages: ModelMessage[] = [{ role: "user", content: prompt }];
  const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  for (const step of result.steps) {
    for (const call of step.toolCalls) console.log(`  [tool ${call.toolName}] ${JSON.stringify(call.input)}`);
    for (const r of step.toolResults) {
      const out = r.output as Partial<RecallOutput & RememberOutput>;
      if (out.memories !== undefined) console.log(`  [tool ${r.toolName}] -> ${out.memories.map((m) => `${m.content} (${m.when})`).join("; ") || "(nothing)"}`);
      else console.log(`  [tool ${r.toolName}] -> stored ${out.stored ?? 0}${out.degraded === true ? " (degraded)" : ""}`);
    }
  }
  console.log(`assistant: ${result.text}\n`);
}

console.log("--- Monday ---");
await chat("I'm allergic to peanuts.");
clock.advance(24 * 60 * 60 * 1000);
console.log("--- Tuesday ---");
await chat("What should I cook tonight?");

const stored = await mem.list("user-42", { metadata: { agent: "chef" } });
console.log(`memories the chef agent stored for user-42: ${stored.length}`);
await mem.close();
