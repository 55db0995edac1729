// Paths that cannot hold a store get a clear error naming what is wrong: files, virtual file systems, URLs, missing stores.

import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PassThrough } from "node:stream";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { runCli } from "../../src/cli/run.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("paths");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

async function openError(path: string, options: { readOnly?: boolean } = {}): Promise<{ code?: string; message: string }> {
  const error = await MemoryStore.open(path, options).then(
    async (mem) => {
      await mem.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(error, `opening ${path} should fail`).not.toBeNull();
  return error as { code?: string; message: string };
}

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = "";
  stdout.resume();
  stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {} };
  const code = await runCli(args, io);
  return { code, stderr: err };
}

const PROC = process.platform === "linux" && existsSync("/proc/self");

describe("paths that cannot hold a store", () => {
  // fs.mkdir's recursive mode retried forever on procfs: this hung before (the test timeout is the bound).
  it.skipIf(!PROC)(
    "a folder on /proc (a virtual file system): refused at once, saying why",
    async () => {
      for (const path of ["/proc", "/proc/moomem-test/memory"]) {
        const error = await openError(path);
        expect(error.code).toBe("IO_FAILURE");
        expect(error.message).toMatch(/cannot create the folder \/proc\/moomem-test|cannot create the folder \/proc\/moomem/);
        expect(error.message).toMatch(/does not allow it/);
      }
      const run = await cli(["--dir", "/proc", "add", "-u", "user-1", "hello"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^moomem: IO_FAILURE: could not create the store folder \/proc\/moomem .*does not allow it/m);
    },
    20_000,
  );

  it("a regular file, or a path through one: INVALID_ARGUMENT saying it is a file (for writers and readers)", async () => {
    const file = join(root, `notes-${++counter}.txt`);
    writeFileSync(file, "my notes");
    for (const readOnly of [false, true]) {
      const error = await openError(file, { readOnly });
      expect(error.code).toBe("INVALID_ARGUMENT");
      expect(error.message).toContain(`the store path ${file} is a file, not a folder`);
      const through = await openError(join(file, "memory"), { readOnly });
      expect(through.code).toBe("INVALID_ARGUMENT");
      expect(through.message).toContain(`the store path ${join(file, "memory")} runs through a file`);
    }
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, "moomem"), "not a folder");
    const inside = await openError(dir);
    expect(inside.code).toBe("INVALID_ARGUMENT");
    expect(inside.message).toContain(`${join(dir, "moomem")} is a file, but moomem keeps its store in a folder of that name`);
  });

  it('a file: URL is the folder it names (not a folder called "file:"); other URLs are refused', async () => {
    const dir = join(freshDir(), "my memory");
    const url = pathToFileURL(dir).href;
    expect(url).toContain("my%20memory");
    const mem = await MemoryStore.open(url);
    await mem.add("user-1", "I live in Lisbon");
    await mem.close();
    expect(existsSync(join(dir, "moomem"))).toBe(true);
    expect(readdirSync(process.cwd())).not.toContain("file:");
    const reader = await MemoryStore.open(url, { readOnly: true });
    expect((await reader.list("user-1")).map((e) => e.content)).toEqual(["I live in Lisbon"]);
    await reader.close();
    const remote = await openError("https://example.com/memory");
    expect(remote.code).toBe("INVALID_ARGUMENT");
    expect(remote.message).toContain("needs a folder on this machine");
  });

  it("a read-only open of a folder holding no store: STORE_NOT_FOUND, and nothing is created", async () => {
    const dir = freshDir();
    const error = await openError(dir, { readOnly: true });
    expect(error.code).toBe("STORE_NOT_FOUND");
    expect(error.message).toContain(`there is no store at ${dir}`);
    expect(existsSync(dir)).toBe(false);
    const run = await cli(["--dir", dir, "list", "-u", "user-1"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/STORE_NOT_FOUND: there is no store at/);
    expect(existsSync(dir)).toBe(false);
  });
});
