// `moomem add --lines -` (README, "Adding many inputs at once"): each line of stdin one input, through addMany,
// stored exactly as one `moomem add` per line would store it.

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { AddSummary, MemoryEntry } from "../../src/index.ts";
import { ensureBuilt } from "./helpers/built-package.ts";
import { jsonOf, runMoomem } from "./helpers/run-cli.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
beforeAll(async () => {
  await ensureBuilt();
  root = makeTempDir("moomem-cli-lines-");
});
afterAll(() => removeDir(root));

describe("moomem add --lines", () => {
  it("adds each line of stdin as one input, in order, with one summary per line", async () => {
    const dir = ["--dir", `${root}/a`];
    const input = "I live in Beijing\n\nI love jazz\r\nI moved to Shenzhen\nI love jazz\n";
    const summaries = jsonOf<AddSummary[]>(await runMoomem([...dir, "--json", "add", "-u", "alice", "--meta", "source=notes", "--lines", "-"], { input }));
    expect(summaries.map((s) => [s.inserted, s.duplicates, s.superseded])).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 1],
      [0, 1, 0],
    ]);
    const entries = jsonOf<MemoryEntry[]>(await runMoomem([...dir, "--json", "list", "-u", "alice"]));
    expect(entries.map((e) => [e.content, e.status, e.metadata])).toEqual([
      ["I live in Beijing", "superseded", { source: "notes" }],
      ["I love jazz", "active", { source: "notes" }],
      ["I moved to Shenzhen", "active", { source: "notes" }],
    ]);
    const human = await runMoomem([...dir, "add", "-u", "bob", "--lines", "-"], { input: "I love tea\n\nI play chess\n" });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^line 1: I love tea$/m);
    expect(human.stdout).toMatch(/^line 3: I play chess$/m);
  });

  it("refuses --lines without stdin, and stdin without a line of text, storing nothing", async () => {
    const dir = ["--dir", `${root}/b`];
    const noDash = await runMoomem([...dir, "add", "-u", "alice", "--lines", "I love tea"]);
    expect(noDash.code).toBe(2);
    expect(noDash.stderr).toContain('--lines reads the lines from stdin: pass "-"');
    const blank = await runMoomem([...dir, "add", "-u", "alice", "--lines", "-"], { input: "\n  \n" });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("--lines found no line with text");
  });
});
