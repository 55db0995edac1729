// `npm run demo`: PRD scenario A ("remember my allergy") in English and Chinese, on the default file store.
//
// The memories go to ./memory (or the folder given as the first argument) and stay there: run it twice and
// the second run recalls what the first one stored, from disk, in a new process.

import { join } from "node:path";
import { MemoryStore, type AddSummary, type RecallHit } from "moomem";

interface Script {
  user: string;
  language: string;
  said: string[];
  question: string;
}

const SCRIPTS: Script[] = [
  {
    user: "alice",
    language: "English",
    said: ["I'm allergic to peanuts", "I love spicy Sichuan food", "I live in Shenzhen with my cat Miso"],
    question: "Can I eat peanuts? Thinking of a peanut snack",
  },
  {
    user: "xiaoming",
    language: "中文",
    said: ["我对花生过敏", "我喜欢吃辣的川菜", "我住在深圳，养了一只猫"],
    question: "花生酱三明治可以吗？",
  },
];

const dir = process.argv[2] ?? "./memory";

function showAdd(text: string, summary: AddSummary): void {
  for (const fact of summary.facts) {
    const what = fact.action === "duplicate" ? `already known (${fact.id})` : `stored as ${fact.id}`;
    console.log(`  add ${JSON.stringify(text)} -> ${what}`);
  }
  if (summary.facts.length === 0) console.log(`  add ${JSON.stringify(text)} -> nothing to remember`);
}

function showHits(question: string, hits: RecallHit[]): void {
  console.log(`  recall ${JSON.stringify(question)}:`);
  if (hits.length === 0) console.log("    (no memories match)");
  hits.forEach((hit, i) => console.log(`    ${i + 1}. ${hit.content}   (score ${hit.score.toFixed(4)})`));
}

const mem = await MemoryStore.open(dir);
const earlier = await mem.stats();
const firstRun = earlier.total === 0;
console.log(`moomem demo: scenario A, store in ${join(dir, "moomem")}`);

if (!firstRun) {
  console.log(`\nThis folder already holds ${earlier.total} memories of ${earlier.users} users from an earlier run.`);
  console.log("Recall before adding anything (answered from disk):");
  for (const script of SCRIPTS) showHits(script.question, await mem.recall(script.user, script.question, { topK: 3 }));
}

for (const script of SCRIPTS) {
  console.log(`\n[${script.language}] user ${script.user}`);
  for (const text of script.said) showAdd(text, await mem.add(script.user, text));
  showHits(script.question, await mem.recall(script.user, script.question, { topK: 3 }));
}

const stats = await mem.stats();
console.log(`\nstore: ${stats.total} entries (${stats.active} active) of ${stats.users} users, ${stats.bytesOnDisk} bytes on disk`);
await mem.close();

if (firstRun) {
  console.log(`\nRun it again (npm run demo): a new process opens ${dir} and recalls these memories before adding anything.`);
} else {
  console.log(`\nThe memories survived the restart: this process recalled what an earlier one stored, and the adds were recognised as duplicates.`);
  // In this repository the bin is dist/cli/main.js; where moomem is installed as a package it is `npx moomem`.
  console.log(
    `Look inside with the CLI: node dist/cli/main.js --dir ${dir} list -u alice   (npx moomem … in a project that installed moomem; delete ${dir} to start over)`,
  );
}
