// Example: the default setup (files, offline). Write, recall, close, reopen: the same answer comes back from disk.
//
// Run: npm run build && npx tsx examples/default-reopen.ts

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, type RecallHit } from "moomem";

const USER = "user-42";
const QUESTION = "Can I eat peanuts?";

function show(label: string, hits: RecallHit[]): void {
  console.log(label);
  for (const hit of hits) console.log(`  ${hit.score.toFixed(4)}  ${hit.content}`);
}

// A throwaway folder; an application would pass something like "./memory".
const dir = await mkdtemp(join(tmpdir(), "moomem-example-"));
try {
  const mem = await MemoryStore.open(dir);
  await mem.add(USER, "I'm allergic to peanuts");
  await mem.add(USER, "I live in Shenzhen and work night shifts as a nurse");
  await mem.add(USER, "My favourite food is spicy Sichuan tofu");
  const before = await mem.recall(USER, QUESTION, { topK: 2 });
  show(`recall "${QUESTION}" (first process):`, before);
  await mem.close();

  // Tomorrow, or after a crash: open the same folder and ask again.
  const reopened = await MemoryStore.open(dir);
  const after = await reopened.recall(USER, QUESTION, { topK: 2 });
  show("recall after close and reopen:", after);
  const same = JSON.stringify(after.map((h) => [h.id, h.score])) === JSON.stringify(before.map((h) => [h.id, h.score]));
  console.log(`same answer after reopening: ${same ? "yes" : "NO"}`);
  const stats = await reopened.stats();
  console.log(`store: ${stats.total} entries of ${stats.users} user, ${stats.bytesOnDisk} bytes in ${join(dir, "moomem")}`);
  await reopened.close();
  if (!same) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
