// The README walked top to bottom as a newcomer would: the packed tarball installed in a new project
// (offline), every TypeScript block type-checked with `tsc --init`'s settings and run with tsx, every
// shell block run as written, every JSON block parsed.
//
// Blocks are found by their language tag (```ts, ```sh, ```json; untagged blocks such as the file
// layout are prose). An HTML comment on the line before a block changes what happens to it:
//   <!-- readme-test: skip — <why> -->       not run (say why: a network, a key, a repository clone…)
//   <!-- readme-test: program <name> -->     a TypeScript block goes into the named program
// Without a marker, the TypeScript blocks of one `##` section make one program, in order (the quick
// start's open → add → recall → close); each program runs in a folder of its own. In shell blocks,
// `npm i moomem` installs the packed tarball, and `<id>` stands for the id of the first entry of the
// user the line names with -u (as a reader copies it from `add` or `list`).

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ROOT, ensureBuilt } from "./helpers/built-package.ts";

/** One fenced block of the README. */
interface Block {
  lang: "ts" | "sh" | "json";
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  section: string;
  skip?: string;
  program?: string;
}

/** The README's ts, sh and json blocks, with their markers. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.startsWith("## ")) section = text.slice(3).trim();
    const fence = /^```(\w*)\s*$/.exec(text);
    if (fence === null) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith("```")) end++;
    const lang = fence[1];
    if (lang === "ts" || lang === "sh" || lang === "json") {
      const block: Block = { lang, code: lines.slice(i + 1, end).join("\n"), line: i + 1, section };
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === "") before--;
      const marker = /^<!--\s*readme-test:\s*(.*?)\s*-->$/.exec(lines[before]?.trim() ?? "");
      if (marker !== null) {
        const [word, ...rest] = marker[1]!.split(/\s+/);
        const argument = rest.join(" ").replace(/^[—–-]\s*/, "");
        if (word === "skip") block.skip = argument === "" ? "no reason given" : argument;
        else if (word === "program" && argument !== "") block.program = argument;
        else throw new Error(`README line ${before + 1}: unknown readme-test marker "${marker[1]}"`);
      }
      blocks.push(block);
    }
    i = end;
  }
  return blocks;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    // The timeout is a hang detector below the suite's test timeout (vitest.config.ts).
    const options = {
      cwd,
      env: { ...process.env, NO_COLOR: "1", npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", ...env },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    };
    execFile(command, [...args], options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function expectSuccess(result: Run, what: string): void {
  expect(result.code, `${what}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = readmeBlocks(README);
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

/** TypeScript programs by name, each the blocks that make it, in README order. */
const programs = new Map<string, Block[]>();
for (const block of blocks) {
  if (block.lang !== "ts" || block.skip !== undefined) continue;
  const name = block.program ?? block.section;
  programs.set(name, [...(programs.get(name) ?? []), block]);
}
const programFile = (name: string): string =>
  `${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")}.mts`;

let project = "";
let tarball = "";

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), "moomem-readme-"));
  // npm pack without its prepack build: npm test (and ensureBuilt) built dist/ already, and other test
  // files read it meanwhile.
  const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", project], ROOT);
  expectSuccess(packed, "npm pack");
  tarball = join(
    project,
    readdirSync(project).find((f) => f.endsWith(".tgz"))!,
  );
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "readme-walk", version: "1.0.0", private: true }, null, 2)}\n`);
  // What `tsc --init` (TypeScript 6) writes, checking only; @types/node comes from this repository.
  const compilerOptions = {
    module: "nodenext",
    target: "esnext",
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules", "@types")],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    strict: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: "force",
    skipLibCheck: true,
    noEmit: true,
  };
  writeFileSync(join(project, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: ["programs/*.mts"] }, null, 2)}\n`);
  mkdirSync(join(project, "programs"));
  for (const [name, parts] of programs) {
    writeFileSync(join(project, "programs", programFile(name)), parts.map((b) => `// README.md line ${b.line}\n${b.code}\n`).join("\n"));
  }
});
afterAll(() => {
  if (project !== "") rmSync(project, { recursive: true, force: true });
});

/** `<id>` in a shell line: the id of the first entry of the user it names with -u, from ./memory. */
async function withIds(line: string): Promise<string> {
  if (!line.includes("<id>")) return line;
  const user = /-u (\S+)/.exec(line)?.[1];
  if (user === undefined) throw new Error(`README shell line with <id> but no -u <user>: ${line}`);
  const listed = await run(join(project, "node_modules", ".bin", "moomem"), ["--json", "list", "-u", user], project);
  expectSuccess(listed, `listing ${user} to fill in <id>`);
  const [first] = JSON.parse(listed.stdout) as Array<{ id: string }>;
  if (first === undefined) throw new Error(`README shell line needs an id of ${user}, who has no entry yet: ${line}`);
  return line.replaceAll("<id>", first.id);
}

/** One shell line, as a reader types it in the new project (npm i moomem: the packed tarball). */
async function shellLine(line: string): Promise<void> {
  const command = line.replace(/^npm (i|install) moomem\b/, () => `npm install --no-audit --no-fund ${JSON.stringify(tarball)}`);
  const result = await run("bash", ["-c", await withIds(command)], project, { PATH: `${join(project, "node_modules", ".bin")}:${process.env["PATH"] ?? ""}` });
  expectSuccess(result, `README shell line: ${line}`);
}

describe("README.md, top to bottom, in a new project with the packed tarball", () => {
  it("has the blocks this walk relies on", () => {
    expect(blocks.some((b) => b.lang === "sh" && /^npm i moomem$/m.test(b.code))).toBe(true);
    expect([...programs.keys()].some((name) => /quick start/i.test(name))).toBe(true);
  });

  const ranPrograms = new Set<string>();
  // One tsc run checks every program (after the install block has run).
  let typecheck: Promise<Run> | undefined;
  for (const block of blocks) {
    const title = `line ${block.line} (${block.section}): ${block.lang}`;
    if (block.skip !== undefined) {
      it.skip(`${title} — ${block.skip}`, () => undefined);
      continue;
    }
    if (block.lang === "json") {
      it(`${title}: parses`, () => {
        expect(() => JSON.parse(block.code) as unknown).not.toThrow();
      });
    } else if (block.lang === "sh") {
      it(`${title}: every line exits 0`, async () => {
        for (const raw of block.code.split("\n")) {
          const line = raw.trim();
          if (line === "" || line.startsWith("#")) continue;
          await shellLine(line);
        }
      });
    } else {
      const name = block.program ?? block.section;
      const parts = programs.get(name)!;
      // A program runs once its last block has been read, where the reader would run it.
      if (parts[parts.length - 1] !== block || ranPrograms.has(name)) continue;
      ranPrograms.add(name);
      it(`${title}: "${name}" (${parts.length} block${parts.length === 1 ? "" : "s"}, lines ${parts.map((b) => b.line).join(", ")}) type-checks and runs`, async () => {
        const file = join(project, "programs", programFile(name));
        typecheck ??= run(TSC, ["-p", project], project);
        const checked = await typecheck;
        // Only this program's errors fail this test (another program's are its own test's).
        const mine = `${checked.stdout}${checked.stderr}`.split("\n").filter((l) => l.startsWith(`programs/${programFile(name)}`));
        expect(mine, `tsc on ${file}`).toEqual([]);
        const dir = join(project, "runs", programFile(name).replace(/\.mts$/, ""));
        mkdirSync(dir, { recursive: true });
        expectSuccess(await run(TSX, [file], dir), `tsx ${file}`);
      });
    }
  }
});
