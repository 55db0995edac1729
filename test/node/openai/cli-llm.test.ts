// `moomem --llm --embed …` against the local scripted OpenAI server: the flags read MOOMEM_* settings from the environment.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, ruleModel } from "./openai-server.ts";
import { ensureBuilt } from "../helpers/built-package.ts";
import { jsonOf, runMoomem } from "../helpers/run-cli.ts";

const KEY = "sk-cli-SECRET-0123456789abcdef";
const model = ruleModel([
  { pattern: /I live in (\w+)/i, content: (m) => `User lives in ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /moved to (\w+)/i, content: (m) => `User has moved to ${m[1]}`, kind: "fact", key: "home_city" },
]);

let server: ScriptedOpenAIServer;
let chatDown = false;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  await ensureBuilt();
  server = await ScriptedOpenAIServer.start((request) =>
    request.path === "/v1/embeddings" ? hashEmbeddings(32)(request) : chatDown ? { status: 400, json: { error: { message: "model overloaded" } } } : chatReply(model(request)),
  );
  dir = mkdtempSync(join(tmpdir(), "moomem-cli-llm-"));
  env = {
    MOOMEM_LLM_BASE_URL: server.baseURL,
    MOOMEM_LLM_API_KEY: KEY,
    MOOMEM_LLM_MODEL: "deepseek-chat",
    MOOMEM_EMBED_BASE_URL: server.baseURL,
    MOOMEM_EMBED_API_KEY: KEY,
    MOOMEM_EMBED_MODEL: "text-embedding-v3",
    MOOMEM_EMBED_DIM: "32",
  };
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("moomem --llm --embed", () => {
  it("extracts facts and supersedes a moved city through the configured providers", async () => {
    const flags = ["--dir", dir, "--json", "--llm", "--embed"];
    const first = jsonOf<{ inserted: number; facts: Array<{ content: string; key: string }> }>(
      await runMoomem([...flags, "add", "-u", "u1", "hello there! I live in Beijing"], { env }),
    );
    expect(first.facts).toMatchObject([{ content: "User lives in Beijing", key: "home_city" }]);
    const second = jsonOf<{ superseded: number }>(await runMoomem([...flags, "add", "-u", "u1", "I moved to Shenzhen"], { env }));
    expect(second.superseded).toBe(1);
    const list = jsonOf<Array<{ content: string; status: string }>>(await runMoomem([...flags, "list", "-u", "u1"], { env }));
    expect(list.map((e) => [e.content, e.status])).toEqual([
      ["User lives in Beijing", "superseded"],
      ["User has moved to Shenzhen", "active"],
    ]);
    for (const f of readdirSync(join(dir, "moomem"))) expect(readFileSync(join(dir, "moomem", f), "utf8")).not.toContain(KEY);
  });

  it("reextract turns what a failed extraction kept whole into facts", async () => {
    const flags = ["--dir", join(dir, "reextract"), "--json", "--llm", "--embed"];
    chatDown = true;
    const degraded = jsonOf<{ degraded: boolean }>(await runMoomem([...flags, "add", "-u", "u2", "I live in Oslo"], { env }));
    expect(degraded.degraded).toBe(true);
    chatDown = false;
    const summary = jsonOf<{ processed: number; converted: number; facts: Array<{ content: string }> }>(await runMoomem([...flags, "reextract", "-u", "u2"], { env }));
    expect(summary).toMatchObject({ processed: 1, converted: 1 });
    expect(summary.facts.map((f) => f.content)).toEqual(["User lives in Oslo"]);
    const active = jsonOf<Array<{ content: string }>>(await runMoomem([...flags, "list", "-u", "u2", "--status", "active"], { env }));
    expect(active.map((e) => e.content)).toEqual(["User lives in Oslo"]);
  });

  it("exits 2 naming every missing setting (for a command that uses them: stats never does)", async () => {
    const r = await runMoomem(["--dir", dir, "--llm", "--embed", "add", "-u", "u1", "I live in Rome"], { env: { MOOMEM_LLM_BASE_URL: "https://api.deepseek.com/v1" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^moomem: INVALID_ARGUMENT: /);
    expect(r.stderr).toContain("MOOMEM_LLM_MODEL is not set");
    expect(r.stderr).toContain("MOOMEM_LLM_API_KEY is not set");
    expect(r.stderr).toContain("MOOMEM_EMBED_DIM is not set");
    const stats = await runMoomem(["--dir", dir, "--llm", "--embed", "--json", "stats"], { env: { MOOMEM_LLM_BASE_URL: "https://api.deepseek.com/v1" } });
    expect(stats.code, stats.stderr).toBe(0);
  });
});
