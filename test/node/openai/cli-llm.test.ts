// `moomem --llm --embed …` against the local scripted OpenAI server: the flags read MOOMEM_* settings from the environment.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ScriptedOpenAIServer, chatReply, hashEmbeddings, ruleModel, type Reply, type ServedRequest } from "./openai-server.ts";
import { leakedFragments } from "../../openai/secret-fragments.ts";
import { ensureBuilt } from "../helpers/built-package.ts";
import { jsonOf, runMoomem } from "../helpers/run-cli.ts";

const KEY = "sk-cli-SECRET-0123456789abcdef";
const model = ruleModel([
  { pattern: /I live in (\w+)/i, content: (m) => `User lives in ${m[1]}`, kind: "fact", key: "home_city" },
  { pattern: /moved to (\w+)/i, content: (m) => `User has moved to ${m[1]}`, kind: "fact", key: "home_city" },
]);

let server: ScriptedOpenAIServer;
let chatDown = false;
/** When set, how the server answers every request instead (the secrets test). */
let failure: ((request: ServedRequest) => Reply) | null = null;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  await ensureBuilt();
  server = await ScriptedOpenAIServer.start((request) =>
    failure !== null
      ? failure(request)
      : request.path.startsWith("/v1/embeddings")
        ? hashEmbeddings(32)(request)
        : chatDown
          ? { status: 400, json: { error: { message: "model overloaded" } } }
          : chatReply(model(request)),
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
    const summary = jsonOf<{ processed: number; converted: number; facts: Array<{ content: string }> }>(
      await runMoomem([...flags, "reextract", "-u", "u2"], { env }),
    );
    expect(summary).toMatchObject({ processed: 1, converted: 1 });
    expect(summary.facts.map((f) => f.content)).toEqual(["User lives in Oslo"]);
    const active = jsonOf<Array<{ content: string }>>(await runMoomem([...flags, "list", "-u", "u2", "--status", "active"], { env }));
    expect(active.map((e) => e.content)).toEqual(["User lives in Oslo"]);
  });

  it("exits 2 naming every missing setting (for a command that uses them: stats never does)", async () => {
    const r = await runMoomem(["--dir", dir, "--llm", "--embed", "add", "-u", "u1", "I live in Rome"], {
      env: { MOOMEM_LLM_BASE_URL: "https://api.deepseek.com/v1" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^moomem: INVALID_ARGUMENT: /);
    expect(r.stderr).toContain("MOOMEM_LLM_MODEL is not set");
    expect(r.stderr).toContain("MOOMEM_LLM_API_KEY is not set");
    expect(r.stderr).toContain("MOOMEM_EMBED_DIM is not set");
    const stats = await runMoomem(["--dir", dir, "--llm", "--embed", "--json", "stats"], { env: { MOOMEM_LLM_BASE_URL: "https://api.deepseek.com/v1" } });
    expect(stats.code, stats.stderr).toBe(0);
  });
});

describe("moomem --llm --embed never prints or stores a secret", () => {
  const QUERY_KEY = "qk-cli-Hv7/Pn3+Ws8Dm2";
  const PASSWORD = "pw-cli-Rk5Tz8Lq3Xn6";
  const secrets = [KEY, QUERY_KEY, PASSWORD];
  const leaks = (text: string): string[] => secrets.flatMap((secret) => leakedFragments(text, secret));
  /** Quotes back what the server got, the way a chatty error page does, past the 300-character excerpt too. */
  const echo = (request: ServedRequest): string =>
    `${"x".repeat(280)} ${String(request.headers["authorization"])} ${request.path} ${encodeURIComponent(KEY)} ${KEY.slice(0, 20)}`;

  const paths: Array<[string, (request: ServedRequest) => Reply, RegExp]> = [
    ["a rejected key (401)", (r) => ({ status: 401, json: { error: { message: echo(r) } } }), /PROVIDER_CONFIG: .*HTTP 401/],
    ["a failing provider (500)", (r) => ({ status: 500, json: { error: { message: echo(r) } } }), /"degraded": true/],
    ["an error page that is not JSON", (r) => ({ status: 502, text: `<html>${echo(r)}</html>` }), /"degraded": true/],
    ["a dropped connection", () => ({ destroy: true }), /"degraded": true/],
  ];
  for (const [name, reply, outcome] of paths) {
    it(`${name}: stdout, stderr and the store files hold no part of the key or the query key`, async () => {
      const folder = join(dir, `secrets-${name.replace(/\W+/g, "-")}`);
      const base = `${server.baseURL}?api-key=${encodeURIComponent(QUERY_KEY)}`;
      const secretEnv = { ...env, MOOMEM_LLM_BASE_URL: base, MOOMEM_EMBED_BASE_URL: base };
      failure = reply;
      let run;
      try {
        run = await runMoomem(["--dir", folder, "--json", "--llm", "--embed", "add", "-u", "u1", "I live in Oslo"], { env: secretEnv });
      } finally {
        failure = null;
      }
      expect(`${run.stdout}\n${run.stderr}`).toMatch(outcome);
      expect(leaks(run.stdout + run.stderr)).toEqual([]);
      const files = (() => {
        try {
          return readdirSync(join(folder, "moomem"));
        } catch {
          return [];
        }
      })();
      for (const f of files) expect(leaks(readFileSync(join(folder, "moomem", f), "utf8"))).toEqual([]);
      const exported = await runMoomem(["--dir", folder, "--llm", "--embed", "export"], { env: secretEnv });
      expect(leaks(exported.stdout + exported.stderr)).toEqual([]);
    }, 60_000);
  }

  it("a password in MOOMEM_LLM_BASE_URL is refused without being printed", async () => {
    const withPassword = server.baseURL.replace("http://", `http://svc:${PASSWORD}@`);
    const run = await runMoomem(["--dir", join(dir, "userinfo"), "--llm", "add", "-u", "u1", "I live in Oslo"], {
      env: { ...env, MOOMEM_LLM_BASE_URL: withPassword },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^moomem: INVALID_ARGUMENT: .*baseURL must not contain a user name or password/);
    expect(leaks(run.stdout + run.stderr)).toEqual([]);
  }, 60_000);
});
