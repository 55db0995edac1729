// `moomem add` says when it kept only the first maxContentChars characters of a long text (text and --json).

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { AddSummary } from "../../src/index.ts";
import { ensureBuilt } from "./helpers/built-package.ts";
import { jsonOf, runMoomem } from "./helpers/run-cli.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

let temp = "";
beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("cli-truncation");
}, 180_000);
afterAll(() => {
  removeDir(temp);
});

describe("moomem add on a text longer than maxContentChars", () => {
  it("reports the cut per fact in the text output and in --json", async () => {
    const text = `My notes: ${"peanut butter and jelly ".repeat(1000)}the end`;
    const human = await runMoomem(["--dir", join(temp, "a"), "add", "-u", "alice", "-"], { input: text });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`truncated: kept the first 8192 of ${text.length} characters`);
    const json = jsonOf<AddSummary>(await runMoomem(["--dir", join(temp, "b"), "--json", "add", "-u", "alice", "-"], { input: text }));
    expect(json.degraded).toBe(false);
    expect(json.facts[0]!.truncated).toEqual({ originalChars: text.length });
    const short = await runMoomem(["--dir", join(temp, "b"), "add", "-u", "alice", "I like tea"]);
    expect(short.stdout).not.toContain("truncated");
  }, 120_000);
});
