// No configured secret (API key, header value, query-string key) reaches a store file, an export, a summary, an
// entry, an error or the console, whole or in part, on any failure path of a real OpenAI-compatible server.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../../src/store/memory-store.ts";
import { FileBackend } from "../../../src/persistence/file/file-backend.ts";
import { isMoomemError } from "../../../src/errors.ts";
import { LlmExtractor, LlmJudge, OpenAIEmbedder } from "../../../src/openai.ts";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, ruleModel, type Reply, type ServedRequest } from "./openai-server.ts";
import { everythingVisible } from "../../openai/fake-fetch.ts";
import { base64Of, leakedFragments } from "../../openai/secret-fragments.ts";
import { makeTempDir, removeDir } from "../helpers/store-files.ts";

const KEY = "sk-srv-Lq4/Tz9+Wm2Rx7Vn5Kc8Hb3Jd6Pf1";
const HEADER_SECRET = 'org"Zt5\\Mq8Nw2Rv7Ks4';
const QUERY_SECRET = "qk-Bn6/Xe3+Ua9Gy1Lo4";
const SECRETS = [KEY, HEADER_SECRET, QUERY_SECRET];
const DIM = 16;

/** The ways a provider quotes a secret back; each failing request uses the next one. */
const ECHOES: Array<(secret: string) => string> = [
  (s) => `${"x".repeat(300 - Math.floor(s.length / 2))}${s}`, // cut in two by the 300-character excerpt
  (s) => `key ${s.slice(0, Math.ceil(s.length / 2))}…`,
  (s) => `key …${s.slice(Math.floor(s.length / 2))}`,
  (s) => `GET ?key=${encodeURIComponent(s)}`,
  (s) => `basic ${base64Of(s)}`,
  (s) => `detail ${JSON.stringify(s)}`,
];
let echoes = 0;

/** What a talkative provider says: each secret in the next echo form, plus the request it got, quoted back. */
function echoOf(request: ServedRequest): string {
  const form = ECHOES[echoes++ % ECHOES.length]!;
  const straddler = SECRETS[Math.floor(echoes / ECHOES.length) % SECRETS.length]!;
  const quoted = [straddler, ...SECRETS.filter((s) => s !== straddler)].map(form).join(" ");
  return `${quoted} (authorization: ${String(request.headers["authorization"])}; x-tenant: ${String(request.headers["x-tenant"])}; url: ${request.path})`;
}

type Mode =
  | "ok"
  | "http-401"
  | "http-403"
  | "http-404" // configuration: the call fails, nothing stored
  | "http-400"
  | "http-429"
  | "http-500"
  | "http-503" // passing: the add degrades
  | "html-502"
  | "not-json-200"
  | "garbage-echo"
  | "refusal-echo"
  | "content-echo"
  | "timeout"
  | "drop";

const CHAT_MODES: Mode[] = [
  "http-401",
  "http-403",
  "http-404",
  "http-400",
  "http-429",
  "http-500",
  "http-503",
  "html-502",
  "not-json-200",
  "garbage-echo",
  "refusal-echo",
  "content-echo",
  "timeout",
  "drop",
];
const EMBED_MODES: Mode[] = ["http-401", "http-403", "http-404", "http-400", "http-429", "http-500", "html-502", "not-json-200", "timeout", "drop"];

