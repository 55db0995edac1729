// Embedder over any OpenAI-compatible `/embeddings` endpoint: batched, checked, L2-normalised.

import { MoomemError } from "../../errors.ts";
import type { Embedder } from "../../types.ts";
import { requireModel } from "./chat.ts";
import { OpenAIHttpClient, type ConnectionOptions } from "./http-client.ts";
import { providerConfigError } from "./provider-config.ts";

/** Settings of {@link OpenAIEmbedder}. */
export interface OpenAIEmbedderOptions extends ConnectionOptions {
  /** Embedding model, e.g. `text-embedding-3-small`, `text-embedding-v3` (DashScope), `nomic-embed-text` (Ollama). */
  model: string;
  /** Length of the vectors the model returns (checked on every answer). */
  dim: number;
  /** Texts per request (default 64; OpenAI allows 2048, DashScope's v3/v4 models 10). */
  batchSize?: number | undefined;
  /**
   * Also send `dimensions: dim`, for models that can shorten their vectors (OpenAI text-embedding-3, DashScope v3/v4).
   * Off by default because other servers reject the field.
   */
  sendDimensions?: boolean | undefined;
}

/** Default per-attempt timeout of an embeddings request. */
export const DEFAULT_EMBED_TIMEOUT_MS = 30_000;
const DEFAULT_BATCH_SIZE = 64;
const MAX_BATCH_SIZE = 2048;
const MAX_DIM = 65_536;

/**
 * Embeds texts with an OpenAI-compatible embeddings API. Every answer is checked (one vector per text, each of
 * length `dim`, finite numbers, not all zero) and L2-normalised; a failure rejects with `EMBEDDING_FAILURE`
 * whose cause is an `OpenAIRequestError` (HTTP status, provider message) — never the API key.
 * Its `id` (`openai/<model>/<dim>`) names the embedding space, so a store refuses vectors from another model.
 *
 * @example
 * ```ts
 * const embedder = new OpenAIEmbedder({
 *   baseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1", apiKey: process.env.DASHSCOPE_API_KEY,
 *   model: "text-embedding-v3", dim: 1024, batchSize: 10,
 * });
 * const store = await MemoryStore.open("./memory", { embedder });
 * ```
 */
export class OpenAIEmbedder implements Embedder {
  readonly dim: number;
  readonly id: string;
  /** A model's vectors carry meaning: recall gives them a full vote (see `Embedder.kind`). */
  readonly kind = "semantic" as const;
  readonly model: string;
  readonly batchSize: number;
  readonly #client: OpenAIHttpClient;
  readonly #sendDimensions: boolean;

