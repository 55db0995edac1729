// A synthetic file store for the cold-start and close benches: `entries` short facts spread over `users`, hashing
// vectors, written by a FileBackend (appends, compacted every 100,000 entries), as a store of that size would be.

import type { EntryRecord } from "../src/types.ts";

/** The words the facts are made of (a recall for any of them finds hits). */
export const VOCAB = [
  "coffee",
  "peanuts",
  "Berlin",
  "nurse",
  "violin",
  "daughter",
  "hiking",
  "vegetarian",
  "Tuesday",
  "meeting",
  "allergic",
  "tea",
  "Shanghai",
];

export function syntheticText(i: number): string {
  const words: string[] = [];
  let x = (i * 2654435761) >>> 0;
  for (let k = 0; k < 12; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[(x >>> 8) % VOCAB.length]!);
  }
  return `fact ${i}: ${words.join(" ")}`;
}

/** Writes the store into `dir` with this checkout's code (imported when called, so a script measuring another checkout loads none of it first). */
export async function buildSyntheticStore(dir: string, entries: number, users: number): Promise<void> {
  const { FileBackend } = await import("../src/persistence/file/file-backend.ts");
  const { HashingEmbedder } = await import("../src/embedding/hashing-embedder.ts");
  const { makeEntryId } = await import("../src/state/ids.ts");
  const embedder = new HashingEmbedder();
  const identity = { id: embedder.id, dim: embedder.dim };
  const backend = new FileBackend(dir, { sync: "none" });
  // Opened as a store that loads users when asked: compactStored folds the journal into the snapshot from the
  // files, so a million entries are never all in memory at once.
  await backend.openCatalog();
  for (let start = 0; start < entries; start += 512) {
    const texts: string[] = [];
    for (let i = start; i < Math.min(entries, start + 512); i++) texts.push(syntheticText(i));
    const vectors = await embedder.embed(texts);
    const batch: EntryRecord[] = texts.map((content, k) => {
      const seq = start + k + 1;
      return {
        id: makeEntryId(seq),
        userId: `user-${seq % users}`,
        content,
        kind: "fact",
        status: "active",
        createdAt: 1_700_000_000_000 + seq,
        updatedAt: 1_700_000_000_000 + seq,
        seq,
        metadata: {},
        lifecycle: { extractor: "patterns" },
        embedding: vectors[k]!,
      };
    });
    await backend.append([{ entries: batch }]);
    if ((start + 512) % 102_400 === 0) await backend.compactStored(identity);
  }
  await backend.compactStored(identity);
  await backend.close();
}
