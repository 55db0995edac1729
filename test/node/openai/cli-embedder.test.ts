// A store made with `--embed` from the CLI's side: commands that never compute a vector work without
// --embed (and without its settings), and every message names CLI flags, never API options.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../../src/node.ts";
import type { MemoryEntry, StoreStats, UserProfile } from "../../../src/index.ts";
import { ScriptedOpenAIServer, hashEmbeddings } from "./openai-server.ts";
import { ensureBuilt } from "../helpers/built-package.ts";
import { jsonOf, runMoomem, type CliResult } from "../helpers/run-cli.ts";

const KEY = "sk-cli-embed-SECRET-0123456789";
const DIM = 24;

let server: ScriptedOpenAIServer;
let temp: string;
let env: Record<string, string>;

beforeAll(async () => {
  await ensureBuilt();
  server = await ScriptedOpenAIServer.start(hashEmbeddings(DIM));
  temp = mkdtempSync(join(tmpdir(), "moomem-cli-embed-"));
  env = { MOOMEM_EMBED_BASE_URL: server.baseURL, MOOMEM_EMBED_API_KEY: KEY, MOOMEM_EMBED_MODEL: "text-embedding-v3", MOOMEM_EMBED_DIM: String(DIM) };
});
afterAll(async () => {
  await server.close();
  rmSync(temp, { recursive: true, force: true });
});

/** API spellings a CLI user cannot type: an options object, or an option name in one. */
const API_HINT = /\{ *\w+: |readOnly|reembed: true|\{ *reembed|open it with/;

/** The one error line of a failed run, checked for CLI wording. */
function cliError(result: CliResult, code: string, exit: number): string {
  expect(result.stdout).toBe("");
  expect(result.code, result.stderr).toBe(exit);
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(`moomem: ${code}: `), lines[0]).toBe(true);
  expect(lines[0]).not.toMatch(API_HINT);
  return lines[0]!;
}

/** A store made with --embed holding two of alice's memories; resolves to their ids. */
async function embeddedStore(name: string): Promise<{ dir: string; ids: string[] }> {
  const dir = join(temp, name);
  const ids: string[] = [];
  for (const text of ["I live in Porto", "I am allergic to peanuts"]) {
    const added = jsonOf<{ facts: Array<{ id: string }> }>(await runMoomem(["--dir", dir, "--embed", "--json", "add", "-u", "alice", text], { env }));
    ids.push(added.facts[0]!.id);
  }
  return { dir, ids };
}

describe("a store made with --embed", () => {
  it("lists, shows history and profile, counts, exports, forgets and restores without --embed or its settings", async () => {
    const { dir, ids } = await embeddedStore("read");
    // No MOOMEM_EMBED_* at all: these commands never compute a vector.
    const bare = { MOOMEM_EMBED_BASE_URL: "", MOOMEM_EMBED_MODEL: "", MOOMEM_EMBED_DIM: "" };
    const [list, history, profile, stats, exported] = await Promise.all([
      runMoomem(["--dir", dir, "--json", "list", "-u", "alice"], { env: bare }),
      runMoomem(["--dir", dir, "--json", "history", "-u", "alice", ids[0]!], { env: bare }),
      runMoomem(["--dir", dir, "--json", "profile", "-u", "alice"], { env: bare }),
      runMoomem(["--dir", dir, "--json", "stats"], { env: bare }),
      runMoomem(["--dir", dir, "export"], { env: bare }),
    ]);
    expect(jsonOf<MemoryEntry[]>(list).map((e) => e.content)).toEqual(["I live in Porto", "I am allergic to peanuts"]);
    expect(jsonOf<MemoryEntry[]>(history).map((e) => e.id)).toEqual([ids[0]]);
    // The default extractor keys both facts (home_city, allergy_peanut): the profile shows them as slots.
    expect(
      Object.values(jsonOf<UserProfile>(profile).slots)
        .map((slot) => slot.value)
        .sort(),
    ).toEqual(["I am allergic to peanuts", "I live in Porto"]);
    expect(jsonOf<StoreStats>(stats)).toMatchObject({ total: 2, active: 2 });
    // The export names the embedder that made the vectors, not a stand-in.
    expect(exported.code, exported.stderr).toBe(0);
    const header = JSON.parse(exported.stdout.split("\n")[0]!) as { embedder: { id: string; dim: number } };
    expect(header.embedder).toEqual({ id: expect.stringContaining("text-embedding-v3") as string, dim: DIM });

    expect((await runMoomem(["--dir", dir, "forget", "-u", "alice", ids[1]!], { env: bare })).stdout).toBe("forgot 1 entry of alice\n");
    expect((await runMoomem(["--dir", dir, "restore", "-u", "alice", ids[1]!], { env: bare })).code).toBe(0);

    // Still the --embed store (forget and restore wrote and compacted it): --embed opens it as before,
    // and recall uses its vectors.
    const recalled = jsonOf<Array<{ content: string; vectorRank?: number }>>(
      await runMoomem(["--dir", dir, "--embed", "--json", "recall", "-u", "alice", "peanuts"], { env }),
    );
    expect(recalled[0]).toMatchObject({ content: "I am allergic to peanuts", vectorRank: 1 });
  });

  it("refuses add and recall without --embed, saying to pass --embed or run reembed", async () => {
    const { dir } = await embeddedStore("write");
    for (const args of [
      ["add", "-u", "alice", "I moved to Lisbon"],
      ["recall", "-u", "alice", "peanuts"],
    ]) {
      const line = cliError(await runMoomem(["--dir", dir, ...args]), "EMBEDDER_MISMATCH", 1);
      expect(line).toContain("text-embedding-v3");
      expect(line).toContain("pass --embed");
      expect(line).toContain("moomem reembed");
    }
  });

  it("a store made without --embed refuses add --embed, saying to drop --embed or run moomem --embed reembed", async () => {
    const dir = join(temp, "plain");
    expect((await runMoomem(["--dir", dir, "add", "-u", "bob", "I play the cello"])).code).toBe(0);
    const line = cliError(await runMoomem(["--dir", dir, "--embed", "add", "-u", "bob", "I play the viola"], { env }), "EMBEDDER_MISMATCH", 1);
    expect(line).toContain("without --embed");
    expect(line).toContain("moomem --embed reembed");
  });
});

describe("a store another process writes to", () => {
  it("refuses a writing command with CLI advice, and serves reading commands meanwhile", async () => {
    const dir = join(temp, "locked");
    const holder = await MemoryStore.open(dir);
    try {
      await holder.add("carol", "I prefer green tea");
      const line = cliError(await runMoomem(["--dir", dir, "add", "-u", "carol", "I prefer black tea"]), "STORE_LOCKED", 1);
      expect(line).toContain(`pid ${process.pid}`);
      expect(line).toMatch(/reading commands \(recall, list, history, profile, stats, export\) work while that process runs/);
      const listed = await runMoomem(["--dir", dir, "--json", "list", "-u", "carol"]);
      expect(jsonOf<MemoryEntry[]>(listed).map((e) => e.content)).toEqual(["I prefer green tea"]);
    } finally {
      await holder.close();
    }
  });
});
