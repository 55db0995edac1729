// `moomem ui --write` under bad HTTP input: every request gets a clear 4xx with a JSON error, and the store's files do not change.

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ensureBuilt } from "./helpers/built-package.ts";
import { runMoomem } from "./helpers/run-cli.ts";
import { filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";
import { rawRequest, startUi, writeDemoStore, type DemoIds, type RawResponse, type RunningUi } from "./helpers/inspector.ts";

const TEST_TIMEOUT_MS = 60_000;

let temp = "";
let dir = "";
let ids: DemoIds;
let ui: RunningUi;
/** The store folder byte for byte once the server is up (its writable open took the lock and may have written a journal header). */
let filesBefore: Record<string, string> = {};

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("ui-http");
  dir = join(temp, "memory");
  ids = await writeDemoStore(dir);
  // --write: the write endpoints are live, so their checks are what stands between bad input and the store.
  ui = await startUi(temp, ["--write"]);
  filesBefore = filesOf(dir);
}, 180_000);

afterAll(async () => {
  await ui?.stop();
  removeDir(temp);
});

const api = (path: string): string => `/${ui.token}/api/${path}`;
const write = (path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(ui.port, api(path), { method: "POST", body, headers: { "Content-Type": "application/json", "X-Moomem-Token": ui.token, ...headers } });

/** A refusal: this status, a JSON error with this code whose message says something, the security headers, and no store change. */
function expectRefused(response: RawResponse, status: number, code: string, mentions?: string | RegExp): void {
  const where = `${status} ${code}: ${response.text.slice(0, 300)}`;
  expect(response.status, where).toBe(status);
  expect(response.headers["content-type"], where).toBe("application/json; charset=utf-8");
  const error = (response.json as { error?: { code?: string; message?: string } } | undefined)?.error;
  expect(error?.code, where).toBe(code);
  expect(error?.message?.length ?? 0, where).toBeGreaterThan(10);
  if (mentions !== undefined) expect(error?.message, where).toMatch(typeof mentions === "string" ? new RegExp(escape(mentions)) : mentions);
  if (status !== 431) expect(response.headers["referrer-policy"], where).toBe("no-referrer");
  expect(filesOf(dir)).toEqual(filesBefore);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("moomem ui: bad input over HTTP", () => {
  it(
    "unknown user, invalid user id: 404 and 400",
    async () => {
      expectRefused(await rawRequest(ui.port, api("users/nobody/entries")), 404, "NOT_FOUND", 'no user "nobody"');
      expectRefused(await rawRequest(ui.port, api("users/nobody/recall?q=tea")), 404, "NOT_FOUND", 'no user "nobody"');
      expectRefused(await rawRequest(ui.port, api(`users/nobody/entries/${ids.peanuts}`)), 404, "NOT_FOUND");
      // Another user's entry id is not found for this user: users stay apart here too.
      expectRefused(await rawRequest(ui.port, api(`users/bob/entries/${ids.peanuts}`)), 404, "NOT_FOUND", `has no entry "${ids.peanuts}"`);
      expectRefused(await write(`users/bob/entries/${ids.peanuts}/forget`, "{}"), 404, "NOT_FOUND");
      for (const bad of ["bad%20user", "x".repeat(65), "%C3%A9t%C3%A9", "a%3Bb"]) {
        expectRefused(await rawRequest(ui.port, api(`users/${bad}/entries`)), 400, "INVALID_USER_ID");
        expectRefused(await write(`users/${bad}/entries/${ids.peanuts}/forget`, "{}"), 400, "INVALID_USER_ID");
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a metadata filter is list's rule: own keys only, so __proto__ or constructor match no entry that lacks them",
    async () => {
      for (const filter of ['{"__proto__":{}}', '{"constructor":{}}', '{"toString":{}}']) {
        const response = await rawRequest(ui.port, api(`users/alice/entries?metadata=${encodeURIComponent(filter)}`));
        const where = `${filter}: ${response.text.slice(0, 300)}`;
        expect(response.status, where).toBe(200);
        expect((response.json as { total: number }).total, where).toBe(0);
      }
      expect(filesOf(dir)).toEqual(filesBefore);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "invalid and unknown entry ids: 400 and 404",
    async () => {
      expectRefused(await rawRequest(ui.port, api("users/alice/entries/000000000099-0000")), 404, "NOT_FOUND");
      expectRefused(await rawRequest(ui.port, api(`users/alice/entries/${"a".repeat(201)}`)), 400, "INVALID_ARGUMENT", "201 characters");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries/ab%09cd")), 400, "BAD_REQUEST");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries/ab%20cd")), 400, "INVALID_ARGUMENT", "not an entry id");
      expectRefused(await write("users/alice/entries/000000000099-0000/restore", "{}"), 404, "NOT_FOUND");
      // Restoring an active entry, forgetting a forgotten one: a conflict, nothing written.
      expectRefused(await write(`users/alice/entries/${ids.peanuts}/restore`, "{}"), 409, "CONFLICT", "only deleted or superseded");
      expectRefused(await write(`users/alice/entries/${ids.phone}/forget`, "{}"), 409, "CONFLICT", "already forgotten");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "huge query, huge URL, huge headers: 400, 414, 431",
    async () => {
      expectRefused(await rawRequest(ui.port, api(`users/alice/recall?q=${"tea%20".repeat(700)}`)), 400, "INVALID_ARGUMENT", "the limit is 2000");
      expectRefused(await rawRequest(ui.port, api(`users/alice/entries?text=${"x".repeat(501)}`)), 400, "INVALID_ARGUMENT", "the limit is 500");
      expectRefused(await rawRequest(ui.port, api(`users/alice/entries?metadata=${"x".repeat(5000)}`)), 400, "INVALID_ARGUMENT", "the limit is 4096");
      expectRefused(await rawRequest(ui.port, api(`users/alice/recall?q=${"x".repeat(9000)}`)), 414, "URI_TOO_LONG");
      const headers = await rawRequest(ui.port, api("users"), { headers: { "X-Padding": "y".repeat(20_000) } });
      expect(headers.status).toBe(431);
      expect(headers.json).toMatchObject({ error: { code: "HEADERS_TOO_LARGE" } });
      expectRefused(await rawRequest(ui.port, api("users/alice/recall?q=%20%20")), 400, "INVALID_ARGUMENT", '"q" (the query text) is required');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "path traversal anywhere in the path, raw or percent-encoded, and in the static files: refused",
    async () => {
      const t = ui.token;
      const attempts = [
        `/${t}/../package.json`,
        `/${t}/page/../../package.json`,
        `/${t}/page/%2e%2e/server.js`,
        `/${t}/page/%2E%2E%2F%2E%2E%2Fpackage.json`,
        `/${t}/page/..%5c..%5cpackage.json`,
        `/${t}/page/.%2fmain.js`,
        `/${t}/page//main.js`,
        `/${t}/api/users/..%2F..%2Fetc/entries`,
        `/${t}/api/users/alice/entries/..%2F..%2F..%2Fpackage.json`,
        `/${t}/api/users/../users/alice/entries`,
        `/${t}/api/users/alice%00/entries`,
        `/${t}/api/users/%ZZ/entries`,
      ];
      for (const path of attempts) {
        const response = await rawRequest(ui.port, path);
        expectRefused(response, 400, "BAD_REQUEST");
        expect(response.text, path).not.toContain('"version"');
      }
      // Only the compiled page scripts are served: not the server's own modules, maps or declarations.
      for (const name of ["server.js", "page/main.js.map", "page/main.d.ts", "page/../start.js", "package.json", "index.html"]) {
        const response = await rawRequest(ui.port, `/${t}/${name}`);
        expect([400, 404], name).toContain(response.status);
      }
      expectRefused(await rawRequest(ui.port, `/${t}/page/server.js`), 404, "NOT_FOUND");
      // A traversal-looking filter value is only a value: it matches nothing.
      const filter = await rawRequest(ui.port, api("users/alice/entries?key=..%2F..%2Fetc%2Fpasswd&text=..%2F..%2F"));
      expect(filter.status).toBe(200);
      expect(filter.json).toMatchObject({ total: 0, entries: [] });
      // The token's segment is compared whole: "/<token>/.." is not the token's folder.
      expectRefused(await rawRequest(ui.port, `/../${t}/api/users`), 403, "FORBIDDEN");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "wrong method: 405 with Allow",
    async () => {
      for (const [method, path, allow] of [
        ["DELETE", api("users"), "GET, HEAD"],
        ["POST", api("users"), "GET, HEAD"],
        ["PUT", api(`users/alice/entries/${ids.peanuts}`), "GET, HEAD"],
        ["GET", api(`users/alice/entries/${ids.peanuts}/forget`), "POST"],
        ["DELETE", api(`users/alice/entries/${ids.peanuts}/restore`), "POST"],
        ["POST", `/${ui.token}/page/main.js`, "GET, HEAD"],
        ["PUT", `/${ui.token}/`, "GET, HEAD"],
      ] as const) {
        const response = await rawRequest(ui.port, path, { method, headers: { "X-Moomem-Token": ui.token, "Content-Type": "application/json" }, body: "{}" });
        expectRefused(response, 405, "METHOD_NOT_ALLOWED");
        expect(response.headers["allow"], `${method} ${path}`).toBe(allow);
      }
      // HEAD of a page file works and sends no body.
      const head = await rawRequest(ui.port, `/${ui.token}/page/main.js`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "bad query parameters: unknown, repeated, malformed, contradictory",
    async () => {
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?stauts=active")), 400, "INVALID_ARGUMENT", 'unknown parameter "stauts"');
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?limit=5&limit=6")), 400, "INVALID_ARGUMENT", "given twice");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?limit=0")), 400, "INVALID_ARGUMENT", "from 1 to 200");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?limit=100000")), 400, "INVALID_ARGUMENT", "from 1 to 200");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?offset=-1")), 400, "INVALID_ARGUMENT");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?status=gone")), 400, "INVALID_ARGUMENT", "must be one of");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?sort=content")), 400, "INVALID_ARGUMENT");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?since=yesterday")), 400, "INVALID_ARGUMENT", "ISO date");
      expectRefused(
        await rawRequest(ui.port, api("users/alice/entries?since=2025-06-02T00:00:00Z&until=2025-06-01T00:00:00Z")),
        400,
        "INVALID_ARGUMENT",
        "is after",
      );
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?metadata=%7Bnope")), 400, "INVALID_ARGUMENT", "not valid JSON");
      expectRefused(await rawRequest(ui.port, api("users/alice/entries?metadata=%5B1%5D")), 400, "INVALID_ARGUMENT", "JSON object");
      expectRefused(await rawRequest(ui.port, api("users/alice/recall?q=tea&topK=101")), 400, "INVALID_ARGUMENT", "from 1 to 100");
      expectRefused(await rawRequest(ui.port, api("users/alice/recall?q=tea&mode=psychic")), 400, "INVALID_ARGUMENT");
      expectRefused(await rawRequest(ui.port, api("stats?verbose=1")), 400, "INVALID_ARGUMENT", "unknown parameter");
      expectRefused(await rawRequest(ui.port, `/${ui.token}/page/main.js?v=2`), 400, "INVALID_ARGUMENT");
      expectRefused(await rawRequest(ui.port, api("nothing-here")), 404, "NOT_FOUND");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "bad bodies: not JSON, not an object, unknown or mistyped fields, oversized, wrong type",
    async () => {
      const forget = `users/alice/entries/${ids.peanuts}/forget`;
      expectRefused(await write(forget, "{purge: true"), 400, "BAD_JSON", "not valid JSON");
      expectRefused(await write(forget, "[]"), 400, "BAD_JSON", "JSON object");
      expectRefused(await write(forget, '"forget"'), 400, "BAD_JSON");
      expectRefused(await write(forget, '{"purge":"yes"}'), 400, "INVALID_ARGUMENT", '"purge" must be true or false');
      expectRefused(await write(forget, '{"all":true}'), 400, "INVALID_ARGUMENT", 'unknown field "all"');
      expectRefused(await write(`users/alice/entries/${ids.beijing}/restore`, '{"force":true}'), 400, "INVALID_ARGUMENT", "empty object");
      const big = JSON.stringify({ purge: false, pad: "z".repeat(20_000) });
      expectRefused(await write(forget, big), 413, "PAYLOAD_TOO_LARGE", "16384");
      // Without a Content-Length (chunked), the limit holds while reading.
      expectRefused(
        await rawRequest(ui.port, api(forget), {
          method: "POST",
          chunked: true,
          body: big,
          headers: { "Content-Type": "application/json", "X-Moomem-Token": ui.token },
        }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      expectRefused(await write(forget, "{}", { "Content-Type": "text/plain" }), 415, "UNSUPPORTED_MEDIA_TYPE");
      expectRefused(await write(forget, "purge=true", { "Content-Type": "application/x-www-form-urlencoded" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "cross-site writes: no token header, a wrong one, a foreign Origin or Sec-Fetch-Site are refused",
    async () => {
      const forget = `users/alice/entries/${ids.peanuts}/forget`;
      expectRefused(
        await rawRequest(ui.port, api(forget), { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } }),
        403,
        "FORBIDDEN",
        "x-moomem-token",
      );
      expectRefused(await write(forget, "{}", { "X-Moomem-Token": `${ui.token}x` }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { "X-Moomem-Token": "" }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { Origin: "https://evil.example" }), 403, "FORBIDDEN", "origin");
      expectRefused(await write(forget, "{}", { Origin: "null" }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { Origin: `http://127.0.0.1:${ui.port + 1}` }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { "Sec-Fetch-Site": "cross-site" }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { "Sec-Fetch-Site": "same-site" }), 403, "FORBIDDEN");
      expectRefused(await write(forget, "{}", { Host: `evil.example:${ui.port}` }), 403, "FORBIDDEN", "Host");
      expectRefused(
        await rawRequest(ui.port, `/${ui.token.slice(0, -2)}/api/${forget}`, {
          method: "POST",
          body: "{}",
          headers: { "Content-Type": "application/json", "X-Moomem-Token": ui.token },
        }),
        403,
        "FORBIDDEN",
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "still serves normally after all that, and a well-formed write goes through",
    async () => {
      const users = await rawRequest(ui.port, api("users"));
      expect(users.status).toBe(200);
      expect((users.json as { total: number }).total).toBe(3);
      const same = await write(`users/alice/entries/${ids.peanuts}/forget`, "{}", { Origin: ui.origin, "Sec-Fetch-Site": "same-origin" });
      expect(same.status).toBe(200);
      expect(same.json).toMatchObject({ affected: 1, entry: { id: ids.peanuts, status: "deleted" } });
      expect(filesOf(dir)).not.toEqual(filesBefore);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem ui on the command line", () => {
  it(
    "explains itself in --help, and refuses a bad port, extra arguments or a port in use (exit 2, nothing opened)",
    async () => {
      const [help, badPort, tooBig, extra, inUse] = await Promise.all([
        runMoomem(["ui", "--help"]),
        runMoomem(["--dir", dir, "ui", "--port", "http"]),
        runMoomem(["--dir", dir, "ui", "--port", "70000"]),
        runMoomem(["--dir", dir, "ui", "now"]),
        // The running server's port, read-only (no lock needed): only the port is in the way.
        runMoomem(["--dir", dir, "ui", "--port", String(ui.port)]),
      ]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("usage: moomem ui [--port <n>] [--write]");
      expect(help.stdout).toContain("127.0.0.1 only and opens no browser");
      expect(badPort).toMatchObject({ code: 2, stdout: "" });
      expect(badPort.stderr).toBe('moomem: INVALID_ARGUMENT: --port must be a whole number from 0 to 65535, got "http" (see moomem ui --help)\n');
      expect(tooBig.code).toBe(2);
      expect(extra.code).toBe(2);
      expect(extra.stderr).toContain("ui takes no arguments besides options");
      expect(inUse).toMatchObject({ code: 2, stdout: "" });
      expect(inUse.stderr).toBe(
        `moomem: INVALID_ARGUMENT: port ${ui.port} on 127.0.0.1 is in use; choose another with --port, or --port 0 for any free port\n`,
      );
    },
    TEST_TIMEOUT_MS,
  );
});
