// SIGKILL loop: a child writes under load through MemoryStore + FileBackend and is killed at random moments, ≥ 100 times.
//
// After every kill the next child (and finally this process) reopens the store: every acknowledged add
// must be there, nothing present before may vanish, and nothing but the adds issued meanwhile may appear.
//
// The verdict never depends on machine speed: a kill is triggered by what the child reported (its state
// after opening, then a drawn number of acknowledged adds), so the work each run does is fixed by the
// seed; only the few "while opening" kills and a short extra delay are timed, and nothing asserts on them.

import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { SIGKILL_USERS, opNumberOf, opText } from "./fixtures/sigkill-ops.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

// 100 kills on Node (the CI requirement); Bun and Deno, which also run test/node/, repeat a shorter loop with their own writer.
const ON_NODE = (globalThis as { Bun?: unknown; Deno?: unknown }).Bun === undefined && (globalThis as { Deno?: unknown }).Deno === undefined;
const KILLS = Number(process.env["MOOMEM_SIGKILL_KILLS"] ?? (ON_NODE ? 100 : 25));
const SEED = Number(process.env["MOOMEM_SIGKILL_SEED"] ?? Date.now() % 1_000_000);

const WRITER = fileURLToPath(new URL("./fixtures/sigkill-writer.ts", import.meta.url));
const ESBUILD = fileURLToPath(new URL("../../node_modules/.bin/esbuild", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

let root: string;
let command: string[];

beforeAll(() => {
  root = makeTempDir("sigkill");
  // Bundled once, a child starts in ~0.1 s instead of ~1.5 s through tsx: a hundred kills stay affordable.
  if (existsSync(ESBUILD)) {
    const bundle = join(root, "sigkill-writer.mjs");
    execFileSync(ESBUILD, [WRITER, "--bundle", "--platform=node", "--format=esm", "--target=node20", `--outfile=${bundle}`, "--log-level=warning"]);
    const g = globalThis as { Deno?: unknown };
    command = g.Deno !== undefined ? [process.execPath, "run", "-A", bundle] : [process.execPath, bundle];
  } else {
    command = [TSX, WRITER];
  }
});
afterAll(() => {
  removeDir(root);
});

interface ChildRun {
  lines: string[];
  early: boolean;
  /** Adds the run was let acknowledge before its kill was armed (0 for an early kill). */
  acks: number;
}

interface Spare {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a writer that loads its code and then waits for its first op number, so startup overlaps the previous run. */
function startSpare(dir: string): Spare {
  const [cmd, ...args] = command;
  const child = spawn(cmd!, [...args, dir], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal })),
  );
  return { child, exited };
}

/**
 * Lets a spare writer go and SIGKILLs it. Usually once it has reported its state and acknowledged
 * `acks` adds (drawn 1–12), after a further 0–19 ms, so the kill lands among the 8 adds in flight;
 * sometimes (15 %) 0–249 ms after it was let go, which may still be while it opens.
 */
function runChild(spare: Spare, first: number, random: () => number): Promise<ChildRun> {
  const { child } = spare;
  const early = random() < 0.15;
  const acks = early ? 0 : 1 + Math.floor(random() * 12);
  const delay = early ? Math.floor(random() * 250) : Math.floor(random() * 20);
  const lines: string[] = [];
  let buffered = "";
  let stderr = "";
  let reported = false;
  let acked = 0;
  let killTimer: ReturnType<typeof setTimeout> | null = null;
  const kill = (): void => {
    child.kill("SIGKILL");
  };
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      if (early) continue;
      if (line.startsWith("state ")) reported = true;
      else if (line.startsWith("ack ")) acked++;
      if (reported && acked >= acks && killTimer === null) killTimer = setTimeout(kill, delay);
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin!.write(`${first}\n`);
  if (early) killTimer = setTimeout(kill, delay);
  return spare.exited.then(({ code, signal }) => {
    if (killTimer !== null) clearTimeout(killTimer);
    if (buffered.length > 0) lines.push(buffered);
    if (signal !== "SIGKILL") throw new Error(`writer exited by itself (code ${String(code)}): ${stderr}`);
    return { lines, early, acks };
  });
}

