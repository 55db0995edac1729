// The `moomem` bin, built and spawned as `npx moomem` runs it: PRD scenario A, every command, --json, exit statuses.

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import type { AddSummary, ImportSummary, MemoryEntry, RecallHit, StoreStats } from "../../src/index.ts";
import { CLI_MAIN, ROOT, ensureBuilt } from "./helpers/built-package.ts";
import { jsonOf, runMoomem, type CliResult } from "./helpers/run-cli.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

// The offline default extractor gives both sentences the slot allergy_peanut, so the correction supersedes the first by key.
const ALLERGY = "I am allergic to peanuts, never suggest peanut dishes";
const CORRECTION = "I am allergic to peanuts, never suggest peanut desserts";
const ALLERGY_ZH = "我对花生过敏，不要推荐花生做的菜";
const CORRECTION_ZH = "我对花生过敏，不要推荐花生做的甜点";

// Each test spawns several processes; a machine busy with other work can make that slow (a hang
// detector, as everywhere in the suite: vitest.config.ts).
const TEST_TIMEOUT_MS = 300_000;

let temp = "";
beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("cli");
});
afterAll(() => {
  removeDir(temp);
});

/** `--dir <temp>/<name>`: each test keeps its own store. */
function dirArgs(name: string): string[] {
  return ["--dir", join(temp, name)];
}

function expectOk(result: CliResult): CliResult {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result;
}

/** The content column of the first row under a table header. */
function firstRow(stdout: string): string {
  return stdout.split("\n")[1] ?? "";
}

