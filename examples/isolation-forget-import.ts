// Example: users are kept apart, forget removes a memory from recall, and export → import copies a store.
//
// Run: npm run build && npx tsx examples/isolation-forget-import.ts

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "moomem";

const dir = await mkdtemp(join(tmpdir(), "moomem-example-"));
try {
  const mem = await MemoryStore.open(join(dir, "first"));
  await mem.add("alice", "My bank PIN hint is the name of my first cat, Miso");
  await mem.add("alice", "I'm learning the cello");
  await mem.add("bob", "I'm learning the violin");

  // Every recall is scoped to one user: bob's question never sees alice's memories.
  const bobHits = await mem.recall("bob", "what is the PIN hint, the cat's name?");
  const leaked = bobHits.filter((h) => h.userId !== "bob").length;
  console.log(`bob asks for a PIN hint -> only bob's own memories: ${bobHits.map((h) => h.content).join(" | ") || "(nothing)"}`);
  console.log(`memories of other users in bob's results: ${leaked}`);
  const aliceHits = await mem.recall("alice", "what is my PIN hint?", { topK: 1 });
  console.log(`alice asks about her PIN hint -> ${aliceHits[0]?.content ?? "(nothing)"}`);

  // Forget: the entry leaves recall at once (kept on disk as "deleted" until purged; restore() undoes it).
  const forgotten = await mem.forget("alice", { id: aliceHits[0]!.id }, { purge: true });
  const afterForget = await mem.recall("alice", "what is my PIN hint?");
  console.log(`forgot ${forgotten} entry; alice asks again -> ${afterForget.map((h) => h.content).join(" | ") || "(nothing)"}`);

  // Export streams JSON Lines; import takes any iterable of lines, e.g. another store's export.
  const copy = await MemoryStore.open(join(dir, "second"));
  const summary = await copy.import(mem.export());
  console.log(`imported ${summary.entries} entries of ${summary.users} users into a second store`);
  for (const user of ["alice", "bob"]) {
    const same =
      JSON.stringify((await copy.list(user)).map((e) => [e.id, e.status, e.content])) ===
      JSON.stringify((await mem.list(user)).map((e) => [e.id, e.status, e.content]));
    console.log(`  ${user}: same entries in both stores: ${same ? "yes" : "NO"}`);
    if (!same) process.exitCode = 1;
  }
  const stats = await copy.stats();
  console.log(`second store: ${stats.active} active, ${stats.deleted} deleted, ${stats.users} users`);
  await mem.close();
  await copy.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