interface Tracker {
  /** Ops present at the last check. */
  known: Set<number>;
  /** Ops issued since the last check. */
  issued: Set<number>;
  /** Ops acknowledged since the last check. */
  acked: Set<number>;
  nextOp: number;
}

/** Compares what a reopened store holds with what was acknowledged and issued. */
function check(t: Tracker, present: readonly number[], label: string): void {
  const now = new Set(present);
  expect(now.size, `${label}: an op is stored twice`).toBe(present.length);
  for (const n of t.known) expect(now.has(n), `${label}: op ${n} was present before and vanished`).toBe(true);
  for (const n of t.acked) expect(now.has(n), `${label}: acknowledged op ${n} is missing`).toBe(true);
  for (const n of now) expect(t.known.has(n) || t.issued.has(n), `${label}: op ${n} appeared though it was not issued`).toBe(true);
  t.known = now;
  t.issued = new Set();
  t.acked = new Set();
}

describe("SIGKILL under load", () => {
  it(`loses nothing acknowledged over ${KILLS} kills (seed ${SEED})`, async () => {
    const dir = join(root, "store");
    const random = seededRandom(SEED);
    const t: Tracker = { known: new Set(), issued: new Set(), acked: new Set(), nextOp: 0 };
    let checks = 0;
    let unackedKept = 0;
    let recovered = 0;
    let early = 0;
    let ackedTotal = 0;
    let ackedAtLeast = 0;
    let spare = startSpare(dir);
    for (let kill = 1; kill <= KILLS; kill++) {
      const label = `kill ${kill} (seed ${SEED})`;
      const current = spare;
      spare = startSpare(dir);
      const run = await runChild(current, t.nextOp, random);
      if (run.early) early++;
      const checksBefore = checks;
      ackedAtLeast += run.acks;
      for (const line of run.lines) {
        const [kind, rest] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
        if (kind === "state") {
          const state = JSON.parse(rest) as { present: number[]; bad: number; total: number; truncatedRecovered: number };
          expect(state.bad, `${label}: entries with damaged content`).toBe(0);
          expect(state.total, `${label}: entries that are no op`).toBe(state.present.length);
          unackedKept += [...state.present].filter((n) => t.issued.has(n) && !t.acked.has(n)).length;
          recovered += state.truncatedRecovered;
          check(t, state.present, label);
          checks++;
        } else if (kind === "issue") {
          const n = Number(rest);
          t.issued.add(n);
          t.nextOp = Math.max(t.nextOp, n + 1);
        } else if (kind === "ack") {
          t.acked.add(Number(rest));
          ackedTotal++;
        } else {
          throw new Error(`${label}: unexpected output ${line}`);
        }
      }
      // A run killed on its reports got to report its state, whatever the machine's speed.
      if (!run.early) expect(checks, `${label}: the writer was killed before it reported its state`).toBe(checksBefore + 1);
    }

    spare.child.kill("SIGKILL");
    await spare.exited;

    // Last, this process reopens the store itself.
    const mem = await MemoryStore.open(dir, { backend: new FileBackend(dir) });
    const present: number[] = [];
    for (const user of SIGKILL_USERS) {
      for (const entry of await mem.list(user)) {
        const n = opNumberOf(entry.content);
        expect(n).not.toBeNull();
        expect(entry.content).toBe(opText(n!));
        present.push(n!);
      }
    }
    check(t, present, "final reopen");
    await mem.close();

    // The loop did the work the seed drew, however slow the machine: every run killed on its reports
    // acknowledged its adds first, and every acknowledged add is still there (checked above).
    expect(ackedTotal).toBeGreaterThanOrEqual(ackedAtLeast);
    expect(present.length).toBeGreaterThanOrEqual(ackedTotal);
    // Shown in the test output for the curious: how often a kill hit a written-but-unacknowledged group or a torn tail.
    console.log(`sigkill: ${KILLS} kills (${early} timed), ${present.length} ops kept, ${unackedKept} kept unacknowledged, ${recovered} torn tails cut`);
    // A hang detector, not a speed requirement: ~30 s alone on 2 cores, a few times that under load.
  }, 900_000);
});