describe("moomem CLI: PRD scenario A with no code", () => {
  /** English and Chinese run side by side, each in its own folder; every step is a new process reopening it. */
  async function scenario(name: string, user: string, allergy: string, correction: string, question: string, key: string): Promise<void> {
    const dir = dirArgs(name);
    const added = jsonOf<AddSummary>(await runMoomem([...dir, "--json", "add", "-u", user, allergy]));
    expect(added).toMatchObject({ extracted: 1, inserted: 1, duplicates: 0, superseded: 0 });
    const allergyId = added.facts[0]!.id;

    const [recalled, stranger] = await Promise.all([
      runMoomem([...dir, "recall", "-u", user, question]),
      runMoomem([...dir, "--json", "recall", "-u", "stranger", question]),
    ]);
    expectOk(recalled);
    expect(recalled.stdout.split("\n")[0]).toMatch(/^#\s+score\s+routes\s+id\s+content$/);
    expect(firstRow(recalled.stdout)).toMatch(new RegExp(`^1\\s+0\\.\\d{4}\\s+v1 k1\\s+${allergyId}\\s+${allergy}$`));
    // Users are kept apart: another user's recall finds nothing.
    expect(jsonOf<RecallHit[]>(stranger)).toEqual([]);

    const corrected = jsonOf<AddSummary>(await runMoomem(["add", "-u", user, correction, "--json", ...dir]));
    expect(corrected).toMatchObject({ inserted: 1, superseded: 1 });
    const correctionId = corrected.facts[0]!.id;
    expect(corrected.facts[0]!.replaced).toEqual([allergyId]);

    const [history, after] = await Promise.all([
      runMoomem([...dir, "history", "-u", user, allergyId]),
      runMoomem([...dir, "--json", "recall", "-u", user, question]),
    ]);
    const rows = expectOk(history).stdout.split("\n");
    expect(rows[0]).toMatch(/^id\s+status\s+kind\s+created\s+content$/);
    expect(rows[1]).toMatch(new RegExp(`^${allergyId} \\*\\s+superseded\\s+fact:${key}\\s+\\S+\\s+${allergy}\\s+→ ${correctionId}$`));
    expect(rows[2]).toMatch(new RegExp(`^${correctionId}\\s+active\\s+fact:${key}\\s+\\S+\\s+${correction}$`));
    expect(rows[3]).toBe(`${correctionId} replaced its predecessor because: new value for key "${key}"`);
    // The superseded fact is never recalled again.
    expect(jsonOf<RecallHit[]>(after).map((h) => h.id)).toEqual([correctionId]);
  }

  it(
    "remembers an allergy across processes, keeps users apart, and a correction supersedes it (English and Chinese)",
    async () => {
      await Promise.all([
        scenario("scenario-en", "alice", ALLERGY, CORRECTION, "Can I have a peanut butter sandwich?", "allergy_peanut"),
        scenario("scenario-zh", "xiaoming", ALLERGY_ZH, CORRECTION_ZH, "花生酱三明治可以吗", "allergy_花生"),
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: the offline default keeps statements and supersedes by slot", () => {
  const SMALL_TALK_EN = ["hi there!", "how are you today?", "thanks a lot", "ok cool", "Can I eat peanuts?"];
  const SMALL_TALK_ZH = ["你好", "谢谢你", "好的", "哈哈哈", "我能吃花生吗？"];

  /** AC-03 and the README's move, in one folder per language: every step a new process. */
  async function offline(name: string, user: string, smallTalk: string[], fact: string, before: string, after: string): Promise<void> {
    const dir = dirArgs(name);
    const chatter = expectOk(await runMoomem([...dir, "add", "-u", user, smallTalk[0]!]));
    expect(chatter.stdout).toBe(
      "extracted 0 · inserted 0 · duplicates 0 · superseded 0 · conflicts 0\nnothing to remember: the extractor kept no statement of this text (the default drops questions, greetings and other small talk)\n",
    );
    const mixed = jsonOf<AddSummary>(await runMoomem([...dir, "--json", "add", "-u", user, "-"], { input: [...smallTalk, fact].join("\n") }));
    expect(mixed).toMatchObject({ extracted: 1, inserted: 1 });
    expect(jsonOf<MemoryEntry[]>(await runMoomem([...dir, "--json", "list", "-u", user])).map((e) => e.content)).toEqual([fact]);

    const old = jsonOf<AddSummary>(await runMoomem([...dir, "--json", "add", "-u", user, before]));
    const moved = expectOk(await runMoomem([...dir, "add", "-u", user, after]));
    const movedId = /^inserted\s+(\S+)/m.exec(moved.stdout)![1]!;
    expect(moved.stdout).toMatch(
      new RegExp(
        `^extracted 1 · inserted 1 · duplicates 0 · superseded 1 · conflicts 0\ninserted\\s+${movedId}\\s+fact:home_city\\s+${after}\n  replaces ${old.facts[0]!.id} \\(now superseded`,
      ),
    );
    const [profile, recalled] = await Promise.all([
      runMoomem([...dir, "--json", "profile", "-u", user]),
      runMoomem([...dir, "--json", "recall", "-u", user, `${before} ${after}`]),
    ]);
    expect(jsonOf<{ slots: Record<string, { value: string }> }>(profile).slots["home_city"]).toMatchObject({ value: after });
    expect(jsonOf<RecallHit[]>(recalled).map((h) => h.content)).not.toContain(before);
  }

  it(
    "stores one memory of small talk plus a fact (AC-03) and a move supersedes the old city (English and Chinese)",
    async () => {
      await Promise.all([
        offline("offline-en", "alice", SMALL_TALK_EN, "I'm allergic to peanuts", "I live in Beijing", "I moved to Shenzhen"),
        offline("offline-zh", "xiaoming", SMALL_TALK_ZH, "我对花生过敏", "我住在北京", "我搬到深圳了"),
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: every command", () => {
  it(
    "add (text, --meta, stdin), list, profile, forget, restore, stats, reembed",
    async () => {
      const dir = dirArgs("commands");
      const tea = jsonOf<AddSummary>(
        await runMoomem([...dir, "--json", "add", "-u", "carol", "--meta", "source=cli", "--meta", "channel=test", "I", "prefer", "green", "tea"]),
      );
      expect(tea.facts[0]!.content).toBe("I prefer green tea");
      const human = expectOk(await runMoomem([...dir, "add", "-u", "carol", "-"], { input: "I play the cello on Sundays\n" }));
      expect(human.stdout).toMatch(
        /^extracted 1 · inserted 1 · duplicates 0 · superseded 0 · conflicts 0\ninserted\s+\S+\s+fact\s+I play the cello on Sundays\n$/,
      );
      const celloId = /^inserted\s+(\S+)/m.exec(human.stdout)![1]!;

      const [listed, listedJson, profile] = await Promise.all([
        runMoomem([...dir, "list", "-u", "carol"]),
        runMoomem([...dir, "--json", "list", "-u", "carol", "--status", "active"]),
        runMoomem([...dir, "profile", "-u", "carol"]),
      ]);
      expect(expectOk(profile).stdout).toBe("slots\n  likes_green_tea  I prefer green tea\nfacts\n  - I play the cello on Sundays\n");
      expect(expectOk(listed).stdout).toMatch(/^id\s+status\s+kind\s+created\s+content\n.*I prefer green tea\n.*I play the cello on Sundays\n2 entries\n$/);
      const active = jsonOf<MemoryEntry[]>(listedJson);
      expect(active.map((e) => e.content)).toEqual(["I prefer green tea", "I play the cello on Sundays"]);
      expect(active[0]!.metadata).toMatchObject({ source: "cli", channel: "test" });

      expect(expectOk(await runMoomem([...dir, "forget", "-u", "carol", celloId])).stdout).toBe("forgot 1 entry of carol\n");
      const restored = expectOk(await runMoomem([...dir, "restore", "-u", "carol", celloId]));
      expect(restored.stdout).toMatch(new RegExp(`^restored ${celloId} \\(now active\\)\n`));
      expect(jsonOf<{ forgotten: number; purged: boolean }>(await runMoomem([...dir, "--json", "forget", "-u", "carol", "--all", "--purge"]))).toEqual({
        forgotten: 2,
        purged: true,
      });

      const [stats, statsHuman, reembed] = await Promise.all([
        runMoomem([...dir, "--json", "stats"]),
        runMoomem([...dir, "stats"]),
        runMoomem([...dirArgs("scenario-en"), "reembed"]),
      ]);
      expect(jsonOf<StoreStats>(stats)).toMatchObject({ total: 2, active: 0, deleted: 2, users: 1, extractorMode: "patterns", formatVersion: 6 });
      expect(expectOk(statsHuman).stdout).toMatch(/^store\s+.*commands\nentries\s+2\n {2}active\s+0\n/);
      expect(expectOk(reembed).stdout).toBe("2 entries now hold vectors of hashing-v2/256 (256 dims)\n");
      // Purged when the forget command closed the store: compaction removed the old slot and journal, so no file holds the content.
      const folder = join(temp, "commands", "moomem");
      const files = readdirSync(folder);
      expect(files.map((f) => readFileSync(join(folder, f), "utf8")).join("")).not.toContain("cello");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "export (stdout, -o, one user) and import (file, stdin) rebuild an equivalent store",
    async () => {
      const fromDir = join(temp, "export-from");
      const source = await MemoryStore.open(fromDir);
      await source.add("dave", "I live in Berlin");
      await source.add("dave", "I moved to Hamburg");
      await source.add("erin", "I work night shifts as a nurse");
      const expected = await source.list("dave");
      await source.close();

      const file = join(temp, "export.jsonl");
      const [toStdout, toFile, oneUser] = await Promise.all([
        runMoomem(["--dir", fromDir, "export"]),
        runMoomem(["--dir", fromDir, "export", "-o", file]),
        runMoomem(["--dir", fromDir, "export", "-u", "erin"]),
      ]);
      const lines = expectOk(toStdout).stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(4);
      expect(JSON.parse(lines[0]!)).toMatchObject({ moomem_export: 1, count: 3, user_id: null });
      expect(expectOk(toFile).stdout).toBe(`exported 3 entries to ${file}\n`);
      // The file holds what stdout got (only the header's export time may differ).
      expect(readFileSync(file, "utf8").split("\n").slice(1)).toEqual(toStdout.stdout.split("\n").slice(1));
      expect(
        expectOk(oneUser)
          .stdout.trimEnd()
          .split("\n")
          .slice(1)
          .map((l) => (JSON.parse(l) as { user_id: string }).user_id),
      ).toEqual(["erin"]);

      const toDir = join(temp, "export-to");
      const imported = expectOk(await runMoomem(["--dir", toDir, "import", file]));
      expect(imported.stdout).toBe(
        `imported 3 entries of 2 users from ${file} (1 line skipped: the export header, blank lines, or entries already in the store)\n`,
      );
      // The same export again, from stdin: everything is already there.
      expect(jsonOf<ImportSummary>(await runMoomem(["--dir", toDir, "--json", "import", "-"], { input: toStdout.stdout }))).toEqual({
        entries: 0,
        users: 0,
        skipped: 4,
      });

      const rebuilt = await MemoryStore.open(toDir, { readOnly: true });
      const strip = (entries: MemoryEntry[]): unknown[] => entries.map(({ seq: _seq, ...rest }) => rest);
      expect(strip(await rebuilt.list("dave"))).toEqual(strip(expected));
      expect((await rebuilt.list("dave")).map((e) => e.status)).toEqual(["superseded", "active"]);
      expect((await rebuilt.stats()).users).toBe(2);
      await rebuilt.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "prints help for the tool and each command, and the version",
    async () => {
      const [tool, add, version] = await Promise.all([runMoomem(["--help"]), runMoomem(["help", "add"]), runMoomem(["--version"])]);
      for (const name of ["add", "recall", "list", "history", "profile", "forget", "restore", "stats", "export", "import", "reembed", "mcp"]) {
        expect(expectOk(tool).stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
      }
      expect(expectOk(add).stdout).toMatch(/^usage: moomem add -u <user> \[--meta key=value\]\.\.\. <text…>$/m);
      expect(add.stdout).toContain("-u, --user <user>");
      const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
      expect(expectOk(version).stdout).toBe(`${pkg.version}\n`);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: mcp", () => {
  it(
    "serves the store over stdio: answers initialize and tools/list, stores what `remember` gets, exits 0 when the client leaves",
    async () => {
      const dir = join(temp, "mcp");
      const child = spawn("node", [CLI_MAIN, "--dir", dir, "mcp", "--any-user"], { stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const responses = new Map<number, { result?: Record<string, unknown> }>();
      const waiters = new Map<number, () => void>();
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        for (let nl = stdout.indexOf("\n"); nl >= 0; nl = stdout.indexOf("\n")) {
          const message = JSON.parse(stdout.slice(0, nl)) as { id: number; result?: Record<string, unknown> };
          stdout = stdout.slice(nl + 1);
          responses.set(message.id, message);
          waiters.get(message.id)?.();
        }
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      // One request at a time, as a client does: each waits for its answer.
      const request = (id: number, method: string, params: unknown): Promise<{ result?: Record<string, unknown> }> =>
        new Promise((resolve) => {
          waiters.set(id, () => resolve(responses.get(id)!));
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
        });

      const init = await request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cli-test", version: "1" } });
      expect(init.result?.["serverInfo"]).toMatchObject({ name: "moomem" });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
      const tools = await request(2, "tools/list", {});
      expect((tools.result?.["tools"] as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(["forget", "list", "recall", "remember"]);
      const remembered = await request(3, "tools/call", { name: "remember", arguments: { userId: "alice", content: ALLERGY } });
      expect(remembered.result?.["isError"]).not.toBe(true);
      child.stdin.end();
      expect(await exited).toBe(0);
      expect(stderr).toBe("");

      const mem = await MemoryStore.open(dir, { readOnly: true });
      expect((await mem.list("alice")).map((e) => e.content)).toEqual([ALLERGY]);
      await mem.close();
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: failures", () => {
  it(
    "usage errors and bad input exit 2 with one `moomem: <CODE>:` line",
    async () => {
      const dir = dirArgs("usage");
      const cases: Array<[string[], string, RegExp]> = [
        [["frobnicate"], "INVALID_ARGUMENT", /unknown command "frobnicate"/],
        [[...dir, "add", "I like tea"], "INVALID_ARGUMENT", /add needs -u <user>/],
        [[...dir, "recall", "-u", "alice", "-k", "many", "tea"], "INVALID_ARGUMENT", /-k must be a whole number/],
        [[...dir, "recall", "-u", "alice", "--colour", "tea"], "INVALID_ARGUMENT", /has no option --colour/],
        [[...dir, "add", "-u", "bad/id", "hello"], "INVALID_USER_ID", /"\/"/],
        [[...dir, "import", join(temp, "missing.jsonl")], "INVALID_ARGUMENT", /cannot read .*missing\.jsonl/],
      ];
      const results = await Promise.all(cases.map(([args]) => runMoomem(args)));
      results.forEach((result, i) => {
        const [args, code, message] = cases[i]!;
        expect({ args, code: result.code }).toEqual({ args, code: 2 });
        expect(result.stdout).toBe("");
        const lines = result.stderr.trimEnd().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]!.startsWith(`moomem: ${code}: `)).toBe(true);
        expect(lines[0]).toMatch(message);
      });
      // No command at all: the help, on stderr, and exit 2.
      const bare = await runMoomem([]);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain("usage: moomem");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "words one mistake one way: -k out of range or not a number, an unknown id for forget, restore and history",
    async () => {
      const dir = dirArgs("same-wording");
      const added = jsonOf<AddSummary>(await runMoomem([...dir, "--json", "add", "-u", "alice", "I like tea"]));
      const id = added.facts[0]!.id;
      const unknown = "00000000ffff-beef";
      const cases: Array<[string[], RegExp]> = [
        ...["0", "101", "abc", "1.5", "", " 3", "1e2"].map((k): [string[], RegExp] => [
          [...dir, "recall", "-u", "alice", "-k", k, "tea"],
          new RegExp(
            `^moomem: INVALID_ARGUMENT: -k must be a whole number from 1 to 100, got ${JSON.stringify(k).replace(/[.+]/g, "\\$&")} \\(see moomem recall --help\\)$`,
          ),
        ]),
        [[...dir, "recall", "-u", "alice", "--top-k=0", "tea"], /^moomem: INVALID_ARGUMENT: -k must be a whole number from 1 to 100, got "0" /],
        // A value that starts with "-" is taken for an option: still one line, saying how to pass it.
        [
          [...dir, "recall", "-u", "alice", "-k", "-1", "tea"],
          /^moomem: INVALID_ARGUMENT: -k, --top-k needs a value; write one starting with "-" as --top-k=<value> \(see moomem recall --help\)$/,
        ],
        [[...dir, "recall", "-u", "alice", "tea", "-k"], /^moomem: INVALID_ARGUMENT: -k, --top-k needs a value \(see moomem recall --help\)$/],
        ...["forget", "restore", "history"].map((command): [string[], RegExp] => [
          [...dir, command, "-u", "alice", unknown],
          new RegExp(`^moomem: INVALID_ARGUMENT: ${command}: user alice has no entry "${unknown}"$`),
        ]),
        // The id is quoted as a JSON string, so one carrying a line break still makes one line.
        ...["forget", "restore", "history"].map((command): [string[], RegExp] => [
          [...dir, command, "-u", "alice", "bad\nid"],
          new RegExp(`^moomem: INVALID_ARGUMENT: ${command}: user alice has no entry "bad\\\\nid"$`),
        ]),
        // Another user's id is unknown to this user, whatever the command.
        [[...dir, "forget", "-u", "bob", id], new RegExp(`^moomem: INVALID_ARGUMENT: forget: user bob has no entry "${id}"$`)],
      ];
      // One at a time: forget and restore take the writer lock.
      for (const [args, message] of cases) {
        const result = await runMoomem(args);
        expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" });
        expect(result.stderr.trimEnd().split("\n"), JSON.stringify(args)).toHaveLength(1);
        expect(result.stderr.trimEnd()).toMatch(message);
      }
      // Forgetting what is already forgotten is not a mistake: nothing to do, exit 0.
      expectOk(await runMoomem([...dir, "forget", "-u", "alice", id]));
      const again = expectOk(await runMoomem([...dir, "forget", "-u", "alice", id]));
      expect(again.stdout).toBe(`nothing forgotten: ${id} of alice is already forgotten\n`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a damaged snapshot exits 1 with STORE_CORRUPTED and changes nothing",
    async () => {
      const dir = join(temp, "corrupt");
      const mem = await MemoryStore.open(dir);
      await mem.add("alice", "I live in Beijing");
      await mem.add("alice", "I play the cello");
      await mem.close();
      const folder = join(dir, "moomem");
      const slot = join(folder, `slot${readFileSync(join(folder, "head"), "utf8").trim()}.jsonl`);
      writeFileSync(slot, readFileSync(slot, "utf8").replace("Beijing", "Beijinx"));
      const before = readdirSync(folder).map((f) => [f, readFileSync(join(folder, f), "utf8")]);

      const [read, write] = await Promise.all([
        runMoomem(["--dir", dir, "list", "-u", "alice"]),
        runMoomem(["--dir", dir, "add", "-u", "alice", "I moved to Shenzhen"]),
      ]);
      for (const result of [read, write]) {
        expect(result.code).toBe(1);
        expect(result.stdout).toBe("");
        expect(result.stderr).toMatch(/^moomem: STORE_CORRUPTED: .*slot[01]\.jsonl line \d+/);
      }
      // A v5 snapshot's open reads its table only, so the open succeeds (taking the writer lock: a new LOCK.<n>) and the
      // damage is refused when alice loads; the data files stay byte for byte.
      const data = (files: string[][]): string[][] => files.filter(([f]) => !/^LOCK(\.|$)/.test(f!));
      expect(data(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f), "utf8")]))).toEqual(data(before));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "import of a file with one bad line reports its number and imports nothing",
    async () => {
      const dir = join(temp, "bad-import");
      const mem = await MemoryStore.open(dir);
      await mem.add("alice", "I live in Beijing");
      const lines: string[] = [];
      for await (const line of mem.export()) lines.push(line);
      await mem.close();
      // A good export of three entries from another store, with line 3 broken.
      const other = await MemoryStore.open(":memory:");
      for (const text of ["one fact", "two facts", "three facts"]) await other.add("bob", text);
      const good: string[] = [];
      for await (const line of other.export()) good.push(line);
      await other.close();
      good[2] = '{"id": "000000000002-dead", "user_id": "bob", "content": "two fa\n';
      const file = join(temp, "bad.jsonl");
      writeFileSync(file, good.join(""));

      const result = await runMoomem(["--dir", dir, "import", file]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^moomem: INVALID_ARGUMENT: import: line 3 is not valid JSON.*nothing was imported\n$/);

      const reopened = await MemoryStore.open(dir, { readOnly: true });
      expect((await reopened.stats()).total).toBe(1);
      expect(await reopened.list("bob")).toEqual([]);
      expect((await reopened.list("alice")).map((e) => e.content)).toEqual(["I live in Beijing"]);
      await reopened.close();
    },
    TEST_TIMEOUT_MS,
  );
});
