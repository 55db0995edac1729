// A scripted stand-in for `fetch` speaking the OpenAI HTTP API, for the shared adapter tests (no server, no node:).

import type { FetchInitLike, FetchLike, FetchResponseLike } from "../../src/adapters/openai/http-client.ts";

/** One request the fake received. */
export interface RecordedRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** What the fake does for one request: answer, fail like a dead network, or hang until aborted. */
export type Step =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | { networkError: unknown }
  | { hang: true; ignoreSignal?: boolean }
  | ((request: RecordedRequest) => Step);

/** A fake fetch that plays `steps` in order (the last one repeats) and records every request. */
export class FakeFetch {
  readonly requests: RecordedRequest[] = [];
  readonly fetch: FetchLike;
  #steps: Step[];

  constructor(steps: Step[]) {
    this.#steps = [...steps];
    this.fetch = (url, init) => this.#handle(url, init);
  }

  /** Replaces the script (e.g. the server "recovers"). */
  script(steps: Step[]): void {
    this.#steps = [...steps];
  }

  async #handle(url: string, init: FetchInitLike): Promise<FetchResponseLike> {
    const request: RecordedRequest = { url, headers: { ...init.headers }, body: JSON.parse(init.body) as Record<string, unknown> };
    this.requests.push(request);
    let step = this.#steps.length > 1 ? this.#steps.shift() : this.#steps[0];
    if (step === undefined) throw new Error("FakeFetch: no step scripted");
    while (typeof step === "function") step = step(request);
    if ("networkError" in step) throw step.networkError;
    if ("hang" in step) {
      const signal = init.signal;
      return new Promise((_resolve, reject) => {
        if (step !== undefined && "hang" in step && step.ignoreSignal === true) return;
        signal.addEventListener("abort", () => reject(new DOMException("This operation was aborted", "AbortError")), { once: true });
      });
    }
    const text = step.text ?? JSON.stringify(step.json ?? {});
    return new Response(text, { status: step.status ?? 200, headers: { "content-type": "application/json", ...step.headers } });
  }
}

/** A chat-completions answer whose message content is `content`. */
export function chatAnswer(content: string, finishReason = "stop"): Step {
  return {
    json: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1,
      model: "test-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** An embeddings answer with the given vectors (index = position unless `order` reorders them). */
export function embeddingAnswer(vectors: number[][], order?: number[]): Step {
  const positions = order ?? vectors.map((_v, i) => i);
  return {
    json: {
      object: "list",
      model: "test-embed",
      data: positions.map((index) => ({ object: "embedding", index, embedding: vectors[index] })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    },
  };
}

/** An OpenAI-style error body. */
export function errorAnswer(status: number, message: string, extra: { code?: string; headers?: Record<string, string> } = {}): Step {
  return {
    status,
    json: { error: { message, type: "test_error", code: extra.code ?? null } },
    ...(extra.headers === undefined ? {} : { headers: extra.headers }),
  };
}

/** Every string a thrown value exposes: String(), stack, JSON, and the same for each cause down the chain. */
export function everythingVisible(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    parts.push(String(current));
    if (typeof current === "object") {
      const e = current as { stack?: unknown; message?: unknown; cause?: unknown };
      parts.push(String(e.stack), String(e.message));
      try {
        parts.push(JSON.stringify(current));
      } catch (jsonError) {
        parts.push(`unserialisable: ${String(jsonError)}`);
      }
      for (const key of Object.keys(current)) parts.push(`${key}=${String((current as Record<string, unknown>)[key])}`);
      current = e.cause;
    } else {
      current = undefined;
    }
  }
  return parts.join("\n");
}
