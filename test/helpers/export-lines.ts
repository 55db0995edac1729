// Building and bending export lines for the import tests: headers, entry objects, vectors holding NaN or Infinity.

import type { Embedder } from "../../src/types.ts";
import { bytesToBase64 } from "../../src/persistence/base64.ts";

/** A tiny dense embedder: every text gets a unit vector of 4 components derived from its length. */
export const DENSE4: Embedder = {
  dim: 4,
  id: "test/dense4",
  embed: (texts) => Promise.resolve(texts.map((t) => Float32Array.of(1, (t.length % 7) / 7, 0.5, -0.25))),
};

export type Json = Record<string, unknown>;

/** Reads every line of an export (or any async iterable of lines) into an array. */
export async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** The export's lines as objects (header first). */
export function objects(lines: readonly string[]): Json[] {
  return lines.filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Json);
}

/** Back to JSONL lines. */
export function toLines(values: readonly unknown[]): string[] {
  return values.map((v) => `${JSON.stringify(v)}\n`);
}

/** An export header for `count` entries of the embedder `{ id, dim }`. */
export function header(embedder: { id: string; dim: number }, count: number, extra: Json = {}): Json {
  return {
    moomem_export: 1,
    entry_format: 2,
    embedder: { id: embedder.id, dim: embedder.dim },
    user_id: null,
    exported_at: 1_700_000_000_000,
    count,
    ...extra,
  };
}

/** Dense base64 of these float32 values (what an export line holds), NaN and ±Infinity included. */
export function denseBase64(values: readonly number[]): string {
  const v = Float32Array.from(values);
  return bytesToBase64(new Uint8Array(v.buffer));
}

/** Sparse form `{ dim, sparse }` of (index, value) pairs, written without any check. */
export function sparseJson(dim: number, pairs: ReadonlyArray<[number, number]>): { dim: number; sparse: string } {
  const bytes = new Uint8Array(6 * pairs.length);
  const view = new DataView(bytes.buffer);
  pairs.forEach(([index, value], k) => {
    view.setFloat32(4 * k, value, true);
    view.setUint16(4 * pairs.length + 2 * k, index, true);
  });
  return { dim, sparse: bytesToBase64(bytes) };
}

/** An entry object in the export shape. */
export function entryJson(id: string, userId: string, content: string, extra: Json = {}): Json {
  return {
    id,
    user_id: userId,
    content,
    kind: "fact",
    status: "active",
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    superseded_by: null,
    seq: 1,
    embedding: null,
    metadata: {},
    ...extra,
  };
}
