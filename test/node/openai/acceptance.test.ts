// Issue 5 acceptance (AC-03, AC-04, AC-05, LLM budget): MemoryStore with the OpenAI adapters against a local server.
// (That no secret leaks on any failure path is test/node/openai/secrets.test.ts.)

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll, beforeEach } from "vitest";
import { MemoryStore } from "../../../src/store/memory-store.ts";
import { FileBackend } from "../../../src/persistence/file/file-backend.ts";
import { isMoomemError } from "../../../src/errors.ts";
import { LlmExtractor, LlmJudge, OpenAIEmbedder } from "../../../src/openai.ts";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, ruleModel, type Reply, type ServedRequest } from "./openai-server.ts";
import { CHIT_CHAT } from "../../helpers/scripted.ts";

const KEY = "sk-accept-SECRET-c0ffee0123456789";
const DIM = 32;

/** What the chat endpoint does right now. */
type ChatMode = "ok" | "500" | "garbage" | "garbage-once" | "timeout";

const model = ruleModel([
  { pattern: /allergic to (\w+)/i, content: (m) => `User is allergic to ${m[1]}`, kind: "fact", key: "allergy" },
  { pattern: /I live in (\w+)/i, content: (m) => `User lives in ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /I moved to (\w+)/i, content: (m) => `User has moved to ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /I work at (\w+)/i, content: (m) => `User works at ${m[1]}`, kind: "fact", key: "employer" },
]);

let server: ScriptedOpenAIServer;
let chatMode: ChatMode = "ok";

const embed = hashEmbeddings(DIM);

function chat(request: ServedRequest): Reply {
  switch (chatMode) {
    case "ok":
      return chatReply(model(request));
    case "500":
      return { status: 500, json: { error: { message: "The server had an error while processing your request." } } };
    case "garbage":
      return chatReply("Sure! The user seems to like peanuts?");
    case "garbage-once":
      chatMode = "ok";
      return chatReply("{facts: oops");
    case "timeout":
      return { hang: true };
  }
}

beforeAll(async () => {
  server = await ScriptedOpenAIServer.start((request) => {
    if (request.path === "/v1/embeddings") {
      return embed(request);
    }
    return chat(request);
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  chatMode = "ok";
  server.requests.length = 0;
});

// The "timeout" mode needs a per-request timeout that a hanging server reaches; every other request must
// answer within it, so it is far above a loopback round trip even on a loaded machine (~5 ms alone).
const TIMEOUT_MS = 2000;

function adapters(baseURL = server.baseURL): { extractor: LlmExtractor; judge: LlmJudge; embedder: OpenAIEmbedder } {
  const connection = { baseURL, apiKey: KEY, model: "deepseek-chat", timeoutMs: TIMEOUT_MS, maxRetries: 1, retryDelayMs: 1 };
  return {
    extractor: new LlmExtractor(connection),
    judge: new LlmJudge(connection),
    embedder: new OpenAIEmbedder({ baseURL, apiKey: KEY, model: "text-embedding-v3", dim: DIM, batchSize: 10, timeoutMs: TIMEOUT_MS, maxRetries: 0 }),
  };
}

function chatCalls(): number {
  return server.calls("chat/completions").length;
}

const chitChat = CHIT_CHAT;

describe("AC-03: chit-chat is dropped, the one fact is kept", () => {
  it("20 chit-chat lines and one allergy in one transcript store exactly one fact", async () => {
    const mem = await MemoryStore.open(":memory:", adapters());
    const transcript = [...chitChat.slice(0, 10), "I'm allergic to peanuts", ...chitChat.slice(10)].flatMap((line) => [
      { role: "user", content: line },
      { role: "assistant", content: "I see! Tell me more." },
    ]);
    const summary = await mem.add("u1", transcript);
    expect(summary).toMatchObject({ extracted: 1, inserted: 1, degraded: false });
    const entries = await mem.list("u1");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ content: "User is allergic to peanuts", kind: "fact", key: "allergy", status: "active" });
    expect(entries[0]!.lifecycle).toMatchObject({ extractor: "llm", sourceSpan: "allergic to peanuts" });
    expect(chatCalls()).toBe(1);
    await mem.close();
  });

  it("20 chit-chat adds store nothing; the allergy add stores one fact", async () => {
    const mem = await MemoryStore.open(":memory:", adapters());
    for (const line of chitChat) expect(await mem.add("u1", line)).toMatchObject({ extracted: 0, inserted: 0, degraded: false });
    expect(await mem.add("u1", "I'm allergic to peanuts")).toMatchObject({ extracted: 1, inserted: 1 });
    expect((await mem.list("u1")).map((e) => e.content)).toEqual(["User is allergic to peanuts"]);
    expect((await mem.stats()).total).toBe(1);
    const hits = await mem.recall("u1", "what is the user allergic to?");
    expect(hits.map((h) => h.content)).toEqual(["User is allergic to peanuts"]);
    await mem.close();
  });
});

