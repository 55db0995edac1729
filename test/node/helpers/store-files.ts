// Helpers for the file backend's Node tests: temp folders, byte-exact folder snapshots, entries and the state they should give.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Batch } from "../../../src/persistence/backend.ts";
import type { EntryRecord } from "../../../src/types.ts";

/** A new empty folder under the OS temp dir; remove it with {@link removeDir}. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `moomem-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Copies a whole store folder (the user's directory, including moomem/). */
export function copyDir(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

/** Every file under `dir` (recursively) with its bytes, so "no file changed" can be checked exactly; a socket (a held lock) shows as "<socket>". */
export function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub)).sort();
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return;
      throw error;
    }
    for (const name of names) {
      const rel = sub === "" ? name : `${sub}/${name}`;
      const st = statSync(join(dir, rel));
      if (st.isDirectory()) walk(rel);
      else if (st.isSocket()) out[rel] = "<socket>";
      else out[rel] = readFileSync(join(dir, rel)).toString("base64");
    }
  };
  walk("");
  return out;
}

/** The writer lock's files (`LOCK`, `LOCK.<n>`, `LOCK.<n>.info`): not store data. */
export function isLockFile(name: string): boolean {
  return /(^|\/)LOCK(\.|$)/.test(name);
}

/** The names of the store's data files under `dir`, sorted (lock files left out). */
export function dataFilesOf(dir: string): string[] {
  return Object.keys(filesOf(dir))
    .filter((name) => !isLockFile(name))
    .sort();
}

const T0 = 1_700_000_000_000;

/** An entry with a small vector; `size` pads the content to make large records. */
export function entry(id: string, seq: number, overrides: Partial<EntryRecord> = {}, size = 0): EntryRecord {
  return {
    id,
    userId: `user-${seq % 3}`,
    content: `fact ${seq} «${id}»${size > 0 ? " " + "x".repeat(size) : ""}`,
    kind: "fact",
    status: "active",
    createdAt: T0 + seq,
    updatedAt: T0 + seq,
    seq,
    metadata: { seq },
    lifecycle: {},
    embedding: Float32Array.from([seq, 0.5, -0.25, 1 / 3]),
    ...overrides,
  };
}

/** Plain-data view so `toEqual` compares vectors by value. */
export function plain(e: EntryRecord): Record<string, unknown> {
  return { ...e, embedding: e.embedding === null ? null : Array.from(e.embedding) };
}

/** The latest version of each id in seq order, after these batches. */
export function stateAfter(batches: readonly Batch[]): EntryRecord[] {
  const latest = new Map<string, EntryRecord>();
  for (const batch of batches) for (const e of batch.entries) latest.set(e.id, e);
  return [...latest.values()].sort((a, b) => a.seq - b.seq);
}

export const EMBEDDER = { id: "test-embedder", dim: 4 };

/** Byte offset where the last line of a file starts (the file ends with a newline). */
export function lastLineStart(bytes: Uint8Array): number {
  const end = bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length;
  return bytes.lastIndexOf(10, end - 1) + 1;
}
