// The libraries a user would otherwise pick, behind one small interface, fed the same texts and the same vectors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, insertMultiple, search } from "@orama/orama";
import MiniSearch from "minisearch";
import { LocalIndex } from "vectra";

/** One peer loaded with a corpus: `query` answers the top k for a text and its (precomputed) vector. */
export interface Peer {
  name: string;
  what: string;
  query(text: string, vector: Float32Array, k: number): Promise<number> | number;
  close(): void;
}

export interface Built {
  peer: Peer;
  buildMs: number;
}

/** The practical floor: every vector in one Float32Array, a plain dot-product scan, a small top-k. */
export function bruteForce(vectors: readonly Float32Array[], dim: number): Built {
  const started = performance.now();
  const data = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => data.set(v, i * dim));
  const buildMs = performance.now() - started;
  const n = vectors.length;
  return {
    buildMs,
    peer: {
      name: "brute-force scan",
      what: "Float32Array cosine scan (floor)",
      query(_text, q, k) {
        const best = new Float64Array(k).fill(-Infinity);
        for (let i = 0; i < n; i++) {
          // Four partial sums, as any careful scan would (dim is a multiple of 4 here).
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          const o = i * dim;
          for (let j = 0; j < dim; j += 4) {
            s0 += (data[o + j] as number) * (q[j] as number);
            s1 += (data[o + j + 1] as number) * (q[j + 1] as number);
            s2 += (data[o + j + 2] as number) * (q[j + 2] as number);
            s3 += (data[o + j + 3] as number) * (q[j + 3] as number);
          }
          const s = s0 + s1 + (s2 + s3);
          if (s > (best[k - 1] as number)) {
            let at = k - 1;
            while (at > 0 && (best[at - 1] as number) < s) {
              best[at] = best[at - 1] as number;
              at--;
            }
            best[at] = s;
          }
        }
        return best[0] as number;
      },
      close() {},
    },
  };
}

/** Orama 3: full-text + vector in one index, hybrid search. Vectors must be plain arrays. */
export async function orama(docs: readonly string[], vectors: readonly Float32Array[], dim: number): Promise<Built> {
  const started = performance.now();
  const db = create({ schema: { content: "string", embedding: `vector[${dim}]` } as const });
  await insertMultiple(
    db,
    docs.map((content, i) => ({ content, embedding: Array.from(vectors[i] as Float32Array) })),
    1000,
  );
  const buildMs = performance.now() - started;
  return {
    buildMs,
    peer: {
      name: "Orama",
      what: "@orama/orama 3.1.18, mode hybrid",
      async query(text, vector, k) {
        // similarity 0.01: Orama's default 0.8 would drop almost every hashing-vector match.
        const r = await search(db, { mode: "hybrid", term: text, vector: { value: Array.from(vector), property: "embedding" }, similarity: 0.01, limit: k });
        return r.hits.length;
      },
      close() {},
    },
  };
}

/** MiniSearch 7: BM25 full text only (its own tokenizer). */
export function miniSearch(docs: readonly string[]): Built {
  const started = performance.now();
  const index = new MiniSearch<{ id: number; content: string }>({ fields: ["content"], storeFields: [] });
  index.addAll(docs.map((content, id) => ({ id, content })));
  const buildMs = performance.now() - started;
  return {
    buildMs,
    peer: {
      name: "MiniSearch",
      what: "minisearch 7.2.0, BM25",
      query(text, _vector, k) {
        return index.search(text).slice(0, k).length;
      },
      close() {},
    },
  };
}

/**
 * vectra 0.12: a file-backed vector index (one JSON file, loaded whole), cosine search. Pinned below
 * 0.15, which needs Node ≥ 22 (moomem supports Node 20) and pulls gRPC and protobufjs with an install
 * script; docs/decisions.md has the measurements of both.
 */
export async function vectra(vectors: readonly Float32Array[]): Promise<Built> {
  const dir = mkdtempSync(join(tmpdir(), "moomem-bench-vectra-"));
  const started = performance.now();
  const index = new LocalIndex(dir);
  await index.createIndex({ version: 1, deleteIfExists: true });
  await index.beginUpdate();
  for (let i = 0; i < vectors.length; i++) await index.insertItem({ vector: Array.from(vectors[i] as Float32Array), metadata: { i } });
  await index.endUpdate();
  const buildMs = performance.now() - started;
  return {
    buildMs,
    peer: {
      name: "vectra",
      what: "vectra 0.12.3, vector (file-backed)",
      async query(text, vector, k) {
        const r = await index.queryItems(Array.from(vector), text, k);
        return r.length;
      },
      close() {
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}
