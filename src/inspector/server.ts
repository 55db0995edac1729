// The inspector's HTTP server: loopback only, every request checked (Host, token, method, size) before the page or the API sees it.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { MoomemError, invalidArgument } from "../errors.ts";
import { newAccessToken, tokenMatches } from "./access-token.ts";
import { InspectorApi } from "./api.ts";
import { HttpError, toHttpError } from "./http-error.ts";
import { loadPageAssets, type AssetTable } from "./page-assets.ts";
import type { StoreHolder } from "./store-holder.ts";

/** The only address the inspector listens on: other machines cannot reach it. */
export const LOOPBACK = "127.0.0.1";
/** Header that carries the token on a write (a cross-site form or image cannot set it). */
export const TOKEN_HEADER = "x-moomem-token";
/** Longest request target accepted, well under Node's header limit so the answer is ours (JSON), not a bare 431. */
const MAX_URL_CHARS = 8192;
/** Largest request body (a forget or restore body is a few bytes). */
const MAX_BODY_BYTES = 16 * 1024;

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Only this origin's script and stylesheet; no inline code, no frames, nothing loaded from elsewhere.
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  // The token is in every URL: never send it to another site as a Referer.
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

export interface InspectorServerOptions {
  holder: StoreHolder;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The moomem version, shown by the page. */
  version: string;
  /** Access token (default: 256 fresh random bits). */
  token?: string;
  /** Page assets (default: the compiled page next to this module). */
  assets?: AssetTable;
}

export interface RunningInspector {
  /** The link to open: `http://127.0.0.1:<port>/<token>/`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Stops accepting requests and drops open connections (the store is the holder's to close). */
  close(): Promise<void>;
}

/** Starts serving `holder`'s store on 127.0.0.1; rejects with a clear error when the port is taken. */
export async function startInspectorServer(options: InspectorServerOptions): Promise<RunningInspector> {
  const { holder, port, version } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw invalidArgument(`the inspector's port must be a whole number from 0 to 65535, got ${String(port)}`);
  const token = options.token ?? newAccessToken();
  const assets = options.assets ?? (await loadPageAssets());
  const api = new InspectorApi(holder, version);
  let allowedHosts: readonly string[] = [];

  const server = createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // handle() answers every failure itself; reaching here means the response could not be written at all.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await route(req, res);
    } catch (error) {
      const failure = toHttpError(error);
      if (failure.status >= 500)
        process.stderr.write(`moomem ui: ${req.method} request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      sendJson(res, failure.status, { error: { code: failure.code, message: failure.message } }, failure.headers);
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    // DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends Host: evil.example.
    const host = req.headers.host;
    if (host === undefined || !allowedHosts.includes(host.toLowerCase())) {
      throw new HttpError(
        403,
        "FORBIDDEN",
        `this server answers only to Host ${allowedHosts[0]} (got ${JSON.stringify(host ?? "")}); open the link moomem ui printed`,
      );
    }
    if (target.length > MAX_URL_CHARS)
      throw new HttpError(414, "URI_TOO_LONG", `the request URL is ${target.length} characters long; the limit is ${MAX_URL_CHARS}`);
    const { pathSegments, search, rawPath } = splitTarget(target);
    if (!tokenMatches(pathSegments[0], token)) {
      throw new HttpError(403, "FORBIDDEN", "this page needs the access token: open the exact link moomem ui printed in its terminal");
    }
    const rest = decodeSegments(pathSegments.slice(1));
    if (rest.length === 0 && !rawPath.endsWith("/")) {
      // The page's links are relative to /<token>/: make sure the browser is there.
      if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method, "GET, HEAD");
      res.writeHead(308, { ...SECURITY_HEADERS, Location: `/${token}/` }).end();
      return;
    }
    if (rest[0] === "api") {
      const result = await api.handle({ method, segments: rest.slice(1), search, body: () => readJsonBody(req, token, allowedHosts) });
      sendJson(res, 200, result);
      return;
    }
    const asset = assets.get(rest.join("/"));
    if (asset === undefined) throw new HttpError(404, "NOT_FOUND", `nothing at /${rest.join("/")}`);
    if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method, "GET, HEAD");
    if (search.size > 0) throw new HttpError(400, "INVALID_ARGUMENT", "the page's files take no query parameters");
    res.writeHead(200, { ...SECURITY_HEADERS, "Content-Type": asset.contentType, "Content-Length": String(asset.body.length) });
    res.end(asset.body);
  }

  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => {
    // Requests Node rejects before our handler (oversized headers, malformed HTTP) still get a JSON answer.
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      error: {
        code: tooLarge ? "HEADERS_TOO_LARGE" : "BAD_REQUEST",
        message: tooLarge ? "the request headers are larger than 16 KiB" : "the request is not valid HTTP",
      },
    });
    if (socket.writable) {
      socket.end(
        `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    } else {
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error & { code?: string }): void => {
      server.off("listening", onListening);
      if (error.code === "EADDRINUSE")
        reject(new MoomemError("INVALID_ARGUMENT", `port ${port} on ${LOOPBACK} is in use; choose another with --port, or --port 0 for any free port`));
      else if (error.code === "EACCES")
        reject(new MoomemError("INVALID_ARGUMENT", `this user may not listen on port ${port}; use a port above 1023, or --port 0 for any free port`));
      else reject(new MoomemError("IO_FAILURE", `could not listen on ${LOOPBACK}:${port} (${error.message})`, { cause: error }));
    };
    const onListening = (): void => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, LOOPBACK);
  });
  const bound = (server.address() as { port: number }).port;
  allowedHosts = [`${LOOPBACK}:${bound}`, `localhost:${bound}`];
  return {
    url: `http://${LOOPBACK}:${bound}/${token}/`,
    port: bound,
    token,
    close: () => closeServer(server),
  };
}