  constructor(options: OpenAIEmbedderOptions) {
    const owner = "OpenAIEmbedder";
    if (typeof options !== "object" || options === null) {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: pass an options object { baseURL, apiKey?, model, dim }.`);
    }
    this.#client = new OpenAIHttpClient(options, owner, DEFAULT_EMBED_TIMEOUT_MS);
    this.model = requireModel(options.model, owner);
    const dim = options.dim;
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 1 || dim > MAX_DIM) {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: dim must be the model's vector length, an integer from 1 to ${MAX_DIM} (got ${String(dim)}).`);
    }
    this.dim = dim;
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    if (typeof batchSize !== "number" || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: batchSize must be an integer from 1 to ${MAX_BATCH_SIZE} (got ${String(batchSize)}).`);
    }
    this.batchSize = batchSize;
    if (options.sendDimensions !== undefined && typeof options.sendDimensions !== "boolean") {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: sendDimensions must be true or false.`);
    }
    this.#sendDimensions = options.sendDimensions ?? false;
    this.id = `openai/${this.model}/${dim}`;
  }

  /** One unit-length vector per text, in order. Batches go out one after another, to stay under rate limits. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!Array.isArray(texts)) {
      throw new MoomemError("INVALID_ARGUMENT", `OpenAIEmbedder.embed: texts must be an array of strings (got ${typeof texts}).`);
    }
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      if (typeof text !== "string" || text.trim() === "") {
        // OpenAI rejects empty inputs with a 400; say which one instead.
        throw new MoomemError(
          "INVALID_ARGUMENT",
          `OpenAIEmbedder.embed: texts[${i}] must be a non-empty string (got ${typeof text === "string" ? "blank text" : typeof text}).`,
        );
      }
    }
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      vectors.push(...(await this.#embedBatch(batch, start, texts.length)));
    }
    return vectors;
  }

  async #embedBatch(batch: string[], offset: number, total: number): Promise<Float32Array[]> {
    const where = total > batch.length ? ` (texts ${offset}..${offset + batch.length - 1} of ${total})` : "";
    const body: Record<string, unknown> = { model: this.model, input: batch, encoding_format: "float" };
    if (this.#sendDimensions) body["dimensions"] = this.dim;
    let answer: unknown;
    try {
      answer = await this.#client.postJson("embeddings", body);
    } catch (error) {
      const reason = this.#client.redact(error instanceof Error ? error.message : String(error));
      const owner = `OpenAIEmbedder (${this.model})`;
      throw providerConfigError(owner, reason, error) ?? new MoomemError("EMBEDDING_FAILURE", `${owner} could not embed${where}: ${reason}`, { cause: error });
    }
    return this.#readVectors(answer, batch.length, where);
  }

  #readVectors(answer: unknown, expected: number, where: string): Float32Array[] {
    const fail = (what: string): never => {
      throw new MoomemError(
        "EMBEDDING_FAILURE",
        `OpenAIEmbedder (${this.model}) got an unusable answer from ${this.#client.baseLabel}/embeddings${where}: ${what}`,
      );
    };
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return fail('no "data" array; is this an OpenAI-compatible embeddings endpoint?');
    if (data.length !== expected) return fail(`${data.length} embeddings for ${expected} texts.`);
    const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(expected).fill(undefined);
    for (let i = 0; i < data.length; i++) {
      const item = data[i] as { index?: unknown; embedding?: unknown } | null;
      // `index` is authoritative when present; some servers omit it and answer in order.
      const index = item?.index === undefined ? i : item.index;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected) {
        return fail(`data[${i}].index is ${JSON.stringify(index)}, not a position from 0 to ${expected - 1}.`);
      }
      if (vectors[index] !== undefined) return fail(`two embeddings for index ${index}.`);
      vectors[index] = this.#toUnitVector(item?.embedding, i, fail);
    }
    return vectors as Float32Array[];
  }

  #toUnitVector(embedding: unknown, i: number, fail: (what: string) => never): Float32Array {
    if (!Array.isArray(embedding)) {
      return fail(`data[${i}].embedding is not an array of numbers (the adapter asks for encoding_format "float").`);
    }
    if (embedding.length !== this.dim) {
      // Every later answer will have the same length: degrading would silently turn recall keyword-only for good.
      throw new MoomemError(
        "PROVIDER_CONFIG",
        `OpenAIEmbedder (${this.model}): the model answered vectors of ${embedding.length} dimensions, but dim is ${this.dim}; ` +
          `set dim: ${embedding.length} (MOOMEM_EMBED_DIM=${embedding.length} for the CLI), or sendDimensions: true if the model can shorten its vectors to ${this.dim}.`,
      );
    }
    let sumSquares = 0;
    for (let d = 0; d < this.dim; d++) {
      const value: unknown = embedding[d];
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return fail(`data[${i}].embedding[${d}] is ${typeof value === "number" ? String(value) : typeof value}, not a finite number.`);
      }
      sumSquares += value * value;
    }
    const norm = Math.sqrt(sumSquares);
    // A zero vector has no direction, so cosine similarity against it means nothing.
    if (norm === 0) return fail(`data[${i}].embedding is all zeros.`);
    if (!Number.isFinite(norm)) return fail(`data[${i}].embedding has values too large to normalise.`);
    // Divide in double precision first: a raw value may not fit a float32 even though its unit-length share does.
    const vector = new Float32Array(this.dim);
    for (let d = 0; d < this.dim; d++) vector[d] = (embedding[d] as number) / norm;
    return vector;
  }
}
