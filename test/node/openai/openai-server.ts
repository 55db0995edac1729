// A local HTTP server speaking the OpenAI API (chat completions, embeddings) with scripted answers, for Node-side tests.

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { Socket } from "node:net";
import { EXTRACTION_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT } from "../../../src/adapters/openai/prompts.ts";

/** One request the server received. */
export interface ServedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** What the server does: answer, never answer, or drop the connection. */
export type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | { hang: true } | { destroy: true };

export type Handler = (request: ServedRequest) => Reply | Promise<Reply>;

/** Starts on 127.0.0.1 with a free port; `handler` may be swapped at any time (a server that "recovers"). */
export class ScriptedOpenAIServer {
  readonly requests: ServedRequest[] = [];
  handler: Handler;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #port = 0;

  private constructor(handler: Handler) {
    this.handler = handler;
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const request: ServedRequest = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>),
        };
        this.requests.push(request);
        void Promise.resolve(this.handler(request)).then((reply) => {
          if ("hang" in reply) return;
          if ("destroy" in reply) {
            req.socket.destroy();
            return;
          }
          const text = reply.text ?? JSON.stringify(reply.json ?? {});
          res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
          res.end(text);
        });
      });
    });
    this.#server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  static async start(handler: Handler): Promise<ScriptedOpenAIServer> {
    const server = new ScriptedOpenAIServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.#server.once("error", reject);
      server.#server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.#server.address();
    if (address === null || typeof address === "string") throw new Error("server has no port");
    server.#port = address.port;
    return server;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Requests to one endpoint (`chat/completions` or `embeddings`). */
  calls(endpoint: string): ServedRequest[] {
    return this.requests.filter((r) => r.path === `/v1/${endpoint}`);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A chat-completions reply whose message content is `content`. */
export function chatReply(content: string): Reply {
  return {
    json: {
      id: "chatcmpl-local",
      object: "chat.completion",
      created: 1,
      model: "local",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** How the rule model turns one user line into a fact. */
export interface FactRule {
  pattern: RegExp;
  content: (match: RegExpMatchArray) => string;
  kind: "fact" | "preference" | "event";
  key?: string;
}

/** The user lines of an extraction request (continuation lines joined back). */
export function userLines(request: ServedRequest): string[] {
  const messages = request.body["messages"] as Array<{ role: string; content: string }>;
  // A retry request ends with the correction; the conversation sits in the first user message.
  const text = messages.find((m) => m.role === "user" && m.content.includes("<conversation>"))?.content ?? "";
  const conversation = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(text)?.[1] ?? "";
  const out: string[] = [];
  let current: string[] | null = null;
  for (const line of conversation.split("\n")) {
    if (line.startsWith("  ") && current !== null) current.push(line.trim());
    else {
      if (current !== null) out.push(current.join(" "));
      current = line.startsWith("user: ") ? [line.slice("user: ".length)] : null;
    }
  }
  if (current !== null) out.push(current.join(" "));
  return out;
}

/**
 * A deterministic stand-in for a chat model: extraction requests get the facts `rules` find in the user's lines
 * (everything else is treated as small talk); judge requests get `replace` for a stored memory with the same key
 * as its new fact and `ignore` otherwise.
 */
export function ruleModel(rules: FactRule[]): (request: ServedRequest) => string {
  return (request) => {
    const messages = request.body["messages"] as Array<{ role: string; content: string }>;
    const system = messages[0]?.content;
    if (system === EXTRACTION_SYSTEM_PROMPT) {
      const facts: unknown[] = [];
      for (const line of userLines(request)) {
        for (const rule of rules) {
          const match = rule.pattern.exec(line);
          if (match === null) continue;
          facts.push({ content: rule.content(match), kind: rule.kind, ...(rule.key === undefined ? {} : { key: rule.key }), source_span: match[0] });
        }
      }
      return JSON.stringify({ facts });
    }
    if (system === JUDGE_SYSTEM_PROMPT) {
      const body = messages[1]?.content ?? "";
      const verdicts: unknown[] = [];
      let factKey: string | undefined;
      for (const line of body.split("\n")) {
        const fact = /^New fact \w+ \(kind \w+(?:, key (\w+))?\)/.exec(line);
        if (fact !== null) factKey = fact[1];
        const candidate = /^\[(\d+)\] \(kind \w+(?:, key (\w+))?/.exec(line);
        if (candidate === null) continue;
        const same = factKey !== undefined && candidate[2] === factKey;
        verdicts.push({
          candidate: Number(candidate[1]),
          decision: same ? "replace" : "ignore",
          reason: same ? `same ${factKey}, new value` : "unrelated",
        });
      }
      return JSON.stringify({ verdicts });
    }
    throw new Error("ruleModel: not a moomem prompt");
  };
}

/** Embeddings by hashed words (FNV-1a into `dim` buckets), so texts sharing words are close. Never all zeros. */
export function hashEmbeddings(dim: number): (request: ServedRequest) => Reply {
  return (request) => {
    const input = request.body["input"] as string[];
    const data = input.map((text, index) => {
      const vector = new Array<number>(dim).fill(0);
      vector[dim - 1] = 0.05;
      for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
        if (word === "") continue;
        let hash = 0x811c9dc5;
        for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
        vector[hash % (dim - 1)]! += 1;
      }
      return { object: "embedding", index, embedding: vector };
    });
    return { json: { object: "list", model: "local-embed", data, usage: { prompt_tokens: 1, total_tokens: 1 } } };
  };
}