/** Path segments (still encoded) and the query of a request target such as `/tok/api/users?limit=5`. */
function splitTarget(target: string): { pathSegments: string[]; search: URLSearchParams; rawPath: string } {
  if (!target.startsWith("/")) throw new HttpError(400, "BAD_REQUEST", "the request target must be a path starting with /");
  const q = target.indexOf("?");
  const rawPath = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? "" : target.slice(q + 1);
  const segments = rawPath.slice(1).split("/");
  // "/tok/" and "/tok" both name the document; an empty segment anywhere else is a malformed path.
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop();
  return { pathSegments: segments, search: new URLSearchParams(query), rawPath };
}

/** Decodes each path segment; dot segments, empty segments, slashes, backslashes and control characters are refused, whatever their encoding. */
function decodeSegments(raw: readonly string[]): string[] {
  return raw.map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch (_error) {
      throw new HttpError(400, "BAD_REQUEST", `the path segment ${JSON.stringify(segment.slice(0, 80))} is not valid percent-encoding`);
    }
    if (decoded === "" || decoded === "." || decoded === ".." || /[/\\\p{Cc}]/u.test(decoded)) {
      throw new HttpError(
        400,
        "BAD_REQUEST",
        `the path segment ${JSON.stringify(segment.slice(0, 80))} is not allowed (no empty, "." or ".." segments, slashes, backslashes or control characters)`,
      );
    }
    return decoded;
  });
}

/**
 * The JSON body of a write. Checked before a byte of it is used: the token in the header (a
 * request a cross-site page makes carries only what the browser adds, never this header), the
 * origin when the browser sends one, the content type, the size.
 */
async function readJsonBody(req: IncomingMessage, token: string, allowedHosts: readonly string[]): Promise<Record<string, unknown>> {
  const header = req.headers[TOKEN_HEADER];
  if (!tokenMatches(typeof header === "string" ? header : undefined, token)) {
    throw new HttpError(
      403,
      "FORBIDDEN",
      `a write needs the access token in the ${TOKEN_HEADER} header (the page sends it; a link or a form from another site cannot)`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) {
    throw new HttpError(403, "FORBIDDEN", `a write from origin ${JSON.stringify(origin)} is refused; only the inspector's own page may write`);
  }
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin")
    throw new HttpError(403, "FORBIDDEN", `a write from a ${String(site)} page is refused; only the inspector's own page may write`);
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json")
    throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", `a write takes a JSON body (Content-Type: application/json), got ${JSON.stringify(type)}`);
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge(size);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, "BAD_JSON", `the body is not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new HttpError(400, "BAD_JSON", "the body must be a JSON object, e.g. {}");
  return parsed as Record<string, unknown>;
}

function tooLarge(bytes: number): HttpError {
  return new HttpError(413, "PAYLOAD_TOO_LARGE", `the body is ${bytes} bytes or more; the limit is ${MAX_BODY_BYTES}`, { Connection: "close" });
}

function methodNotAllowed(method: string, allow: string): HttpError {
  return new HttpError(405, "METHOD_NOT_ALLOWED", `${method} is not allowed here; use ${allow}`, { Allow: allow });
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(JSON.stringify(value), "utf8");
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, "Content-Type": "application/json; charset=utf-8", "Content-Length": String(body.length) });
  res.end(body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
