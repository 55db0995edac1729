// Memories are private to the user who runs moomem: new folders 0700, files 0600, exports too, and a new store's folders durable.
//
// Modes are checked as "nothing for group and others" (the umask may only take more away). POSIX only.

import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { runCli } from "../../src/cli/run.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { FaultyFileSystem } from "./helpers/faulty-file-system.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

const POSIX = process.platform !== "win32";
let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("modes");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Every path under `dir` (files, folders, sockets) with its mode. */
function modesUnder(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out[name] = modeOf(path);
    if (statSync(path).isDirectory()) for (const [sub, mode] of Object.entries(modesUnder(path))) out[`${name}/${sub}`] = mode;
  }
  return out;
}

/** Runs the CLI in this process; resolves to its exit status and what it printed. */
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

describe.skipIf(!POSIX)("file permissions", () => {
  it("a new store: its folders are 0700 and every file in it 0600, while open and after close", async () => {
    const dir = join(freshDir(), "nested", "memory");
    const mem = await MemoryStore.open(dir);
    await mem.add("user-1", "my doctor is Dr. Chen");
    const open = modesUnder(join(dir, "moomem"));
    await mem.close();
    const closed = modesUnder(join(dir, "moomem"));
    for (const modes of [open, closed]) {
      expect(Object.keys(modes).length).toBeGreaterThan(3);
      for (const [name, mode] of Object.entries(modes)) expect(mode & 0o077, `${name} is ${mode.toString(8)}`).toBe(0);
    }
    for (const folder of [join(dir, "moomem"), dir, join(dir, "..")]) expect(modeOf(folder) & 0o077, folder).toBe(0);
  });

  it("an existing folder keeps its mode (the owner chose it); the store folder inside is still 0700", async () => {
    const dir = freshDir();
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const mem = await MemoryStore.open(dir);
    await mem.add("user-1", "I like jasmine tea");
    await mem.close();
    expect(modeOf(dir)).toBe(0o755);
    expect(modeOf(join(dir, "moomem")) & 0o077).toBe(0);
  });

  it("a new store's folders are made durable: each created folder's parent is fsynced", async () => {
    const parent = freshDir();
    mkdirSync(parent);
    const dir = join(parent, "x", "y");
    const fs = new FaultyFileSystem(new NodeFileSystem());
    const backend = new FileBackend(dir, { fs });
    await backend.load();
    await backend.accept();
    await backend.close();
    const mkdir = fs.log.indexOf("mkdirp moomem");
    expect(mkdir).toBeGreaterThanOrEqual(0);
    expect(fs.log.slice(mkdir + 1, mkdir + 4)).toEqual([`syncDir ${basename(parent)}`, "syncDir x", "syncDir y"]);
  });

  it("moomem export -o: a new file is 0600, a replaced file keeps its mode", async () => {
    const dir = freshDir();
    const mem = await MemoryStore.open(dir);
    await mem.add("user-1", "my PIN is not 1234");
    await mem.close();
    const fresh = join(root, `export-${counter}-new.jsonl`);
    expect(await cli(["--dir", dir, "export", "-o", fresh])).toMatchObject({ code: 0 });
    expect(modeOf(fresh)).toBe(0o600);
    for (const mode of [0o600, 0o640, 0o644]) {
      const file = join(root, `export-${counter}-${mode.toString(8)}.jsonl`);
      writeFileSync(file, "old export\n");
      chmodSync(file, mode);
      expect(await cli(["--dir", dir, "export", "-o", file])).toMatchObject({ code: 0 });
      expect(modeOf(file), `replacing a ${mode.toString(8)} file`).toBe(mode);
    }
  });
});
