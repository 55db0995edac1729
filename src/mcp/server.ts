// `moomem mcp`: a Model Context Protocol server over stdio exposing one store's remember/recall/forget/list tools.

import { readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { MoomemError, describeError, invalidArgument } from "../errors.ts";
import { MemoryStore, type OpenOptions } from "../node.ts";
import { callMemoryTool, checkMcpScope, memoryToolDefinitions } from "./memory-tools.ts";

/** Options of {@link runMcpServer}. */
export interface McpServerOptions {
  /** The store's directory (as for `MemoryStore.open`; `":memory:"` for a throwaway store). */
  dir: string;
  /**
   * Serve only this user's memories: the tools take no `userId`, so the client (in the end, the model) cannot
   * reach anyone else's. Give exactly one of `userId` and `anyUser`.
   */
  userId?: string;
  /**
   * `true`: every tool takes the user's id as the argument `userId`, so the client can read and forget every
   * user's memories. Only for a client you trust with all of them (your own agent framework, a test harness).
   */
  anyUser?: boolean;
  /** Where JSON-RPC requests come from (default `process.stdin`). */
  input?: Readable;
  /** Where responses go (default `process.stdout`). Nothing else is ever written there. */
  output?: Writable;
  /** Options for `MemoryStore.open` (embedder, extractor, clock, …). */
  storeOptions?: OpenOptions;
  /** Stops the server (and closes the store) when aborted, e.g. on SIGTERM. */
  signal?: AbortSignal;
}

/** The SDK version range moomem is tested with; said in the error when it is missing. */
const SDK_PACKAGE = "@modelcontextprotocol/sdk";
const SDK_RANGE = "^1.32.2";

/**
 * Serves one moomem store to an MCP client (Claude Desktop, Cursor, an agent framework …) over stdio:
 * the tools `remember`, `recall`, `forget` and `list`. With `userId` every call reaches that user's memories
 * and no other (the tools take no `userId`); with `anyUser: true` each call names the user in the argument
 * `userId`, which hands the client every user's memories. One of the two is required. A bad argument or a
 * store failure is answered with a tool error whose text starts with the MoomemError code
 * (`INVALID_ARGUMENT: …`); the server keeps running. Tool calls run one at a time in the order they arrive,
 * so a `recall` sent right after a `remember` sees what it stored.
 *
 * Opens the store first (so `STORE_LOCKED` and the like reject at once), then serves until the input
 * ends, the client disconnects or `signal` aborts; then it closes the store (flush, compact, unlock) and
 * resolves. Needs the optional peer dependency `@modelcontextprotocol/sdk`; without it, rejects with
 * `MISSING_DEPENDENCY` saying what to install.
 *
 * @example
 * ```ts
 * // what `moomem --dir ./memory mcp --user alice` runs
 * const stop = new AbortController();
 * process.once("SIGTERM", () => stop.abort());
 * await runMcpServer({ dir: "./memory", userId: "alice", signal: stop.signal });
 * ```
 */
export async function runMcpServer(options: McpServerOptions): Promise<void> {
  if (typeof options !== "object" || options === null) {
    throw invalidArgument("runMcpServer: pass an options object { dir, userId or anyUser, input?, output?, storeOptions?, signal? }");
  }
  const { dir, storeOptions, signal } = options;
  if (typeof dir !== "string" || dir.length === 0)
    throw invalidArgument(`runMcpServer: dir must be a non-empty string (the store's directory), got ${typeof dir}`);
  const scope = checkMcpScope(options, "runMcpServer");
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  if (typeof input.on !== "function") throw invalidArgument("runMcpServer: input must be a readable stream");
  if (typeof output.write !== "function") throw invalidArgument("runMcpServer: output must be a writable stream");

  const sdk = await loadSdk();
  if (signal?.aborted) return;
  const store = await MemoryStore.open(dir, storeOptions);
  let server: SdkServer;
  let transport: SdkTransport;
  try {
    server = new sdk.Server({ name: "moomem", version: packageVersion() }, { capabilities: { tools: {} } });
    server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: memoryToolDefinitions(scope).map((t) => ({ ...t })) }));
    // Dates in answers are relative to the store's clock, so an injected clock gives reproducible answers.
    const now = storeOptions?.clock === undefined ? Date.now : () => storeOptions.clock!.now();
    // One call at a time, in arrival order: a recall sent right after a remember sees what it stored.
    let previous: Promise<unknown> = Promise.resolve();
    server.setRequestHandler(sdk.CallToolRequestSchema, (request) => {
      const result = previous.then(() => callMemoryTool(store, scope, request.params.name, request.params.arguments, now));
      previous = result;
      return result;
    });
    transport = new sdk.StdioServerTransport(input, output);
  } catch (error) {
    await store.close();
    throw error;
  }

  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    // The SDK's stdio transport does not notice the end of its input; without this the server would hang.
    input.once("end", stop);
    input.once("close", stop);
    transport.onclose = stop;
    signal?.addEventListener("abort", stop, { once: true });
  });
  // Boxed: a caught value may be anything, null included.
  let failure: { error: unknown } | null = null;
  try {
    await server.connect(transport);
    await stopped;
  } catch (error) {
    failure = { error };
  }
  let closeError: unknown = null;
  try {
    await server.close();
  } catch (error) {
    closeError = error;
  }
  // The store is closed even when serving or closing the transport failed (a store error then wins: it matters more).
  await store.close();
  if (failure !== null) throw failure.error;
  if (closeError !== null)
    throw new MoomemError("IO_FAILURE", `runMcpServer: closing the MCP connection failed: ${describeError(closeError)}`, { cause: closeError });
}