const model = ruleModel([
  { pattern: /I live in (\w+)/i, content: (m) => `User lives in ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /allergic to (\w+)/i, content: (m) => `User is allergic to ${m[1]}`, kind: "fact", key: "allergy" },
]);
const embed = hashEmbeddings(DIM);

function failing(mode: Mode, request: ServedRequest): Reply {
  const status = /^http-(\d+)$/.exec(mode);
  if (status !== null) return { status: Number(status[1]), json: { error: { message: echoOf(request), code: "echo" } } };
  switch (mode) {
    case "html-502":
      return { status: 502, text: `<html><body>${echoOf(request)}</body></html>`, headers: { "content-type": "text/html" } };
    case "not-json-200":
      return { text: `<html>${echoOf(request)}</html>`, headers: { "content-type": "text/html" } };
    case "garbage-echo":
      return chatReply(`Sure! ${echoOf(request)}`);
    case "refusal-echo":
      return { json: { choices: [{ index: 0, message: { role: "assistant", content: null, refusal: echoOf(request) }, finish_reason: "stop" }] } };
    case "content-echo":
      return chatReply(JSON.stringify({ facts: [{ content: `User key is ${KEY} and ${QUERY_SECRET}`, kind: "fact", key: "api_key" }] }));
    case "timeout":
      return { hang: true };
    case "drop":
      return { destroy: true };
    default:
      throw new Error(`not a failing mode: ${mode}`);
  }
}

let server: ScriptedOpenAIServer;
let chatMode: Mode = "ok";
let embedMode: Mode = "ok";
let dir = "";

beforeAll(async () => {
  dir = makeTempDir("secrets");
  server = await ScriptedOpenAIServer.start((request) => {
    if (request.path.startsWith("/v1/embeddings")) return embedMode === "ok" ? embed(request) : failing(embedMode, request);
    return chatMode === "ok" ? chatReply(model(request)) : failing(chatMode, request);
  });
});
afterAll(async () => {
  await server.close();
  removeDir(dir);
});

function adapters(baseURL: string): { extractor: LlmExtractor; judge: LlmJudge; embedder: OpenAIEmbedder } {
  const url = `${baseURL}?api-key=${encodeURIComponent(QUERY_SECRET)}`;
  const connection = { baseURL: url, apiKey: KEY, headers: { "x-tenant": HEADER_SECRET }, timeoutMs: 300, maxRetries: 1, retryDelayMs: 1 };
  return {
    extractor: new LlmExtractor({ ...connection, model: "deepseek-chat" }),
    judge: new LlmJudge({ ...connection, model: "deepseek-chat" }),
    embedder: new OpenAIEmbedder({ ...connection, model: "text-embedding-v3", dim: DIM }),
  };
}

function filesUnder(path: string): string[] {
  return readdirSync(path).flatMap((name) => {
    const full = join(path, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** Runs `fn` with every console method recorded (the library must print nothing, least of all a secret). */
async function capturingConsole<T>(printed: string[], fn: () => Promise<T>): Promise<T> {
  const methods = ["log", "info", "warn", "error", "debug", "trace"] as const;
  const saved = methods.map((name) => console[name]);
  for (const name of methods) console[name] = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
  try {
    return await fn();
  } finally {
    methods.forEach((name, i) => (console[name] = saved[i]!));
  }
}

function leaks(text: string): string[] {
  return SECRETS.flatMap((secret) => leakedFragments(text, secret));
}

describe("secrets never reach what the store keeps or shows", () => {
  it("every failure path of chat and embeddings, then reading, exporting, re-extracting and reopening", async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const printed: string[] = [];
    await capturingConsole(printed, async () => {
      const mem = await MemoryStore.open(dir, { ...adapters(server.baseURL), backend: new FileBackend(dir) });
      let n = 0;
      const attempt = async (): Promise<void> => {
        try {
          seen.push(JSON.stringify(await mem.add("u1", `I live in City${n++} and I'm allergic to nuts${n}`)));
        } catch (error) {
          errors.push(error);
        }
      };
      // Every body-bearing mode once per echo form; timeouts and dropped connections have no body to vary.
      for (const mode of CHAT_MODES) {
        for (let round = 0; round < (mode === "timeout" || mode === "drop" ? 1 : ECHOES.length); round++) {
          chatMode = mode;
          await attempt();
          // A success between failures keeps the three-failures-in-a-row guard from refusing the next path.
          chatMode = "ok";
          await attempt();
        }
      }
      for (const mode of EMBED_MODES) {
        for (let round = 0; round < (mode === "timeout" || mode === "drop" ? 1 : ECHOES.length); round++) {
          embedMode = mode;
          await attempt();
          try {
            seen.push(JSON.stringify(await mem.recall("u1", "where does the user live?")));
          } catch (error) {
            errors.push(error);
          }
          embedMode = "ok";
        }
      }
      // Three passing failures in a row: the refusal's message must be clean too.
      for (const mode of ["http-500", "garbage-echo", "http-429"] as const) {
        chatMode = mode;
        await attempt();
      }
      chatMode = "ok";
      seen.push(JSON.stringify(await mem.reextract()));
      seen.push(JSON.stringify(await mem.list("u1", { status: "all" })), JSON.stringify(await mem.stats()), JSON.stringify(await mem.profile("u1")));
      seen.push(JSON.stringify(await mem.recall("u1", "where does the user live?", { topK: 50 })));
      for await (const line of mem.export()) seen.push(line);
      await mem.close();

      // A server that is gone: the runtime's own network error (Deno's quotes the whole URL, query included).
      const gone = await ScriptedOpenAIServer.start(() => chatReply("{}"));
      const goneURL = gone.baseURL;
      await gone.close();
      const offline = await MemoryStore.open(":memory:", adapters(goneURL));
      seen.push(JSON.stringify(await offline.add("u2", "I live in Nowhere")), JSON.stringify(await offline.list("u2")));
      await offline.close();
    });

    // Every path was taken: configuration errors thrown, passing failures degraded, the guard refused once.
    expect(errors.some((e) => isMoomemError(e, "PROVIDER_CONFIG"))).toBe(true);
    expect(errors.some((e) => isMoomemError(e, "EXTRACTION_FAILURE"))).toBe(true);
    const degraded = seen.filter((s) => s.includes("extraction_degraded") || s.includes("embedding_degraded")).join("\n");
    expect(degraded).toMatch(/HTTP 500/);
    expect(degraded).toMatch(/timed out/);
    expect(degraded).toMatch(/failed before any HTTP answer/);
    expect(degraded).toMatch(/\[redacted\]/);
    expect(seen.join("\n")).toContain("User key is [redacted]");
    // The secrets did travel, where they belong: in the request headers and URL.
    expect(server.requests.every((r) => r.headers["authorization"] === `Bearer ${KEY}` && r.headers["x-tenant"] === HEADER_SECRET)).toBe(true);
    expect(server.requests.every((r) => r.path.endsWith(`?api-key=${encodeURIComponent(QUERY_SECRET)}`))).toBe(true);

    expect(leaks(seen.join("\n"))).toEqual([]);
    for (const error of errors) expect(leaks(everythingVisible(error))).toEqual([]);
    expect(printed).toEqual([]);
    const files = filesUnder(dir);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) expect(leaks(readFileSync(file, "utf8"))).toEqual([]);
  }, 120_000);
});
