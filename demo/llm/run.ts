// Live demo with real models: facts extracted from a chat, small talk dropped, a moved city superseded, all kept across a reopen.
//
// Run from the repository root (settings and providers: demo/llm/.env.example):
//   npx tsx --env-file=demo/llm/.env demo/llm/run.ts
// In an application the same names come from "moomem" and "moomem/openai".

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, isMoomemError, type AddSummary, type ChatMessage, type MemoryEntry, type RecallHit } from "../../src/node.ts";
import { LlmExtractor, LlmJudge, OpenAIEmbedder, readProviderSettings } from "../../src/openai.ts";
import { formatContext } from "../../src/context/format-context.ts";

const USER = "demo-user";
const checks: Array<{ ok: boolean; what: string }> = [];
function check(ok: boolean, what: string): void {
  checks.push({ ok, what });
}

function showSummary(summary: AddSummary, entries: readonly MemoryEntry[]): void {
  if (summary.degraded) {
    const degraded = entries.find((e) => e.status === "unstructured" && summary.facts.some((f) => f.id === e.id));
    console.log(
      `   degraded: the text was kept whole (${String(degraded?.lifecycle?.extractionDegraded ?? degraded?.lifecycle?.embeddingDegraded ?? "see its lifecycle")})`,
    );
  }
  if (summary.facts.length === 0) console.log("   the model found nothing worth remembering: nothing stored");
  for (const fact of summary.facts) {
    const key = fact.key === undefined ? "" : `  [${fact.key}]`;
    console.log(
      `   ${fact.action === "inserted" ? "+" : "="} ${fact.kind.padEnd(10)} ${fact.content}${key}${fact.action === "duplicate" ? "  (already known)" : ""}`,
    );
    for (const id of fact.replaced ?? []) {
      const old = entries.find((e) => e.id === id);
      const reason = entries.find((e) => e.id === fact.id)?.lifecycle?.conflictReason;
      console.log(`       replaces "${old?.content ?? id}"${reason === undefined ? "" : ` — ${String(reason)}`}`);
    }
  }
}

function showHits(query: string, hits: readonly RecallHit[]): void {
  console.log(`   recall("${query}")`);
  if (hits.length === 0) console.log("     (no memories match)");
  for (const hit of hits) console.log(`     ${hit.score.toFixed(4)}  ${hit.content}${hit.degraded === true ? "  (keywords only)" : ""}`);
}

type ProviderSettings = ReturnType<typeof readProviderSettings>;
type DemoSettings = { llm: NonNullable<ProviderSettings["llm"]>; embed: NonNullable<ProviderSettings["embed"]> };

async function main(): Promise<number> {
  let providers: ProviderSettings;
  try {
    providers = readProviderSettings(process.env, { llm: true, embed: true });
  } catch (error) {
    console.error(`moomem LLM demo: ${isMoomemError(error) ? error.message : String(error)}`);
    console.error("Copy demo/llm/.env.example to demo/llm/.env, fill it in, and run:");
    console.error("  npx tsx --env-file=demo/llm/.env demo/llm/run.ts");
    return 2;
  }
  const demoDir = process.env["MOOMEM_DEMO_DIR"]?.trim();
  const settings = { llm: providers.llm!, embed: providers.embed! };
  // Without MOOMEM_DEMO_DIR the store lives in a temp folder that goes at the end, however the run ends.
  const temporary = demoDir === undefined || demoDir === "";
  const dir = temporary ? mkdtempSync(join(tmpdir(), "moomem-llm-demo-")) : demoDir;
  try {
    return await runDemo(dir, temporary, settings);
  } finally {
    if (temporary) rmSync(dir, { recursive: true, force: true });
  }
}

