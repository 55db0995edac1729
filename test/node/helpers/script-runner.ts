// Runs a TypeScript fixture as a child process or a worker thread of the runtime that runs the tests (Node, Bun or Deno).
//
// The fixture is bundled once with esbuild into one .mjs file: a child then starts in a fraction of a second, and a
// worker thread can load it on every runtime (Node's workers do not inherit tsx's loader).

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const ESBUILD = fileURLToPath(new URL("../../../node_modules/.bin/esbuild", import.meta.url));

/** The runtime running this file. */
export const RUNTIME: "node" | "bun" | "deno" =
  (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : (globalThis as { Deno?: unknown }).Deno !== undefined ? "deno" : "node";

/** Bundles `script` (a path) into `outDir`; returns the path of the .mjs file. */
export function bundleFixture(script: string, outDir: string): string {
  if (!existsSync(ESBUILD)) throw new Error(`esbuild is missing (${ESBUILD}); run npm ci`);
  const out = join(outDir, basename(script).replace(/\.ts$/, ".mjs"));
  execFileSync(ESBUILD, [script, "--bundle", "--platform=node", "--format=esm", "--target=node20", `--outfile=${out}`, "--log-level=warning"]);
  return out;
}

/** The command line that runs a bundled fixture on this runtime: `[program, ...args]`. */
export function runtimeCommand(bundle: string): string[] {
  return RUNTIME === "deno" ? [process.execPath, "run", "-A", bundle] : [process.execPath, bundle];
}

/**
 * The command line that runs a TypeScript fixture as it is (no bundle) on this runtime: Bun and Deno run
 * TypeScript themselves; Node through tsx's loader, in the same process, so a signal sent to the child
 * reaches the process that runs the fixture (the tsx launcher would die alone and leave its child running).
 */
export function tsFixtureCommand(script: string): string[] {
  return RUNTIME === "bun"
    ? [process.execPath, script]
    : RUNTIME === "deno"
      ? [process.execPath, "run", "-A", script]
      : [process.execPath, "--import", "tsx", script];
}
