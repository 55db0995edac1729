// Step 5 of add (and the query side of recall): one embed() call, checked, degraded on failure.

import type { Embedder } from "../types.ts";
import { describeError, isMoomemError } from "../errors.ts";
import { checkVector } from "../embedding/vector-math.ts";

export interface EmbedResult {
  /** One vector per text, or null for all when embedding failed. */
  vectors: Float32Array[] | null;
  degradedReason?: string;
}

/** Embeds all texts in one call; a throw or a wrong shape (count, dim, NaN) is reported, not thrown. */
export async function embedTexts(embedder: Embedder, texts: string[]): Promise<EmbedResult> {
  if (texts.length === 0) return { vectors: [] };
  try {
    const vectors: unknown = await embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      return { vectors: null, degradedReason: `embedder returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${texts.length} texts` };
    }
    for (const v of vectors) {
      const problem = checkVector(v, embedder.dim);
      if (problem !== null) return { vectors: null, degradedReason: `embedder returned a bad vector: ${problem}` };
    }
    return { vectors: vectors as Float32Array[] };
  } catch (error) {
    // A refused configuration (bad key, wrong dim) fails every later call too: stop instead of degrading.
    if (isMoomemError(error, "PROVIDER_CONFIG")) throw error;
    return { vectors: null, degradedReason: `embedder failed: ${describeError(error)}` };
  }
}
