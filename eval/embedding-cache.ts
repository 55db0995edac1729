// An Embedder wrapper that keeps every vector it computed in a binary file, so eval reruns embed nothing twice.

import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Embedder, EmbedderKind } from "../src/types.ts";

/**
 * Vectors keyed by the SHA-1 of their text, in `file`: one record per text, 20 bytes of hash then `dim`
 * float32s (little-endian). New vectors are appended after each `embed` call, so an interrupted run keeps
 * what it computed. The file is tied to one embedder id by its name (see {@link cacheFileFor}).
 */
export class CachedEmbedder implements Embedder {
  readonly dim: number;
  readonly id: string;
  readonly kind?: EmbedderKind;
  readonly #inner: Embedder;
  readonly #file: string;
  readonly #vectors = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(inner: Embedder, file: string) {
    this.#inner = inner;
    this.dim = inner.dim;
    this.id = inner.id ?? `custom/${inner.dim}`;
    if (inner.kind !== undefined) this.kind = inner.kind;
    this.#file = file;
    if (existsSync(file)) this.#load(readFileSync(file));
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => createHash("sha1").update(t, "utf8").digest("hex"));
    const missing: number[] = [];
    keys.forEach((key, i) => {
      if (!this.#vectors.has(key) && !missing.some((j) => keys[j] === key)) missing.push(i);
    });
    this.hits += texts.length - missing.length;
    this.misses += missing.length;
    if (missing.length > 0) {
      const fresh = await this.#inner.embed(missing.map((i) => texts[i]!));
      const record = 20 + 4 * this.dim;
      const out = Buffer.alloc(record * missing.length);
      missing.forEach((i, j) => {
        const vector = fresh[j]!;
        if (vector.length !== this.dim) throw new Error(`${this.id}: vector of length ${vector.length}, expected ${this.dim}`);
        this.#vectors.set(keys[i]!, vector);
        Buffer.from(keys[i]!, "hex").copy(out, j * record);
        for (let d = 0; d < this.dim; d++) out.writeFloatLE(vector[d]!, j * record + 20 + 4 * d);
      });
      mkdirSync(dirname(this.#file), { recursive: true });
      appendFileSync(this.#file, out);
    }
    return keys.map((key) => Float32Array.from(this.#vectors.get(key)!));
  }

  #load(bytes: Buffer): void {
    const record = 20 + 4 * this.dim;
    // A torn last record (an interrupted append) is ignored; it is computed again and appended.
    for (let at = 0; at + record <= bytes.length; at += record) {
      const vector = new Float32Array(this.dim);
      for (let d = 0; d < this.dim; d++) vector[d] = bytes.readFloatLE(at + 20 + 4 * d);
      this.#vectors.set(bytes.subarray(at, at + 20).toString("hex"), vector);
    }
  }
}

/** The cache file of an embedder id under `dir` (ids hold `/`, which a file name cannot). */
export function cacheFileFor(dir: URL, id: string): string {
  return new URL(`${id.replace(/[^A-Za-z0-9._-]+/g, "_")}.vectors`, dir).pathname;
}
