// The vector index alone, on the bench corpus's hashing vectors: bulk build, search, add and remove CPU, bytes per vector.
//
// Usage: node --import tsx bench/vector-scan.ts [other checkout] [--sizes 1000,10000,100000]
// e.g.   mkdir /tmp/base && git archive 5114980 | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//        node --import tsx bench/vector-scan.ts /tmp/base
// Embeds bench/corpus.ts's documents and queries (`npm run bench`'s corpus, hashing embedder, 256 dims), then per size:
// - build: a loaded user's index built as EntryState builds it (reserve, addRows in tiles of 64, trim), CPU ms;
// - search one user: CPU ms per search (top 10, with moments, as recall asks) over the queries, all docs in one index;
// - search 1,000 users: the docs spread over 1,000 indexes, each query against its source's index;
// - add / remove: CPU µs per add of 1,000 more vectors to the one-user index, then per remove of them;
// - bytes: the index's arrays per vector.
// With another checkout, its VectorIndex runs the same work in the same process, alternating with this one's (3 rounds
// each, medians), so both see the same machine load. Vector search results are the same in both (src/indexes/vector-index.test.ts).

import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { VectorIndex } from "../src/indexes/vector-index.ts";
import { makeCorpus } from "./corpus.ts";

interface Index {
  reserve(count: number): void;
  addRows(docs: readonly number[], rows: Float32Array): void;
  add(doc: number, vector: Float32Array): void;
  remove(doc: number): boolean;
  trim(): void;
  search(query: Float32Array, k: number, moments?: { count: number; sum: number; sumSquares: number }): unknown;
  readonly byteLength: number;
}
type Make = (dim: number) => Index;

const args = process.argv.slice(2);
const sizesAt = args.indexOf("--sizes");
const sizes = sizesAt >= 0 ? (args[sizesAt + 1] as string).split(",").map(Number) : [1_000, 10_000, 100_000];
const other = args.find((a, i) => !a.startsWith("--") && (sizesAt < 0 || i !== sizesAt + 1));
const makers: [string, Make][] = [["this", (dim) => new VectorIndex(dim)]];
if (other !== undefined) {
  const module = (await import(`${other}/src/indexes/vector-index.ts`)) as { VectorIndex: new (dim: number) => Index };
  makers.push(["other", (dim) => new module.VectorIndex(dim)]);
}

const cpuMs = (run: () => void): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Builds an index of `vectors` (docs `docs`) as a loaded user's is built: one reserve, tiles of 64, trim. */
function build(make: Make, docs: readonly number[], vectors: readonly Float32Array[], dim: number): Index {
  const index = make(dim);
  index.reserve(docs.length);
  const tile = new Float32Array(64 * dim);
  const tileDocs: number[] = [];
  for (let i = 0; i < docs.length; i++) {
    tile.set(vectors[i] as Float32Array, tileDocs.length * dim);
    tileDocs.push(docs[i] as number);
    if (tileDocs.length === 64 || i === docs.length - 1) {
      index.addRows(tileDocs, tile);
      tileDocs.length = 0;
    }
  }
  index.trim();
  return index;
}

const embedder = new HashingEmbedder();
const dim = embedder.dim;
const users = 1_000;
for (const size of sizes) {
  const corpus = makeCorpus(size + 1_000, 200);
  const all = corpus.docs.map((d) => embedder.embedOne(d));
  const vectors = all.slice(0, size);
  const extra = all.slice(size);
  const queries = corpus.queries.map((q) => embedder.embedOne(q));
  const docs = vectors.map((_, i) => i);
  const results = new Map<string, Record<string, number[]>>();
  for (let round = 0; round < 3; round++) {
    for (const [name, make] of makers) {
      const r = results.get(name) ?? { build: [], search: [], searchUsers: [], add: [], remove: [], bytes: [] };
      results.set(name, r);
      let one: Index | undefined;
      r.build!.push(cpuMs(() => (one = build(make, docs, vectors, dim))));
      const index = one as Index;
      r.bytes!.push(index.byteLength / size);
      const moments = { count: 0, sum: 0, sumSquares: 0 };
      r.search!.push(cpuMs(() => queries.forEach((q) => index.search(q, 10, moments))) / queries.length);
      // The same docs spread over 1,000 users (doc i to user i mod 1,000), each query to its source's user.
      const shards = Array.from({ length: users }, (_, u) => {
        const mine = docs.filter((i) => i % users === u);
        return build(
          make,
          mine,
          mine.map((i) => vectors[i] as Float32Array),
          dim,
        );
      });
      r.searchUsers!.push(cpuMs(() => queries.forEach((q, i) => shards[(corpus.querySources[i] as number) % users]!.search(q, 10, moments))) / queries.length);
      r.add!.push((cpuMs(() => extra.forEach((v, i) => index.add(size + i, v))) * 1000) / extra.length);
      r.remove!.push((cpuMs(() => extra.forEach((_, i) => index.remove(size + i))) * 1000) / extra.length);
    }
  }
  for (const [name, r] of results) {
    console.log(
      `${String(size).padStart(6)} ${name.padEnd(5)} build ${median(r.build!).toFixed(1)} CPU ms, search ${median(r.search!).toFixed(3)} CPU ms (1,000 users ${median(r.searchUsers!).toFixed(3)}), add ${median(r.add!).toFixed(1)} µs, remove ${median(r.remove!).toFixed(1)} µs, ${median(r.bytes!).toFixed(0)} bytes/vector`,
    );
  }
}
