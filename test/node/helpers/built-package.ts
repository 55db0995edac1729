// Makes sure dist/ is built from the current sources before a test runs the package the way users do (bin, "moomem" imports).

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../../../", import.meta.url));
/** The built bin, as `npx moomem` runs it. */
export const CLI_MAIN: string = join(ROOT, "dist", "cli", "main.js");

/** A lock folder with no pid file yet (its builder died right after making it) is stale after this long. */
const LOCK_WITHOUT_PID_STALE_MS = 60_000;

/** The newest mtime of the files under `dir` whose names end in `suffix`. */
function newest(dir: string, suffix: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) time = Math.max(time, newest(path, suffix));
    else if (entry.name.endsWith(suffix)) time = Math.max(time, statSync(path).mtimeMs);
  }
  return time;
}

/** Stale when a source is newer than every output: `tsc -b` rewrites only the outputs of what changed. */
function isStale(): boolean {
  return !existsSync(CLI_MAIN) || newest(join(ROOT, "dist"), ".js") < newest(join(ROOT, "src"), ".ts");
}

function lockIsStale(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > LOCK_WITHOUT_PID_STALE_MS;
    } catch {
      return false; // removed meanwhile: try again
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function runTsc(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // The timeout is a hang detector below the suite's hook timeout (vitest.config.ts), not a speed limit.
    execFile(join(ROOT, "node_modules", ".bin", "tsc"), ["-b", join(ROOT, "tsconfig.json")], { cwd: ROOT, timeout: 540_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/**
 * Rebuilds dist/ with tsc when a source file is newer than the built bin
 * (`npm test` builds first, so this is normally a no-op). Test files run in
 * parallel, so one build at a time, under a lock folder in the temp dir.
 */
export async function ensureBuilt(): Promise<void> {
  if (!isStale()) return;
  const lock = join(tmpdir(), `moomem-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      // A builder that died leaves its lock behind: judged by its pid, not by how long a build may take
      // (which depends on the machine's load).
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(100);
    }
  }
  try {
    if (!isStale()) return;
    const started = Date.now();
    const { code, output } = await runTsc();
    // tsc still emits when another engineer's file has a type error; the type check is its own step of npm test.
    if (code !== 0 && (!existsSync(CLI_MAIN) || newest(join(ROOT, "dist"), ".js") < started)) {
      throw new Error(`building dist/ failed (tsc exit ${code}):\n${output}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
