// demo/llm/run.ts end to end against the local scripted OpenAI server (the real providers need network and keys).

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, ruleModel } from "./openai-server.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsx = join(root, "node_modules", ".bin", "tsx");
const demo = join(root, "demo", "llm", "run.ts");
const KEY = "sk-demo-SECRET-feedfacecafebeef";

let server: ScriptedOpenAIServer;
let dir: string;

const model = ruleModel([
  { pattern: /allergic to (\w+)/i, content: (m) => `User is allergic to ${m[1]}`, kind: "fact", key: "allergy_peanuts" },
  { pattern: /I live in (\w+)/i, content: (m) => `User lives in ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /moved to (\w+)/i, content: (m) => `User has moved to ${m[1]}`, kind: "fact", key: "home_city" },
]);

beforeAll(async () => {
  server = await ScriptedOpenAIServer.start((request) => (request.path === "/v1/embeddings" ? hashEmbeddings(64)(request) : chatReply(model(request))));
  dir = mkdtempSync(join(tmpdir(), "moomem-demo-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the demo asynchronously (a synchronous child would block this process's server). */
function runDemo(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR"]) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return new Promise((resolve) => {
    execFile(tsx, [demo], { cwd: root, env: { ...base, ...env }, timeout: 240_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function filesUnder(path: string): string[] {
  return readdirSync(path).flatMap((name) => {
    const full = join(path, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe("demo/llm/run.ts", () => {
  it("fails with a clear message when the settings are missing", async () => {
    const { code, stdout, stderr } = await runDemo({ MOOMEM_LLM_BASE_URL: "https://api.deepseek.com/v1", MOOMEM_EMBED_DIM: "many" });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("MOOMEM_LLM_MODEL is not set");
    expect(stderr).toContain("MOOMEM_LLM_API_KEY is not set (MOOMEM_LLM_BASE_URL is not a local server)");
    expect(stderr).toContain('MOOMEM_EMBED_DIM must be the embedding length, a positive integer (got "many")');
    expect(stderr).toContain("Copy demo/llm/.env.example to demo/llm/.env");
  });

  it("stores facts, drops small talk, supersedes the moved city and finds it all after a reopen", async () => {
    const { code, stdout, stderr } = await runDemo({
      MOOMEM_LLM_BASE_URL: server.baseURL,
      MOOMEM_LLM_API_KEY: KEY,
      MOOMEM_LLM_MODEL: "deepseek-chat",
      MOOMEM_EMBED_BASE_URL: server.baseURL,
      MOOMEM_EMBED_API_KEY: KEY,
      MOOMEM_EMBED_MODEL: "text-embedding-v3",
      MOOMEM_EMBED_DIM: "64",
      MOOMEM_EMBED_BATCH_SIZE: "10",
      MOOMEM_DEMO_DIR: dir,
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("+ fact       User lives in Beijing  [home_city]");
    expect(stdout).toContain("+ fact       User is allergic to peanuts  [allergy_peanuts]");
    expect(stdout).toContain('replaces "User lives in Beijing" — same home_city, new value');
    for (const line of [
      "✓ small talk stored nothing",
      "✓ the Beijing memory was superseded by the Shenzhen one",
      "✓ recall names Shenzhen, never Beijing",
      "✓ the peanut allergy is recalled for dinner plans",
      "✓ all 3 entries are back after the reopen",
      "✓ recall gives the same answer after the reopen",
    ]) {
      expect(stdout).toContain(line);
    }
    expect(stdout).not.toContain("✗");
    expect(stdout).not.toContain(KEY);
    for (const file of filesUnder(dir)) expect(readFileSync(file, "utf8")).not.toContain(KEY);
    // The injected <moomem-context> block in step 4 was never sent to the model as something to extract.
    const extractions = server.calls("chat/completions").filter((r) => JSON.stringify(r.body).includes("<conversation>"));
    expect(extractions.length).toBe(3);
    expect(JSON.stringify(extractions[2]!.body)).not.toContain("moomem-context");
  });

  it("leaves no temp folder behind when it made its own (no MOOMEM_DEMO_DIR)", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "moomem-demo-tmp-"));
    try {
      const { code, stdout, stderr } = await runDemo({
        TMPDIR: tmp,
        MOOMEM_LLM_BASE_URL: server.baseURL,
        MOOMEM_LLM_API_KEY: KEY,
        MOOMEM_LLM_MODEL: "deepseek-chat",
        MOOMEM_EMBED_BASE_URL: server.baseURL,
        MOOMEM_EMBED_API_KEY: KEY,
        MOOMEM_EMBED_MODEL: "text-embedding-v3",
        MOOMEM_EMBED_DIM: "64",
      });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toMatch(/store: {7}\S*moomem-llm-demo-\S+ \(a temp folder, removed at the end; set MOOMEM_DEMO_DIR to keep one\)/);
      // (tsx keeps its own cache there: only the demo's folders count.)
      const demoFolders = (): string[] => readdirSync(tmp).filter((name) => name.startsWith("moomem-"));
      expect(demoFolders()).toEqual([]);
      // A run that stops early (missing settings) makes none.
      expect((await runDemo({ TMPDIR: tmp })).code).toBe(2);
      expect(demoFolders()).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
