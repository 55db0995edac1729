// The optional peers (ai, @modelcontextprotocol/sdk) really are optional: the built package runs without them,
// and the MCP server says what to install.

import { execFile } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ROOT, ensureBuilt } from "./helpers/built-package.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

let temp = "";

/** Runs an ES module snippet with node inside the bare copy of the package (no node_modules anywhere near it). */
function runNode(code: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("node", ["--input-type=module", "-e", code], { cwd: temp, timeout: 240_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("bare");
  cpSync(join(ROOT, "dist"), join(temp, "dist"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(temp, "package.json"));
});

afterAll(() => {
  removeDir(temp);
});

describe("without the optional peers installed", () => {
  it("the core works", async () => {
    const run = await runNode(`
      const { MemoryStore, formatContext } = await import("./dist/node.js");
      const mem = await MemoryStore.open(":memory:");
      await mem.add("u", "I like tea");
      console.log(formatContext(await mem.recall("u", "tea"), { now: Date.now() }).includes("I like tea"));
      await mem.close();`);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("true");
  });

  it("the MCP server rejects with MISSING_DEPENDENCY naming the package to install", async () => {
    const run = await runNode(`
      const { runMcpServer } = await import("./dist/mcp.js");
      try { await runMcpServer({ dir: ":memory:", userId: "u" }); console.log("started?!"); }
      catch (e) { console.log(e.code); console.log(e.message); }`);
    const [code, message] = run.stdout.trim().split("\n");
    expect(code).toBe("MISSING_DEPENDENCY");
    expect(message).toContain("npm i @modelcontextprotocol/sdk@^1.32.2");
  });
});
