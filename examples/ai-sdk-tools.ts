// Example: moomem as Vercel AI SDK tools. The model decides when to `remember` and when to `recall`;
// the host fixes the user id, so the model can only ever touch this user's memories.
// A scripted mock model stands in for a real one (no key, no network); swap in e.g. openai("gpt-4o-mini").
//
// Run: npm run build && npx tsx examples/ai-sdk-tools.ts

import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { MemoryStore } from "moomem";
import { memoryTools } from "moomem/ai-sdk";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

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
      // A statement about the user: remember it. A question: recall first.
      return Promise.resolve(userText.includes("?") ? toolCall("recall", { query: userText }) : toolCall("remember", { content: userText }));
    }
    // After a tool ran: answer from its result.
    const result = last.role === "tool" ? last.content.find((p) => p.type === "tool-result") : undefined;
    const output = result?.output.type === "json" ? (result.output.value as { memories?: Array<{ content: string; when: string }> }) : {};
    if (output.memories === undefined) return Promise.resolve(say("Got it, I'll remember that."));
    const allergy = output.memories.find((m) => /allergic/i.test(m.content));
    return Promise.resolve(
      say(allergy === undefined ? "Anything you like!" : `Since you told me ${allergy.when} ("${allergy.content}"), how about a peanut-free Thai green curry?`),
    );
  },
});

const mem = await MemoryStore.open(":memory:");
const tools = memoryTools(mem, { userId: "user-42", metadata: { agent: "chef" } });

async function chat(prompt: string): Promise<void> {
  console.log(`user: ${prompt}`);
  const messages: ModelMessage[] = [{ role: "user", content: prompt }];
  const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  for (const step of result.steps) {
    for (const call of step.toolCalls) console.log(`  [tool ${call.toolName}] ${JSON.stringify(call.input)}`);
    for (const r of step.toolResults) {
      const out = r.output as { stored?: number; memories?: Array<{ content: string; when: string }> };
      if (out.memories !== undefined) console.log(`  [tool ${r.toolName}] -> ${out.memories.map((m) => `${m.content} (${m.when})`).join("; ") || "(nothing)"}`);
      else console.log(`  [tool ${r.toolName}] -> stored ${out.stored ?? 0}`);
    }
  }
  console.log(`assistant: ${result.text}\n`);
}

await chat("I'm allergic to peanuts.");
await chat("What should I cook tonight?");

const stored = await mem.list("user-42", { metadata: { agent: "chef" } });
console.log(`memories the chef agent stored for user-42: ${stored.length}`);
await mem.close();