describe("AC-04: a moved city supersedes the old one", () => {
  it("Beijing is superseded with the judge's reason; recall returns Shenzhen only", async () => {
    const mem = await MemoryStore.open(":memory:", adapters());
    const first = await mem.add("u1", "I live in Beijing");
    const beijingId = first.facts[0]!.id;
    const before = chatCalls();
    const second = await mem.add("u1", "I moved to Shenzhen");
    expect(chatCalls() - before).toBe(2); // one extraction, one judgement: the add's whole budget
    expect(second).toMatchObject({ inserted: 1, superseded: 1 });
    const shenzhenId = second.facts[0]!.id;
    expect(second.facts[0]!.replaced).toEqual([beijingId]);

    const [beijing] = await mem.list("u1", { status: "superseded" });
    expect(beijing).toMatchObject({ id: beijingId, content: "User lives in Beijing", supersededBy: shenzhenId });
    const [shenzhen] = await mem.list("u1", { status: "active" });
    expect(shenzhen!.lifecycle).toMatchObject({ judge: "llm", conflictReason: "same home_city, new value" });

    const hits = await mem.recall("u1", "which city does the user live in, Beijing or Shenzhen?", { topK: 10 });
    expect(hits.map((h) => h.content)).toEqual(["User has moved to Shenzhen"]);
    expect((await mem.history("u1", shenzhenId)).map((e) => e.content)).toEqual(["User lives in Beijing", "User has moved to Shenzhen"]);
    const judgeCall = server.calls("chat/completions").at(-1)!;
    expect(JSON.stringify(judgeCall.body["messages"])).toContain("User lives in Beijing");
    await mem.close();
  });

  it("when extraction needed its retry, judging falls back offline (2 model calls per add at most)", async () => {
    const mem = await MemoryStore.open(":memory:", adapters());
    await mem.add("u1", "I live in Beijing");
    chatMode = "garbage-once";
    const before = chatCalls();
    const summary = await mem.add("u1", "I moved to Shenzhen");
    expect(chatCalls() - before).toBe(2); // the bad answer and its retry; no judge call
    expect(summary.degraded).toBe(false);
    const [newest] = (await mem.list("u1", { status: "active" })).slice(-1);
    expect(newest).toMatchObject({ content: "User has moved to Shenzhen" });
    expect(newest!.lifecycle!.judge).toBe("similarity-fallback");
    await mem.close();
  });
});

