// `npm run bench:hostile`: how long recall, add and tokenize take on huge, hostile inputs (1 Mi characters
// of unbroken CJK, Latin without spaces, emoji, combining marks, ...). Each case runs in its own process
// with a time limit, so an input that makes the work blow up shows as "killed after N s" instead of
// hanging the run.
//
// Usage: npm run bench:hostile [-- --sizes 65536,1048576] [-- --kinds cjk,emoji] [-- --ops recall,add,add-max]
//        [-- --limit-s 60]
// One case alone: node --import tsx bench/hostile-input.ts --case <kind> <op> <size>

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "../src/index.ts";
import { isMoomemError } from "../src/errors.ts";
import { tokenize } from "../src/text/tokenizer.ts";
import { seededRandom } from "../eval/metrics.ts";

/** Builds `size` UTF-16 units of one kind of input (never splitting a surrogate pair). */
const KINDS: Record<string, (size: number, random: () => number) => string> = {
  /** Random Han characters, no space or punctuation: one CJK run. */
  cjk: (size, random) => repeatUnits(size, () => String.fromCodePoint(0x4e00 + Math.floor(random() * 20_000))),
  /** Random Thai letters without spaces (Thai is segmented by dictionary, like CJK). */
  thai: (size, random) => repeatUnits(size, () => String.fromCodePoint(0x0e01 + Math.floor(random() * 46))),
  /** Lower-case ASCII letters without spaces: one giant ASCII word. */
  "latin-nospace": (size, random) => repeatUnits(size, () => String.fromCharCode(0x61 + Math.floor(random() * 26))),
  /** Accented Latin letters without spaces: one giant word that takes the segmenter path. */
  "accented-nospace": (size, random) => repeatUnits(size, () => "àéîõüçñ"[Math.floor(random() * 7)] as string),
  /** Emoji (surrogate pairs), some joined by ZWJ, with skin-tone modifiers. */
  emoji: (size, random) => repeatUnits(size, () => ["😀", "👍🏽", "👩‍💻", "🇨🇳", "❤️"][Math.floor(random() * 5)] as string),
  /** One letter followed by combining marks, again and again. */
  combining: (size) => repeatUnits(size, () => "a\u0301\u0323"),
  /** Zero-width characters between letters. */
  "zero-width": (size, random) => repeatUnits(size, () => (random() < 0.5 ? "\u200b" : "x\u200d")),
  /** Sentence punctuation and spaces only, then one letter (worst case for trailing-punctuation trimming). */
  punctuation: (size) => repeatUnits(size - 1, () => ". ") + "x",
  /** Ordinary English-like words with spaces: the baseline. */
  words: (size, random) => repeatUnits(size, () => ["peanut ", "allergy ", "lives ", "in ", "Shenzhen ", "café "][Math.floor(random() * 6)] as string),
};

function repeatUnits(size: number, piece: () => string): string {
  const parts: string[] = [];
  let length = 0;
  for (;;) {
    const p = piece();
    if (length + p.length > size) break;
    parts.push(p);
    length += p.length;
  }
  return parts.join("");
}

/** The operations timed per input: each prepares what it needs, then times only the call itself. */
const OPS: Record<string, (text: string, time: <T>(call: () => Promise<T>) => Promise<T>) => Promise<string>> = {
  tokenize: async (text, time) => `${(await time(async () => tokenize(text))).length} tokens`,
  recall: (text, time) => withStore({}, async (mem) => `${(await time(() => mem.recall("u", text, { topK: 5 }))).length} hits`),
  /** Recall with the input cut to 8,192 units, the longest query recall accepts. */
  "recall-8k": (text, time) => {
    const query = text.slice(0, /[\ud800-\udbff]/.test(text[8191] ?? "") ? 8191 : 8192);
    return withStore({}, async (mem) => `${(await time(() => mem.recall("u", query, { topK: 5 }))).length} hits`);
  },
  /** Add with the default maxContentChars (8,192). */
  add: (text, time) => withStore({}, async (mem) => `${(await time(() => mem.add("u", text))).inserted} inserted`),
  /** Add with maxContentChars at the largest value open accepts (1,000,000), so (almost) the whole input is stored and indexed. */
  "add-max": (text, time) => withStore({ maxContentChars: 1_000_000 }, async (mem) => `${(await time(() => mem.add("u", text))).inserted} inserted`),
};

