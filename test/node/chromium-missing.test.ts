// Without a Chromium the browser suite fails with one line saying what is missing and how to get it,
// not with Playwright's launch stack trace (the first thing a new contributor without Chromium sees).

import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it, expect } from "vitest";
import { ROOT } from "./helpers/built-package.ts";

const MISSING = "/nonexistent/moomem-test/chromium";

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, timeout: 240_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one-line message names the missing binary and every way to get one. */
function expectHelpfulLine(line: string): void {
  expect(line).toContain(`CHROMIUM_PATH=${MISSING} is not an executable file`);
  expect(line).toContain("sudo apt-get install -y chromium");
  expect(line).toContain("brew install --cask chromium");
  expect(line).toContain("set CHROMIUM_PATH to a Chromium or Chrome binary");
}

describe("a missing Chromium", () => {
  it("is one actionable line from scripts/find-chromium.mjs (what npm test and .ci/run ask)", async () => {
    const { code, stdout, stderr } = await run(process.execPath, ["scripts/find-chromium.mjs"], { CHROMIUM_PATH: MISSING });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expectHelpfulLine(lines[0]!);
  });

  it("fails the vitest chromium project with that line instead of a Playwright stack trace", async () => {
    const vitest = join(ROOT, "node_modules", ".bin", "vitest");
    const { code, stdout, stderr } = await run(vitest, ["run", "--project", "chromium", "test/runtime-parity.test.ts"], { CHROMIUM_PATH: MISSING });
    const output = `${stdout}${stderr}`;
    expect(code).toBe(1);
    const line = output.split("\n").find((l) => l.includes("no Chromium for the browser tests"));
    expect(line, output).toBeDefined();
    expectHelpfulLine(line!);
    expect(output).not.toContain("browserType.launch");
    // No stack frames (vitest prints them as "❯ file:line", Node as "at …").
    expect(output).not.toMatch(/❯ |^\s+at /m);
  });
});