describe("AC-05: a failing model degrades, then refuses, then re-extracts", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "moomem-ac05-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("500 and garbage-twice store unstructured entries that recall finds; the third failure is EXTRACTION_FAILURE; reextract recovers", async () => {
    const mem = await MemoryStore.open(dir, { ...adapters(), backend: new FileBackend(dir) });

    chatMode = "500";
    const a = await mem.add("u1", "I'm allergic to peanuts, by the way");
    expect(a).toMatchObject({ degraded: true, inserted: 1 });
    expect(server.calls("chat/completions")).toHaveLength(2); // the 500 and its one HTTP retry
    const [entryA] = await mem.list("u1", { status: "unstructured" });
    expect(entryA!.content).toBe("I'm allergic to peanuts, by the way");
    expect(entryA!.lifecycle!.extractionDegraded).toMatch(/HTTP 500/);

    chatMode = "garbage";
    const before = chatCalls();
    const b = await mem.add("u1", "I live in Beijing");
    expect(chatCalls() - before).toBe(2); // invalid JSON, retried once, then degraded
    expect(b.degraded).toBe(true);
    expect((await mem.list("u1", { status: "unstructured" })).at(-1)!.lifecycle!.extractionDegraded).toMatch(/unusable answers twice/);

    expect((await mem.recall("u1", "peanuts allergy")).map((h) => h.id)).toContain(entryA!.id);
    expect((await mem.recall("u1", "Beijing", { mode: "keyword" }))[0]!.content).toBe("I live in Beijing");

    chatMode = "timeout";
    const third = await mem.add("u1", "I work at Initech").then(
      () => null,
      (error: unknown) => error,
    );
    expect(isMoomemError(third, "EXTRACTION_FAILURE")).toBe(true);
    expect((third as Error).message).toMatch(new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    expect((await mem.list("u1")).map((e) => e.content)).not.toContain("I work at Initech");

    chatMode = "ok";
    const redo = await mem.reextract("u1");
    expect(redo).toMatchObject({ processed: 2, converted: 2, failed: 0 });
    expect(await mem.list("u1", { status: "unstructured" })).toHaveLength(0);
    expect((await mem.list("u1", { status: "active" })).map((e) => e.content).sort()).toEqual(["User is allergic to peanuts", "User lives in Beijing"]);
    const hits = await mem.recall("u1", "what is the user allergic to?");
    expect(hits[0]!.content).toBe("User is allergic to peanuts");
    await mem.close();

    const reopened = await MemoryStore.open(dir, { ...adapters(), backend: new FileBackend(dir) });
    expect(await reopened.list("u1", { status: "active" })).toHaveLength(2);
    await reopened.close();
  });

  it("a server that is down degrades too, and recall still finds the text by keywords", async () => {
    const gone = await ScriptedOpenAIServer.start(() => chatReply("{}"));
    const baseURL = gone.baseURL;
    await gone.close();
    const mem = await MemoryStore.open(":memory:", adapters(baseURL));
    const summary = await mem.add("u1", "my sister's wedding is in Lisbon in June");
    expect(summary.degraded).toBe(true);
    const [entry] = await mem.list("u1");
    expect(entry!.status).toBe("unstructured");
    expect(entry!.lifecycle!.extractionDegraded).toMatch(/failed before any HTTP answer/);
    expect(entry!.lifecycle!.embeddingDegraded).toMatch(/failed before any HTTP answer/);
    const hits = await mem.recall("u1", "wedding Lisbon");
    expect(hits[0]!.id).toBe(entry!.id);
    expect(hits[0]!.degraded).toBe(true);
    await mem.close();
  });
});

describe("a wrong configuration fails the first call, a passing failure degrades (issue 15)", () => {
  it("a rejected key: the first add rejects with PROVIDER_CONFIG and nothing is stored; no retry was sent", async () => {
    const mem = await MemoryStore.open(":memory:", adapters());
    const previous = server.handler;
    server.handler = () => ({ status: 401, json: { error: { message: "Incorrect API key provided: sk-acc***789", code: "invalid_api_key" } } });
    try {
      const error = await mem.add("u1", "I live in Beijing").then(
        () => null,
        (e: unknown) => e,
      );
      expect(isMoomemError(error, "PROVIDER_CONFIG")).toBe(true);
      expect((error as Error).message).toMatch(/HTTP 401.*check apiKey/);
      expect(server.requests).toHaveLength(1);
      expect(await mem.list("u1", { status: "all" })).toEqual([]);
    } finally {
      server.handler = previous;
    }
    await mem.close();
  });

  it("an embedder whose dim is not the model's: add and recall reject with PROVIDER_CONFIG naming the right dim", async () => {
    const { extractor, judge } = adapters();
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: KEY, model: "text-embedding-v3", dim: DIM * 2, maxRetries: 0 });
    const mem = await MemoryStore.open(":memory:", { extractor, judge, embedder });
    const error = await mem.add("u1", "I live in Beijing").then(
      () => null,
      (e: unknown) => e,
    );
    expect(isMoomemError(error, "PROVIDER_CONFIG")).toBe(true);
    expect((error as Error).message).toContain(`set dim: ${DIM}`);
    expect(await mem.list("u1", { status: "all" })).toEqual([]);
    const recallError = await mem.recall("u1", "Beijing").then(
      () => null,
      (e: unknown) => e,
    );
    expect(isMoomemError(recallError, "PROVIDER_CONFIG")).toBe(true);
    await mem.close();
  });
});
