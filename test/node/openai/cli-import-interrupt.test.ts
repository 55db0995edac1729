// Ctrl-C during `moomem import` says whether anything was imported: nothing while the file is still
// being read; once it is read the import finishes (all or nothing), and a second Ctrl-C stops at once.
// The local embedding server holds the import at a known point, so no step depends on timing.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../../src/node.ts";
import { ScriptedOpenAIServer, hashEmbeddings, type Reply, type ServedRequest } from "./openai-server.ts";
import { CLI_MAIN, ensureBuilt } from "../helpers/built-package.ts";
import { runMoomem } from "../helpers/run-cli.ts";

const DIM = 16;
const embed = hashEmbeddings(DIM);

let server: ScriptedOpenAIServer;
let temp: string;
let env: Record<string, string>;
/** Set while the next embeddings requests must wait for the test: resolves them when called. */
let held: Array<() => void> | null = null;

beforeAll(async () => {
  await ensureBuilt();
  server = await ScriptedOpenAIServer.start((request: ServedRequest): Reply | Promise<Reply> => {
    const waiting = held;
    if (waiting === null) return embed(request);
    return new Promise<Reply>((resolve) => waiting.push(() => resolve(embed(request))));
  });
  temp = mkdtempSync(join(tmpdir(), "moomem-cli-interrupt-"));
  env = { MOOMEM_EMBED_BASE_URL: server.baseURL, MOOMEM_EMBED_MODEL: "text-embedding-v3", MOOMEM_EMBED_DIM: String(DIM) };
});
afterAll(async () => {
  held?.forEach((release) => release());
  await server.close();
  rmSync(temp, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  stderr: () => string;
  /** The child has exited (a wait on its output stops then too, so an old CLI fails instead of hanging). */
  ended: () => boolean;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function start(args: string[]): Running {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let ended = false;
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      ended = true;
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, stderr: () => stderr, ended: () => ended, exited };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A built-in-embedder export of three of dave's memories, as a file. */
async function exportFile(name: string): Promise<{ file: string; lines: string[] }> {
  const source = await MemoryStore.open(":memory:");
  for (const text of ["I keep bees", "I sail on weekends", "My cat is called Miso"]) await source.add("dave", text);
  const lines: string[] = [];
  for await (const line of source.export()) lines.push(line);
  await source.close();
  const file = join(temp, `${name}.jsonl`);
  writeFileSync(file, lines.join(""));
  return { file, lines };
}

async function daveCount(dir: string): Promise<number> {
  const reader = await runMoomem(["--dir", dir, "--json", "list", "-u", "dave"]);
  expect(reader.code, reader.stderr).toBe(0);
  return (JSON.parse(reader.stdout) as unknown[]).length;
}

/** The folders an import into a new folder `dir` writes before renaming one into place (import.ts). */
function importTemps(dir: string): string[] {
  return readdirSync(dirname(dir))
    .filter((name) => name.startsWith(`.${basename(dir)}.import-`))
    .map((name) => join(dirname(dir), name));
}

describe("Ctrl-C during moomem import", () => {
  // Ctrl-C while the store is still opening (its folder is there, the input not yet read), or once it
  // reads the input (its lock is there): the same answer. Into a folder that exists, the store opens
  // there; into a new folder, it opens in a temp folder beside it that is renamed into place only once
  // the import is complete, so the waits look there, and nothing may be left behind.
  for (const target of ["an existing folder", "a new folder"] as const) {
    for (const [when, path] of [
      ["while the store opens", "moomem"],
      ["while the input is still being read", "moomem/LOCK"],
    ] as const) {
      it(`into ${target}, ${when}: exit 130, says nothing was imported, and nothing was`, async () => {
        const name = `reading-${target.length}-${path.length}`;
        const { lines } = await exportFile(name);
        const dir = join(temp, name);
        if (target === "an existing folder") mkdirSync(dir);
        const storeFolder = (): string | undefined => (target === "an existing folder" ? dir : importTemps(dir)[0]);
        const run = start(["--dir", dir, "import", "-"]);
        // Half the export, and the input left open.
        run.child.stdin!.write(lines.slice(0, 2).join(""));
        await until(() => {
          const folder = storeFolder();
          return (folder !== undefined && existsSync(join(folder, path))) || run.ended();
        });
        run.child.kill("SIGINT");
        const { code, stdout, stderr } = await run.exited;
        expect(code).toBe(130);
        expect(stdout).toBe("");
        expect(stderr).toBe("moomem: INTERRUPTED: stopped while reading stdin; nothing was imported, the store is unchanged\n");
        if (target === "an existing folder") {
          expect(await daveCount(dir)).toBe(0);
        } else {
          expect(existsSync(dir)).toBe(false);
          expect(importTemps(dir)).toEqual([]);
        }
      });
    }
  }

  it("once the input is read: the import finishes and says so; exit 0", async () => {
    const { file } = await exportFile("finishing");
    const dir = join(temp, "finishing");
    // A store made with --embed: the built-in export's vectors are recomputed through the server, which holds them.
    expect((await runMoomem(["--dir", dir, "--embed", "add", "-u", "erin", "I run marathons"], { env })).code).toBe(0);
    held = [];
    const requests = server.requests.length;
    const run = start(["--dir", dir, "--embed", "import", file]);
    await until(() => server.requests.length > requests);
    run.child.kill("SIGINT");
    await until(() => run.stderr().includes("\n") || run.ended());
    const release = held;
    held = null;
    release.forEach((go) => go());
    const { code, stdout, stderr } = await run.exited;
    expect(stderr).toBe("moomem: Ctrl-C: the whole input was read, so the import is finishing (all or nothing); press Ctrl-C again to stop at once\n");
    expect(code).toBe(0);
    expect(stdout).toBe(`imported 3 entries of 1 user from ${file} (1 line skipped: the export header, blank lines, or entries already in the store)\n`);
    expect(await daveCount(dir)).toBe(3);
  });

  it("a second Ctrl-C stops at once: exit 130, and the import is whole or absent (here absent: nothing was written yet)", async () => {
    const { file } = await exportFile("twice");
    const dir = join(temp, "twice");
    expect((await runMoomem(["--dir", dir, "--embed", "add", "-u", "erin", "I run marathons"], { env })).code).toBe(0);
    held = [];
    const requests = server.requests.length;
    const run = start(["--dir", dir, "--embed", "import", file]);
    await until(() => server.requests.length > requests);
    run.child.kill("SIGINT");
    await until(() => run.stderr().includes("\n") || run.ended());
    run.child.kill("SIGINT");
    const { code, stdout, stderr } = await run.exited;
    const release = held;
    held = null;
    release.forEach((go) => go());
    expect(code).toBe(130);
    expect(stdout).toBe("");
    expect(stderr.split("\n")[1]).toBe(
      "moomem: INTERRUPTED: stopped while the import was being written; it is all or nothing: run it again to be sure (entries already there are skipped)",
    );
    expect(await daveCount(dir)).toBe(0);
  });
});
