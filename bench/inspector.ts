// How fast the `moomem ui` API answers over a store of 100,000 entries of one user (plus a few small users), measured over loopback HTTP.
//
// Usage: node --import tsx bench/inspector.ts [--entries 100000] [--runs 20]
// Builds the store through import() in a temp folder, serves it read-only with the inspector's server (API only,
// no page assets needed), and times each request the page makes. Prints median and worst time and the response size.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../src/node.ts";
import { entryLine } from "../src/transfer/jsonl-transfer.ts";
import { makeEntryId } from "../src/state/ids.ts";
import { startInspectorServer } from "../src/inspector/server.ts";
import { StoreHolder } from "../src/inspector/store-holder.ts";
import type { EntryKind, EntryStatus } from "../src/types.ts";
import { seededRandom } from "../test/helpers/seeded-random.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const ENTRIES = option("entries", 100_000);
const RUNS = option("runs", 20);

const WORDS =
  "tea coffee shenzhen beijing chess cello marathon daughter school nurse berlin peanuts allergy job moved likes prefers morning evening weekend".split(" ");
const STATUSES: EntryStatus[] = ["active", "active", "active", "superseded", "deleted", "unstructured"];
const KINDS: EntryKind[] = ["fact", "preference", "event"];

function lines(): string[] {
  const random = seededRandom(100);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const out: string[] = [];
  const t0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < ENTRIES + 300; i++) {
    const user = i < ENTRIES ? "big" : `small-${i % 30}`;
    const createdAt = t0 + i * 60_000;
    out.push(
      entryLine({
        id: makeEntryId(i + 1),
        userId: user,
        content: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} memory number ${i}`,
        kind: pick(KINDS),
        key: `slot_${i % 50}`,
        status: pick(STATUSES),
        createdAt,
        updatedAt: createdAt,
        seq: i + 1,
        metadata: { channel: pick(["chat", "email", "voice"]), turn: i },
        lifecycle: {},
        embedding: null,
      }),
    );
  }
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "moomem-ui-bench-"));
  try {
    let started = performance.now();
    const writer = await MemoryStore.open(dir, { sync: "none" });
    await writer.import(lines());
    await writer.close();
    console.log(`built a store of ${ENTRIES} + 300 entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    started = performance.now();
    const holder = await StoreHolder.open({ dir, writable: false, open: () => MemoryStore.open(dir, { readOnly: true }) });
    const openMs = performance.now() - started;
    const server = await startInspectorServer({ holder, port: 0, version: "bench", assets: new Map() });
    const cases: Array<[string, string | (() => Promise<string>)]> = [
      // Cold: the user's entries are listed once per store generation, then every page, filter and sort reuses them.
      ["entries: first page (50 newest), cold", "api/users/big/entries"],
      ["entries: first page (50 newest)", "api/users/big/entries"],
      ["entries: page 1,000 (offset 50,000)", "api/users/big/entries?offset=50000"],
      ["entries: status=superseded", "api/users/big/entries?status=superseded"],
      ["entries: content contains", "api/users/big/entries?text=cello%20marathon"],
      ["entries: metadata {channel: voice}", `api/users/big/entries?metadata=${encodeURIComponent('{"channel":"voice"}')}`],
      [
        "entries: key + time range, by created asc",
        `api/users/big/entries?key=slot_7&since=${Date.UTC(2024, 0, 20)}&until=${Date.UTC(2024, 1, 20)}&sort=createdAt&order=asc`,
      ],
      ["entries: 200 rows", "api/users/big/entries?limit=200"],
      ["users page", "api/users"],
      [
        "one memory + history",
        async () => {
          const page = (await (await fetch(`${server.url}api/users/big/entries?limit=1`)).json()) as { entries: Array<{ id: string }> };
          return `api/users/big/entries/${page.entries[0]!.id}`;
        },
      ],
      ["recall topK 10 (hybrid), first builds the index", "api/users/big/recall?q=tea%20in%20the%20morning"],
      ["stats", "api/stats"],
    ];
    console.log(`read-only open: ${openMs.toFixed(0)} ms`);
    console.log(`${"request".padEnd(50)} ${"first".padStart(10)} ${"median".padStart(9)} ${"worst".padStart(9)} ${"bytes".padStart(7)}`);
    for (const [name, target] of cases) {
      const path = typeof target === "string" ? target : await target();
      const runs = name.endsWith("cold") ? 1 : RUNS;
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        const response = await fetch(`${server.url}${path}`);
        const body = await response.arrayBuffer();
        times.push(performance.now() - t);
        if (response.status !== 200) throw new Error(`${path}: ${response.status} ${new TextDecoder().decode(body)}`);
        bytes = body.byteLength;
      }
      const sorted = [...times].sort((a, b) => a - b);
      const ms = (n: number): string => `${n.toFixed(1)} ms`;
      console.log(
        `${name.padEnd(50)} ${ms(times[0]!).padStart(10)} ${ms(sorted[Math.floor(sorted.length / 2)]!).padStart(9)} ${ms(sorted[sorted.length - 1]!).padStart(9)} ${String(bytes).padStart(7)}`,
      );
    }
    // Another process writes; how long until the inspector has read it in (what the page's 2 s poll then shows).
    const agent = await MemoryStore.open(dir, { sync: "none" });
    await agent.add("big", "a new memory written while the page is open");
    await agent.close();
    const generation = async (): Promise<number> =>
      ((await (await fetch(`${server.url}api/version`)).json()) as { follow: { generation: number } }).follow.generation;
    const before = await generation();
    const t = performance.now();
    let answered = 0;
    while ((await generation()) === before) {
      answered++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(
      `after another process wrote: read in after ${(performance.now() - t).toFixed(0)} ms (${answered} polls answered meanwhile from the older state)`,
    );
    const fresh = performance.now();
    await fetch(`${server.url}api/users/big/entries`);
    console.log(`then the entries page (lists the user again): ${(performance.now() - fresh).toFixed(0)} ms`);
    await server.close();
    await holder.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
