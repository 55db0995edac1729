// Example: where moomem sits in an agent. Before each reply: recall and put the memories in the prompt.
// After it: add what the user said. A scripted function stands in for the LLM, so no key is needed.
//
// Run: npm run build && npx tsx examples/agent-loop.ts

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FixedClock, MemoryStore, formatContext, type ChatMessage } from "moomem";

/** Any chat model: messages in, text out (an OpenAI client, the Vercel AI SDK, a local model …). */
type ChatModel = (messages: ChatMessage[]) => Promise<string>;

/** A scripted stand-in for an LLM. Like a real model, it only knows what is in its prompt. */
const scriptedModel: ChatModel = (messages) => {
  const system = messages[0]?.content ?? "";
  const user = messages[messages.length - 1]?.content ?? "";
  let answer = "Noted!";
  if (/snack|dinner|cook/i.test(user)) {
    answer = /allergic to peanuts/i.test(system)
      ? "Skip the peanuts: you told me you're allergic. How about roasted chickpeas with chili instead?"
      : "Peanuts with a little chili make a great snack!";
  } else if (/umbrella|weather/i.test(user)) {
    answer = /Shenzhen/.test(system) ? "Yes: it's the rainy season in Shenzhen, take one." : "Where do you live? Then I can tell you.";
  }
  return Promise.resolve(answer);
};

/** The agent: a model plus a memory, one user message at a time. */
class Agent {
  constructor(
    private readonly memory: MemoryStore,
    private readonly model: ChatModel,
    private readonly clock: FixedClock,
  ) {}

  async reply(userId: string, message: string): Promise<string> {
    // 1. Recall what this user told us before that bears on this message.
    const hits = await this.memory.recall(userId, message, { topK: 3 });
    // Dates in the block are relative to the same clock as the store's ("1 day ago"); a real agent passes Date.now().
    const context = formatContext(hits, { now: this.clock.now() });
    console.log(context === "" ? "  (no memories recalled)" : context.replace(/^/gm, "  | "));
    // 2. Call the model with the memories in the system prompt.
    const system = ["You are a friendly personal assistant.", context].filter((part) => part !== "").join("\n\n");
    const answer = await this.model([
      { role: "system", content: system },
      { role: "user", content: message },
    ]);
    // 3. Remember the turn. The default extractor keeps the user's statements (not questions or small talk); an LLM extractor keeps only reusable facts.
    await this.memory.add(userId, [
      { role: "user", content: message },
      { role: "assistant", content: answer },
    ]);
    return answer;
  }
}

async function session(dir: string, title: string, at: string, messages: string[]): Promise<void> {
  console.log(title);
  // The example plays two days in a few milliseconds: a clock set by hand stands in for the calendar.
  // (A real agent opens the store without one and gets the system clock.)
  const clock = new FixedClock(Date.parse(at));
  // Each session is a fresh start of the agent process: the memory comes from disk.
  const memory = await MemoryStore.open(dir, { clock });
  const agent = new Agent(memory, scriptedModel, clock);
  try {
    for (const message of messages) {
      console.log(`user: ${message}`);
      console.log(`assistant: ${await agent.reply("user-42", message)}`);
    }
  } finally {
    await memory.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), "moomem-example-"));
try {
  await session(dir, "--- Monday ---", "2025-06-02T09:00:00Z", ["Hi! Just so you know, I'm allergic to peanuts.", "I live in Shenzhen, by the way."]);
  await session(dir, "--- Tuesday (agent restarted) ---", "2025-06-03T09:30:00Z", [
    "Any snack ideas? I have peanuts and chili at home.",
    "Do I need an umbrella where I live?",
  ]);
} finally {
  await rm(dir, { recursive: true, force: true });
}
