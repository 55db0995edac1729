// A store written on disk by Node, Bun or Deno (closed, or killed without close) reopens with everything on this runtime.
//
// Runs on all three server runtimes (npm test runs test/node/ on each), so together they cover every writer/reader pair.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, afterAll } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = (name: string): string => join(root, "node_modules", ".bin", name);
const writer = fileURLToPath(new URL("./fixtures/store-writer.ts", import.meta.url));
const QUERY = "where do I live and work?";

// How each runtime runs a TypeScript file (Node 20 cannot strip types itself, so it goes through tsx).
const RUNTIMES: Record<string, string[]> = {
  node: [bin("tsx"), writer],
  bun: [bin("bun"), "run", writer],
  // -A: the file lock reads /proc/<pid>/stat to check a holder's liveness, which Deno allows only with all permissions.
  deno: [bin("deno"), "run", "-A", "--no-lock", "--no-config", writer],
};

function currentRuntime(): string {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  return "node";
}

interface WriterReport {
  runtime: string;
  entries: { id: string; content: string; status: string }[];
  hits: { id: string; content: string; score: number }[];
}

/**
 * Runs the writer on `runtime`; a killed writer dies by SIGKILL, so its output is taken from the error.
 * Under tsx the killed process is tsx's child and tsx exits with 128 + 9 instead of a signal.
 */
function runWriter(runtime: string, dir: string, mode: "close" | "kill"): WriterReport {
  const [command, ...args] = RUNTIMES[runtime]!;
  let stdout: string;
  try {
    stdout = execFileSync(command!, [...args, dir, "user-1", mode, QUERY], { encoding: "utf8", timeout: 240_000, stdio: ["ignore", "pipe", "pipe"] });
    if (mode === "kill") throw new Error(`${runtime} writer was meant to die by SIGKILL but exited normally`);
  } catch (error) {
    const e = error as { signal?: string; stdout?: string; stderr?: string; message?: string };
    const e2 = error as { status?: number | null };
    const killed = e.signal === "SIGKILL" || e2.status === 137;
    if (mode !== "kill" || !killed) {
      throw new Error(`${runtime} writer failed: ${e.message ?? String(error)}\n${e.stderr ?? ""}`, { cause: error });
    }
    stdout = e.stdout ?? "";
  }
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as WriterReport;
}

const temp = mkdtempSync(join(tmpdir(), "moomem-xruntime-"));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

describe(`stores written by other runtimes, read on ${currentRuntime()}`, () => {
  for (const runtime of Object.keys(RUNTIMES)) {
    for (const mode of ["close", "kill"] as const) {
      it(`reopens a store ${runtime} wrote and ${mode === "close" ? "closed" : "was killed (SIGKILL) before closing"}`, async () => {
        const dir = join(temp, `${runtime}-${mode}`);
        const report = runWriter(runtime, dir, mode);
        expect(report.runtime).toBe(runtime);
        expect(report.entries).toHaveLength(5);
        expect(existsSync(join(dir, "moomem"))).toBe(true);

        const mem = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
        try {
          const entries = (await mem.list("user-1")).map((e) => ({ id: e.id, content: e.content, status: e.status }));
          expect(entries).toEqual(report.entries);
          expect(entries.at(-1)?.status).toBe("deleted");
          const hits = (await mem.recall("user-1", QUERY, { topK: 3 })).map((h) => ({ id: h.id, content: h.content, score: h.score }));
          // Same ids, same order, same scores as the writer's runtime computed.
          expect(hits).toEqual(report.hits);
          expect(hits.length).toBeGreaterThan(0);
          const stats = await mem.stats();
          expect(stats.total).toBe(5);
          expect(stats.deleted).toBe(1);
        } finally {
          await mem.close();
        }
      });
    }
  }
});