/**
 * The part of the SDK this server uses, typed here rather than imported: the SDK is an optional peer, and its
 * `./*` subpath types do not resolve in every checker (Deno's). test/node/mcp.test.ts runs it against the real SDK.
 */
interface SdkServer {
  setRequestHandler(schema: unknown, handler: (request: { params: { name: string; arguments?: Record<string, unknown> } }) => unknown): void;
  connect(transport: SdkTransport): Promise<void>;
  close(): Promise<void>;
}

interface SdkTransport {
  onclose?: (() => void) | undefined;
}

interface Sdk {
  Server: new (info: { name: string; version: string }, options: { capabilities: { tools: Record<string, never> } }) => SdkServer;
  StdioServerTransport: new (input: Readable, output: Writable) => SdkTransport;
  ListToolsRequestSchema: unknown;
  CallToolRequestSchema: unknown;
}

// Module names in variables: bundlers then leave the optional peer out instead of failing to resolve it.
const SDK_SERVER = `${SDK_PACKAGE}/server/index.js`;
const SDK_STDIO = `${SDK_PACKAGE}/server/stdio.js`;
const SDK_TYPES = `${SDK_PACKAGE}/types.js`;

/** Loads the SDK only when a server starts, so moomem installs and runs without it. */
async function loadSdk(): Promise<Sdk> {
  try {
    const [server, stdio, types] = (await Promise.all([import(SDK_SERVER), import(SDK_STDIO), import(SDK_TYPES)])) as Array<Record<string, unknown>>;
    const sdk = {
      // The low-level Server takes plain JSON Schemas (McpServer.registerTool wants zod schemas); moomem validates arguments itself.
      Server: server!["Server"],
      StdioServerTransport: stdio!["StdioServerTransport"],
      ListToolsRequestSchema: types!["ListToolsRequestSchema"],
      CallToolRequestSchema: types!["CallToolRequestSchema"],
    };
    const missing = Object.entries(sdk)
      .filter(([, value]) => value === undefined)
      .map(([name]) => name);
    if (missing.length > 0) throw new Error(`this version of ${SDK_PACKAGE} has no ${missing.join(", ")}`);
    return sdk as Sdk;
  } catch (error) {
    throw new MoomemError(
      "MISSING_DEPENDENCY",
      `the MCP server needs the optional package ${SDK_PACKAGE}, which could not be loaded (${describeError(error)}); install it next to moomem with: npm i ${SDK_PACKAGE}@${SDK_RANGE} ` +
        `(with npx, install both: npx -y -p moomem -p ${SDK_PACKAGE} moomem mcp --user <id>)`,
      { cause: error },
    );
  }
}

function packageVersion(): string {
  try {
    // src/mcp and dist/mcp are both two levels below package.json.
    const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch (_error) {
    // The version is only informational (serverInfo): a bundled copy without package.json still serves.
    return "0.0.0";
  }
}
