// Spawns the built `moomem` bin with node, as `npx moomem` does, and collects what it printed.

import { spawn } from "node:child_process";
import { CLI_MAIN } from "./built-package.ts";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli/main.js <args…>`; `input` is piped to stdin. */
export function runMoomem(args: readonly string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return runProcess("node", [CLI_MAIN, ...args], options);
}

/** Runs a command without colours and collects what it printed; `input` is piped to stdin. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { input?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...options.env };
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** The JSON a `--json` run printed, failing loudly with its stderr when the run failed. */
export function jsonOf<T>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`moomem exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
