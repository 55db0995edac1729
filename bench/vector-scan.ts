// The vector index's scan, sparse rows (the default for mostly-zero vectors) against every row dense (the layout before).
//
// Usage: node --import tsx bench/vector-scan.ts [docs, default 100000]
// Indexes `docs` hashing-embedder vectors (256 dims, bench/heap-per-entry.ts's texts) both ways and reports the CPU time
// per search (k 10) over four queries, 25 rounds each, twice in turn. Same answers both ways (src/indexes/vector-index.test.ts).

import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { VectorIndex } from "../src/indexes/vector-index.ts";

const PEOPLE = ["Anna", "Bruno", "Chen", "Dmitri", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jamal"];
const PLACES = ["Berlin", "Lisbon", "Osaka", "Nairobi", "Quito", "Oslo", "Hanoi", "Lyon"];
const THINGS = ["violin", "chess", "sourdough", "climbing", "jazz", "pottery", "sailing", "tango"];
const text = (i: number): string =>
  `On trip ${i} I met ${PEOPLE[i % PEOPLE.length]} in ${PLACES[(i >> 3) % PLACES.length]} and we talked about ${THINGS[(i >> 6) % THINGS.length]}`;

const n = Number(process.argv[2] ?? 100_000);
const embedder = new HashingEmbedder();
const sparse = new VectorIndex(256);
const dense = new VectorIndex(256, { sparse: false });
for (let i = 0; i < n; i++) {
  const vector = embedder.embedOne(text(i));
  sparse.add(i, vector);
  dense.add(i, vector);
}
const queries = [
  "who did I meet in Berlin",
  "what did we talk about on the trip to Osaka with Chen",
  "violin",
  "sourdough climbing jazz pottery Anna Bruno",
].map((q) => embedder.embedOne(q));
for (const [name, index] of [
  ["sparse", sparse],
  ["dense", dense],
  ["sparse", sparse],
  ["dense", dense],
] as const) {
  const start = process.cpuUsage();
  for (let round = 0; round < 25; round++) for (const query of queries) index.search(query, 10);
  const used = process.cpuUsage(start);
  console.log(
    `${name}: ${((used.user + used.system) / 1000 / (25 * queries.length)).toFixed(2)} CPU ms per search, ${n} vectors, ${(index.byteLength / n).toFixed(0)} bytes per vector`,
  );
}
