// Helpers for the `moomem ui` suites: a demo store, the real bin serving it, raw HTTP requests and headless Chromium.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { MemoryStore } from "../../../src/node.ts";
import { FixedClock } from "../../../src/clock.ts";
import { RuleExtractor } from "../../helpers/scripted.ts";
import { CLI_MAIN, ROOT } from "./built-package.ts";

/** Screenshots of every page; git-ignored (two of them are copied to docs/ by hand for the README). */
export const ARTIFACTS: string = join(ROOT, "test-artifacts", "inspector");

const DAY = 86_400_000;
/** The demo's first memory; every time in it is fixed, so screenshots only change when the page does. */
export const T0: number = Date.UTC(2025, 2, 2, 9, 30);

const RULES = [
  { pattern: /live in|moved to/i, key: "home_city", kind: "fact" as const },
  { pattern: /allergic/i, key: "allergy", kind: "fact" as const },
  { pattern: /tea|coffee/i, key: "drink", kind: "preference" as const },
  { pattern: /daughter|son\b/i, key: "family", kind: "fact" as const },
  { pattern: /marathon|training|cello|chess/i, key: "hobby", kind: "event" as const },
  { pattern: /phone/i, key: "phone", kind: "fact" as const },
  { pattern: /work|job/i, key: "job", kind: "fact" as const },
];

/** Ids of the demo memories the tests open. */
export interface DemoIds {
  beijing: string;
  shenzhen: string;
  tea: string;
  coffee: string;
  phone: string;
  peanuts: string;
}

/**
 * Writes the demo store the suites inspect: three users; alice has a supersede chain (Beijing →
 * Shenzhen, tea → coffee, each judged by the default judge on the slot key), a forgotten memory and
 * metadata; carol has a memory stored unstructured because extraction failed.
 */
export async function writeDemoStore(dir: string): Promise<DemoIds> {
  const clock = new FixedClock(T0);
  const mem = await MemoryStore.open(dir, { clock, extractor: new RuleExtractor(RULES) });
  const add = async (user: string, text: string, daysAfter: number, metadata: Record<string, string> = { channel: "chat" }): Promise<string> => {
    clock.set(T0 + daysAfter * DAY);
    const summary = await mem.add(user, text, { metadata });
    return summary.facts[0]!.id;
  };
  const beijing = await add("alice", "I live in Beijing", 0);
  const peanuts = await add("alice", "I am allergic to peanuts", 1);
  const tea = await add("alice", "I prefer green tea in the morning", 12, { channel: "email" });
  const phone = await add("alice", "My phone number is 555-0100", 20);
  await add("alice", "My daughter Mia starts school in September", 31);
  const shenzhen = await add("alice", "I moved to Shenzhen in May", 64);
  await add("alice", "I am training for the Shenzhen half marathon", 70);
  const coffee = await add("alice", "I switched to black coffee, no more tea", 75);
  clock.set(T0 + 80 * DAY);
  await mem.forget("alice", { id: phone });
  await add("bob", "I work as a nurse in Berlin", 3);
  await add("bob", "I play chess on Sundays", 9);
  await add("bob", "I live in Berlin", 40);
  await add("carol", "I moved to Lisbon", 50);
  await mem.close();
  // A failing extractor stores the input raw (status unstructured), with the reason in metadata.
  const down = { mode: "llm", extract: () => Promise.reject(new Error("model service unavailable (HTTP 503)")) };
  const later = await MemoryStore.open(dir, { clock, extractor: down });
  clock.set(T0 + 90 * DAY);
  await later.add("carol", "remind me that the cello lesson moved to Thursdays", { metadata: { channel: "chat" } });
  await later.close();
  return { beijing, shenzhen, tea, coffee, phone, peanuts };
}

/** A running `moomem ui` child process. */
export interface RunningUi {
  url: string;
  origin: string;
  port: number;
  token: string;
  child: ChildProcess;
  /** Everything it wrote to stderr so far. */
  stderr: () => string;
  /** SIGTERM, then resolves with its exit code. */
  stop: () => Promise<number | null>;
}

/**
 * Spawns `node dist/cli/main.js --dir ./memory --json ui <args…>` in `cwd` (so the page shows the
 * folder as `./memory` whatever the temp dir) and resolves once it printed its link.
 */
export function startUi(cwd: string, args: readonly string[] = []): Promise<RunningUi> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [CLI_MAIN, "--dir", "./memory", "--json", "ui", ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const line = stdout.split("\n")[0];
      if (!stdout.includes("\n") || line === undefined) return;
      const { url, port } = JSON.parse(line) as { url: string; port: number };
      const parsed = new URL(url);
      resolve({
        url,
        origin: parsed.origin,
        port,
        token: parsed.pathname.split("/")[1]!,
        child,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.on("error", reject);
    void exited.then((code) => reject(new Error(`moomem ui exited with ${code} before printing its link: ${stderr}`)));
  });
}

/** Headless Debian Chromium through playwright-core (no browser download), as vitest.config.ts launches it. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

/**
 * One HTTP request exactly as given: the path is sent as is (no dot-segment cleanup, unlike fetch),
 * and any header (Host, Origin, …) can be set.
 */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: `127.0.0.1:${port}`, ...options.headers };
    if (options.body !== undefined && !options.chunked) headers["Content-Length"] = String(Buffer.byteLength(options.body));
    const req = request({ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (_error) {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Text whose contrast with its background is below WCAG AA (4.5:1, or 3:1 for large text), as
 * `"<tag>.<class> "<text>" <ratio>"`. The background is the first ancestor with an opaque colour.
 */
export function contrastFailures(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const parse = (css: string): { r: number; g: number; b: number; a: number } => {
      const parts = (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? "0 0 0 0")
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return { r: parts[0]!, g: parts[1]!, b: parts[2]!, a: parts.length > 3 ? parts[3]! : 1 };
    };
    const channel = (c: number): number => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    const luminance = (c: { r: number; g: number; b: number }): number => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    const background = (el: Element | null): { r: number; g: number; b: number; a: number } => {
      for (let e = el; e !== null; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c.a >= 0.99) return c;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    const failures: string[] = [];
    for (const el of document.querySelectorAll("body *")) {
      const text = [...el.childNodes]
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("")
        .trim();
      if (text === "" || el.getClientRects().length === 0 || el.closest(".visually-hidden, .skip-link") !== null) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden") continue;
      const fg = luminance(parse(style.color));
      const bg = luminance(background(el));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) failures.push(`${el.tagName.toLowerCase()}.${el.className} "${text.slice(0, 30)}" ${ratio.toFixed(2)}`);
    }
    return failures;
  });
}
