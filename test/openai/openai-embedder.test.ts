import { describe, it, expect } from "vitest";
import { OpenAIEmbedder } from "../../src/openai.ts";
import { isMoomemError, type MoomemError } from "../../src/errors.ts";
import { OpenAIRequestError } from "../../src/adapters/openai/http-client.ts";
import { FakeFetch, embeddingAnswer, errorAnswer, everythingVisible, type Step } from "./fake-fetch.ts";

const KEY = "sk-embed-SECRET-abcdefabcdef";

function embedder(steps: Step[], extra: Record<string, unknown> = {}): { fake: FakeFetch; e: OpenAIEmbedder } {
  const fake = new FakeFetch(steps);
  const e = new OpenAIEmbedder({
    baseURL: "https://emb.example/v1",
    apiKey: KEY,
    model: "text-embedding-3-small",
    dim: 3,
    fetch: fake.fetch,
    maxRetries: 0,
    ...extra,
  });
  return { fake, e };
}

async function embeddingFailure(promise: Promise<unknown>): Promise<MoomemError> {
  try {
    await promise;
  } catch (error) {
    expect(isMoomemError(error, "EMBEDDING_FAILURE")).toBe(true);
    expect(everythingVisible(error)).not.toContain(KEY);
    return error as MoomemError;
  }
  throw new Error("expected embed to fail");
}

/** Every input text becomes the vector [len, 1, 0], so order can be checked. */
const byLength: Step = (request) => {
  const input = request.body["input"] as string[];
  return embeddingAnswer(input.map((t) => [t.length, 1, 0]));
};

describe("OpenAIEmbedder", () => {
  it("names its embedding space by model and dim", () => {
    const { e } = embedder([byLength]);
    expect(e.id).toBe("openai/text-embedding-3-small/3");
    expect(e.dim).toBe(3);
  });

  it("POSTs /embeddings with model, input and encoding_format float, and L2-normalises", async () => {
    const { fake, e } = embedder([
      embeddingAnswer([
        [3, 4, 0],
        [0, 0, 2],
      ]),
    ]);
    const vectors = await e.embed(["a", "b"]);
    expect(fake.requests[0]!.url).toBe("https://emb.example/v1/embeddings");
    expect(fake.requests[0]!.body).toEqual({ model: "text-embedding-3-small", input: ["a", "b"], encoding_format: "float" });
    expect(fake.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(vectors[0]!)).toEqual([Math.fround(0.6), Math.fround(0.8), 0]);
    expect(Array.from(vectors[1]!)).toEqual([0, 0, 1]);
  });

  it("sends dimensions only when asked", async () => {
    const { fake, e } = embedder([embeddingAnswer([[1, 0, 0]])], { sendDimensions: true });
    await e.embed(["a"]);
    expect(fake.requests[0]!.body["dimensions"]).toBe(3);
  });

  it("splits inputs into batches of batchSize, in order", async () => {
    const { fake, e } = embedder([byLength], { batchSize: 2 });
    const texts = ["a", "bb", "ccc", "dddd", "eeeee"];
    const vectors = await e.embed(texts);
    expect(fake.requests.map((r) => r.body["input"])).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
    const lengths = vectors.map((v) => Math.round((v[0]! / v[1]!) * 1000) / 1000);
    expect(lengths).toEqual([1, 2, 3, 4, 5]);
  });

  it("puts vectors back in input order by their index", async () => {
    const { e } = embedder([
      embeddingAnswer(
        [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
        [2, 0, 1],
      ),
    ]);
    const vectors = await e.embed(["x", "y", "z"]);
    expect(vectors.map((v) => Array.from(v).indexOf(1))).toEqual([0, 1, 2]);
  });

  it("makes no request for no texts", async () => {
    const { fake, e } = embedder([byLength]);
    expect(await e.embed([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  const broken: Array<[string, Step, RegExp]> = [
    ["too few vectors", embeddingAnswer([[1, 0, 0]]), /1 embeddings for 2 texts/],
    [
      "null value (NaN serialised)",
      embeddingAnswer([
        [1, null as unknown as number, 0],
        [1, 0, 0],
      ]),
      /embedding\[1\] is object, not a finite number/,
    ],
    ["infinite value", { text: '{"data":[{"index":0,"embedding":[1,1e400,0]},{"index":1,"embedding":[1,0,0]}]}' }, /embedding\[1\] is Infinity/],
    [
      "string value",
      embeddingAnswer([
        [1, "NaN" as unknown as number, 0],
        [1, 0, 0],
      ]),
      /is string, not a finite number/,
    ],
    [
      "zero vector",
      embeddingAnswer([
        [0, 0, 0],
        [1, 0, 0],
      ]),
      /all zeros/,
    ],
    [
      "duplicate index",
      embeddingAnswer(
        [
          [1, 0, 0],
          [0, 1, 0],
        ],
        [0, 0],
      ),
      /two embeddings for index 0/,
    ],
    [
      "index out of range",
      embeddingAnswer(
        [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
        [0, 2],
      ),
      /index is 2, not a position from 0 to 1/,
    ],
    ["no data", { json: { object: "list" } }, /no "data" array/],
    [
      "base64 instead of floats",
      {
        json: {
          data: [
            { index: 0, embedding: "AAAA" },
            { index: 1, embedding: "AAAA" },
          ],
        },
      },
      /not an array of numbers/,
    ],
  ];
  for (const [name, step, message] of broken) {
    it(`rejects an answer with ${name}`, async () => {
      const { e } = embedder([step]);
      const error = await embeddingFailure(e.embed(["one", "two"]));
      expect(error.message).toMatch(message);
      expect(error.message).toContain("text-embedding-3-small");
    });
  }

  it("wraps HTTP failures with the status in the cause and the message", async () => {
    const { e } = embedder([errorAnswer(500, `internal error for key ${KEY}`)]);
    const error = await embeddingFailure(e.embed(["one"]));
    expect(error.message).toMatch(/HTTP 500/);
    expect(error.message).toContain("[redacted]");
    expect(error.cause).toBeInstanceOf(OpenAIRequestError);
    expect((error.cause as OpenAIRequestError).status).toBe(500);
  });

  it("says which batch failed", async () => {
    let calls = 0;
    const { e } = embedder([(request) => (++calls === 2 ? errorAnswer(503, "busy") : byLength(request))], { batchSize: 1 });
    const error = await embeddingFailure(e.embed(["a", "b", "c"]));
    expect(error.message).toMatch(/texts 1\.\.1 of 3/);
  });

  it("validates its options and inputs", async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ dim: 0 }, /dim must be the model's vector length/],
      [{ dim: 1.5 }, /dim must be/],
      [{ model: "" }, /model must be a non-empty string/],
      [{ batchSize: 0 }, /batchSize must be an integer from 1 to 2048/],
      [{ sendDimensions: "yes" }, /sendDimensions must be true or false/],
    ];
    for (const [patch, message] of bad) {
      expect(() => new OpenAIEmbedder({ baseURL: "https://x.example/v1", model: "m", dim: 3, ...patch } as never)).toThrow(message);
    }
    const { e } = embedder([byLength]);
    await expect(e.embed(["ok", ""])).rejects.toThrow(/texts\[1\] must be a non-empty string/);
    await expect(e.embed("text" as never)).rejects.toThrow(/texts must be an array/);
  });
});