async function withStore(options: { maxContentChars?: number }, use: (mem: MemoryStore) => Promise<string>): Promise<string> {
  const mem = await seededStore(options);
  try {
    return await use(mem);
  } finally {
    await mem.close();
  }
}

/** An in-memory store with a few dozen ordinary memories, so recall and the conflict check have something to look at. */
async function seededStore(options: { maxContentChars?: number }): Promise<MemoryStore> {
  const mem = await MemoryStore.open(":memory:", options);
  const facts = ["I'm allergic to peanuts", "I live in Shenzhen", "我对花生过敏", "My sister is called Ana", "I work as a nurse"];
  for (let i = 0; i < 40; i++) await mem.add("u", `${facts[i % facts.length]} (${i})`);
  return mem;
}

async function runCase(kind: string, op: string, size: number): Promise<void> {
  const make = KINDS[kind];
  const run = OPS[op];
  if (make === undefined || run === undefined) throw new Error(`unknown case ${kind} ${op}`);
  const text = make(size, seededRandom(size));
  let ms = 0;
  const time = async <T>(call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await call();
    } finally {
      ms = performance.now() - started;
    }
  };
  let outcome: string;
  try {
    outcome = await run(text, time);
  } catch (error) {
    if (!isMoomemError(error)) throw error;
    outcome = `${error.code}: ${error.message.slice(0, 90)}`;
  }
  process.stdout.write(`${JSON.stringify({ ms, outcome })}\n`);
}

function listArg(name: string, fallback: string[]): string[] {
  const i = process.argv.indexOf(name);
  const value = i === -1 ? undefined : process.argv[i + 1];
  return value === undefined ? fallback : value.split(",");
}

function main(): void {
  const sizes = listArg("--sizes", ["65536", "1048576"]).map(Number);
  const kinds = listArg("--kinds", Object.keys(KINDS));
  const ops = listArg("--ops", Object.keys(OPS));
  const limitS = Number(listArg("--limit-s", ["60"])[0]);
  const self = fileURLToPath(import.meta.url);
  console.log(`hostile inputs: sizes ${sizes.join(", ")} UTF-16 units; each case in its own process, killed after ${limitS} s`);
  console.log("");
  console.log("| input | size | operation | time | outcome |");
  console.log("|---|---:|---|---:|---|");
  for (const size of sizes) {
    for (const kind of kinds) {
      for (const op of ops) {
        const child = spawnSync(process.execPath, ["--import", "tsx", self, "--case", kind, op, String(size)], {
          encoding: "utf8",
          timeout: limitS * 1000,
          maxBuffer: 1 << 20,
        });
        let time: string;
        let outcome: string;
        if (child.error !== undefined || child.signal !== null) {
          time = `> ${limitS} s`;
          outcome = `killed (${child.signal ?? child.error?.message})`;
        } else if (child.status !== 0) {
          time = "-";
          outcome = `failed: ${child.stderr.trim().split("\n").slice(-3).join(" ").slice(0, 200)}`;
        } else {
          const result = JSON.parse(child.stdout.trim().split("\n").pop() as string) as { ms: number; outcome: string };
          time = result.ms < 1000 ? `${result.ms.toFixed(0)} ms` : `${(result.ms / 1000).toFixed(1)} s`;
          outcome = result.outcome;
        }
        console.log(`| ${kind} | ${size} | ${op} | ${time} | ${outcome.replace(/\|/g, "\\|")} |`);
      }
    }
  }
}

const caseAt = process.argv.indexOf("--case");
if (caseAt !== -1) {
  const [kind, op, size] = process.argv.slice(caseAt + 1, caseAt + 4);
  await runCase(kind as string, op as string, Number(size));
} else {
  main();
}
