// Every example in examples/ runs with one command (tsx, importing "moomem" from the built package) and prints what it promises.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ROOT, ensureBuilt } from "./helpers/built-package.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";
import { runProcess, type CliResult } from "./helpers/run-cli.ts";

type Run = CliResult;

/** `npx tsx examples/<name>.ts <args…>` from the repository root, as the README says. */
function runExample(name: string, args: string[] = []): Promise<Run> {
  return runProcess(join(ROOT, "node_modules", ".bin", "tsx"), [join("examples", `${name}.ts`), ...args], { cwd: ROOT });
}

function ok(run: Run): string {
  if (run.code !== 0 || run.stderr !== "") throw new Error(`example exited ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return run.stdout;
}

const EXAMPLES = ["default-reopen", "host-inject-supersede", "isolation-forget-import", "agent-loop", "ai-sdk-tools", "mcp-client"] as const;
const runs = new Map<string, Run>();
let temp = "";
let demoFirst: Run;
let demoSecond: Run;

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("examples");
  const demoDir = join(temp, "demo-memory");
  // The examples are independent, so they run side by side; the demo's second run needs its first.
  const [results] = await Promise.all([
    Promise.all(EXAMPLES.map(async (name) => [name, await runExample(name)] as const)),
    (async () => {
      demoFirst = await runExample("demo", [demoDir]);
      demoSecond = await runExample("demo", [demoDir]);
    })(),
  ]);
  for (const [name, run] of results) runs.set(name, run);
});

afterAll(() => {
  removeDir(temp);
});

describe("examples", () => {
  it("default-reopen: the same recall answer after close and reopen, and its temp folder is gone", () => {
    const out = ok(runs.get("default-reopen")!);
    const lines = out.split("\n");
    expect(lines[0]).toBe('recall "Can I eat peanuts?" (first process):');
    expect(lines[1]).toMatch(/^ {2}\d+\.\d{4} {2}I'm allergic to peanuts$/);
    // topK is 2, but a second hit appears only if the vector route finds one with cosine > 0.
    const reopened = lines.indexOf("recall after close and reopen:");
    expect(reopened === 2 || reopened === 3).toBe(true);
    expect(lines.slice(reopened + 1, reopened + reopened)).toEqual(lines.slice(1, reopened));
    expect(out).toContain("same answer after reopening: yes\n");
    const folder = /bytes in (\S+)\/moomem\n/.exec(out)?.[1];
    expect(folder).toBeDefined();
    expect(existsSync(folder!)).toBe(false);
  });

  it("host-inject-supersede: small talk stores nothing, keyed facts are stored, the new city supersedes the old", () => {
    const out = ok(runs.get("host-inject-supersede")!);
    expect(out).toContain('said: "Hi there, how are you today?"\n  (no facts: nothing stored)\n');
    expect(out).toContain("  inserted [home_city] Lives in Beijing\n  inserted [allergy] Allergic to shellfish\n  inserted [job] Works as a nurse\n");
    expect(out).toMatch(/ {2}inserted \[home_city\] Lives in Shenzhen, supersedes \S+\n/);
    expect(out).toContain('recall "Which city does the user live in?" -> Lives in Shenzhen\n');
    expect(out).toContain('history of the home_city slot:\n  superseded Lives in Beijing\n  active     Lives in Shenzhen (new value for key "home_city")\n');
  });

  it("isolation-forget-import: no other user's memory in a recall, forget removes one, import copies the store", () => {
    const out = ok(runs.get("isolation-forget-import")!);
    expect(out).toContain("memories of other users in bob's results: 0\n");
    expect(out).toContain("alice asks about her PIN hint -> My bank PIN hint is the name of my first cat, Miso\n");
    expect(out).toContain("forgot 1 entry; alice asks again -> (nothing)\n");
    expect(out).toContain(
      "imported 3 entries of 2 users into a second store\n  alice: same entries in both stores: yes\n  bob: same entries in both stores: yes\n",
    );
    expect(out).toContain("second store: 2 active, 1 deleted, 2 users\n");
  });

  it("agent-loop: after a restart the agent recalls the allergy and the city before answering", () => {
    const out = ok(runs.get("agent-loop")!);
    const tuesday = out.slice(out.indexOf("--- Tuesday (agent restarted) ---"));
    expect(out.indexOf("--- Tuesday")).toBeGreaterThan(0);
    // Monday's memory, recalled on Tuesday, is dated a day back (the example's clock moves a day between sessions).
    expect(tuesday).toContain("- 1 day ago: I'm allergic to peanuts.");
    expect(tuesday).toContain("- 1 day ago: I live in Shenzhen, by the way.");
    expect(out).not.toContain("just now");
    expect(tuesday).toContain("assistant: Skip the peanuts: you told me you're allergic.");
    expect(tuesday).toContain("assistant: Yes: it's the rainy season in Shenzhen, take one.");
    // On Monday nothing was known yet.
    expect(out.slice(0, out.indexOf("--- Tuesday"))).toContain("(no memories recalled)");
  });

  it("ai-sdk-tools: the model remembers the allergy, and the next day recalls it before suggesting a dish", () => {
    const out = ok(runs.get("ai-sdk-tools")!);
    expect(out).toContain('  [tool remember] {"content":"I\'m allergic to peanuts."}\n  [tool remember] -> stored 1\n');
    const tuesday = out.slice(out.indexOf("--- Tuesday ---"));
    expect(out.indexOf("--- Tuesday ---")).toBeGreaterThan(0);
    expect(tuesday).toContain('  [tool recall] {"query":"food allergies, diet and dislikes"}\n  [tool recall] -> I\'m allergic to peanuts. (1 day ago)\n');
    expect(tuesday).toContain('assistant: Since you told me 1 day ago ("I\'m allergic to peanuts."), how about a peanut-free Thai green curry?');
    expect(out).not.toContain("Anything you like!");
    expect(out).toContain("memories the chef agent stored for user-42: 1\n");
  });

  it("mcp-client: a server pinned to alice offers tools without a user id, serves her memories and refuses another user", () => {
    const out = ok(runs.get("mcp-client")!);
    expect(out).toMatch(/^server moomem offers: remember\(content, metadata, observedAt\) recall\(query, /m);
    expect(out).not.toMatch(/offers: .*userId/);
    expect(out).toContain("alice's allergies: I'm allergic to peanuts\n");
    expect(out).toMatch(/-> error INVALID_ARGUMENT: recall: unknown argument "userId" \(this server is pinned to one user/);
    expect(out).toContain("a call naming another user was refused: yes\n");
    expect(out).toContain("alice now: I'm allergic to peanuts [deleted]; I moved to Lisbon [active]\n");
    expect(out).toMatch(/done\n$/);
  });

  it("demo: stores scenario A in English and Chinese, and a second run recalls it from disk", () => {
    const first = ok(demoFirst);
    expect(first).toContain('  add "I\'m allergic to peanuts" -> stored as ');
    expect(first).toContain('  add "我对花生过敏" -> stored as ');
    expect(first).toMatch(/recall "Can I eat peanuts\? Thinking of a peanut snack":\n {4}1\. I'm allergic to peanuts {3}\(score/);
    expect(first).toMatch(/recall "花生酱三明治可以吗？":\n {4}1\. 我对花生过敏 {3}\(score/);
    expect(first).toContain("Run it again (npm run demo)");

    const second = ok(demoSecond);
    expect(second).toContain("This folder already holds 6 memories of 2 users from an earlier run.\nRecall before adding anything (answered from disk):\n");
    const fromDisk = second.slice(0, second.indexOf("[English]"));
    expect(fromDisk).toMatch(/1\. I'm allergic to peanuts/);
    expect(fromDisk).toMatch(/1\. 我对花生过敏/);
    expect(second).toContain('  add "I\'m allergic to peanuts" -> already known (');
    expect(second).toContain("The memories survived the restart");
  });
});