async function runDemo(dir: string, temporary: boolean, settings: DemoSettings): Promise<number> {
  const extractor = new LlmExtractor(settings.llm);
  const parts = {
    extractor,
    // One chat function for both: the judge reuses the extractor's connection.
    judge: new LlmJudge({ chat: extractor.chat }),
    embedder: new OpenAIEmbedder(settings.embed),
  };
  console.log("moomem LLM demo");
  console.log(`   chat model:  ${settings.llm.model} at ${settings.llm.baseURL}`);
  console.log(`   embeddings:  ${settings.embed.model} (${settings.embed.dim} dims) at ${settings.embed.baseURL}`);
  console.log(`   store:       ${dir}${temporary ? " (a temp folder, removed at the end; set MOOMEM_DEMO_DIR to keep one)" : ""}`);

  const mem = await MemoryStore.open(dir, parts);
  const chat1: ChatMessage[] = [
    { role: "user", content: "Hi! How's it going?" },
    { role: "assistant", content: "Great, thanks! How can I help?" },
    { role: "user", content: "I'm planning meals for the week. I live in Beijing, and I'm allergic to peanuts." },
    { role: "assistant", content: "Got it, no peanuts. Anything else I should know?" },
    { role: "user", content: "haha no, that's all. Lovely weather today!" },
  ];
  console.log("\n1. A chat with the agent → add(). What the model understood:");
  showSummary(await mem.add(USER, chat1), await mem.list(USER));

  console.log("\n2. Small talk → add()");
  const smallTalk = await mem.add(USER, [
    { role: "user", content: "thanks a lot, you're the best! have a nice evening :)" },
    { role: "assistant", content: "You too!" },
  ]);
  showSummary(smallTalk, await mem.list(USER));
  check(smallTalk.inserted === 0, "small talk stored nothing");

  console.log("\n3. The agent recalls before answering, and injects the memories into its prompt:");
  const before = await mem.recall(USER, "What should I cook for dinner tonight?", { topK: 3 });
  showHits("What should I cook for dinner tonight?", before);
  const prompt = formatContext(before);
  console.log(
    prompt
      .split("\n")
      .map((line) => `     | ${line}`)
      .join("\n"),
  );

  console.log("\n4. Next chat: the user moved → add(). The injected memory block is not stored again:");
  const moved = await mem.add(USER, [
    { role: "system", content: `You are a cooking assistant.\n${prompt}` },
    { role: "user", content: "Quick update: I just moved to Shenzhen last month." },
  ]);
  showSummary(moved, await mem.list(USER, { status: "all" }));

  const superseded = await mem.list(USER, { status: "superseded" });
  const active = await mem.list(USER, { status: "active" });
  const oldCity = superseded.find((e) => /beijing|北京/i.test(e.content));
  const newCity = active.find((e) => /shenzhen|深圳/i.test(e.content));
  check(oldCity !== undefined && newCity !== undefined && oldCity.supersededBy === newCity.id, "the Beijing memory was superseded by the Shenzhen one");

  console.log("\n5. Recall after the move:");
  const cityQuery = "Which city does the user live in?";
  const cityHits = await mem.recall(USER, cityQuery, { topK: 3 });
  showHits(cityQuery, cityHits);
  check(
    cityHits.some((h) => /shenzhen|深圳/i.test(h.content)) && !cityHits.some((h) => /beijing|北京/i.test(h.content)),
    "recall names Shenzhen, never Beijing",
  );
  const dinner = await mem.recall(USER, "What should I cook for dinner tonight?", { topK: 3 });
  check(
    dinner.some((h) => /peanut|花生/i.test(h.content)),
    "the peanut allergy is recalled for dinner plans",
  );

  const everything = await mem.list(USER, { status: "all" });
  await mem.close();

  console.log("\n6. close(), then open the same folder again (a restarted agent):");
  const again = await MemoryStore.open(dir, parts);
  const reopened = await again.list(USER, { status: "all" });
  const sameEntries = JSON.stringify(reopened.map((e) => [e.id, e.status, e.content])) === JSON.stringify(everything.map((e) => [e.id, e.status, e.content]));
  const cityAgain = await again.recall(USER, cityQuery, { topK: 3 });
  showHits(cityQuery, cityAgain);
  check(sameEntries, `all ${everything.length} entries are back after the reopen`);
  check(JSON.stringify(cityAgain.map((h) => h.id)) === JSON.stringify(cityHits.map((h) => h.id)), "recall gives the same answer after the reopen");
  if (newCity !== undefined) {
    const chain = await again.history(USER, newCity.id);
    console.log(`   history: ${chain.map((e) => `"${e.content}" (${e.status})`).join(" → ")}`);
  }
  await again.close();

  console.log("\nChecks:");
  for (const { ok, what } of checks) console.log(`   ${ok ? "✓" : "✗"} ${what}`);
  const failed = checks.filter((c) => !c.ok).length;
  if (failed > 0) console.log(`\n${failed} check(s) did not hold: models differ; the entries above show what this one decided.`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(isMoomemError(error) ? `moomem LLM demo failed: ${error.code}: ${error.message}` : error);
    process.exitCode = 1;
  },
);
