// Step 5 of add (and the query side of recall): one embed() call, checked, degraded on failure.

import type { Embedder } from "../types.ts";
import { describeError, isMoomemError } from "../errors.ts";
import { checkEmbeddings } from "../validation/plugin-checks.ts";

export interface EmbedResult {
  /** One vector per text, or null for all when embedding failed. */
  vectors: Float32Array[] | null;
  degradedReason?: string;
}

/**
 * Embeds all texts in one call; a throw or a wrong shape (count, length other than `dim`, NaN) is
 * reported, not thrown. `dim` is the one the store checked at open (default: `embedder.dim` now).
 */
export async function embedTexts(embedder: Embedder, texts: string[], dim?: number): Promise<EmbedResult> {
  if (texts.length === 0) return { vectors: [] };
  try {
    const checked = checkEmbeddings(await embedder.embed(texts), texts.length, dim ?? embedder.dim);
    return "problem" in checked ? { vectors: null, degradedReason: checked.problem } : { vectors: checked.vectors };
  } catch (error) {
    // A refused configuration (bad key, wrong dim) fails every later call too: stop instead of degrading.
    if (isMoomemError(error, "PROVIDER_CONFIG")) throw error;
    return { vectors: null, degradedReason: `embedder failed: ${describeError(error)}` };
  }
}
