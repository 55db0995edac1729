// `moomem ui` read-only, driven in headless Chromium over loopback: users, memories, history, recall ranks, stats, following a writer, the token.

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { EntriesResponse, RecallResponse } from "../../src/inspector/api-types.ts";
import { ensureBuilt } from "./helpers/built-package.ts";
import { runMoomem } from "./helpers/run-cli.ts";
import { filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";
import { ARTIFACTS, contrastFailures, launchChromium, rawRequest, startUi, writeDemoStore, type DemoIds, type RunningUi } from "./helpers/inspector.ts";

// Spawning the bin, a browser and a second writer process on a busy 2-core machine can be slow.
const TEST_TIMEOUT_MS = 60_000;

let temp = "";
let dir = "";
let ids: DemoIds;
let ui: RunningUi;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("ui-browser");
  dir = join(temp, "memory");
  ids = await writeDemoStore(dir);
  ui = await startUi(temp);
  browser = await launchChromium();
  // Fixed zone and locale: the times on the screenshots do not depend on the machine.
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: "UTC", locale: "en-US", colorScheme: "light" });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  const code = await ui?.stop();
  expect(code).toBe(0);
  removeDir(temp);
});

/** Saves a screenshot of the page and checks its text contrast on the way (every page the suite shows is checked). */
async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  expect(await contrastFailures(page), name).toEqual([]);
}

/** The cells of each body row of the page's (first) table, as text. */
async function tableRows(): Promise<string[][]> {
  return page
    .locator("main table")
    .first()
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? "").trim())));
}

describe("moomem ui (read-only) in Chromium", () => {
  it(
    "refuses every request without the token, with a wrong token, or for another Host",
    async () => {
      const noToken = await page.goto(`${ui.origin}/`);
      expect(noToken?.status()).toBe(403);
      expect(await page.textContent("body")).toContain("FORBIDDEN");
      const wrong = `${ui.token.slice(0, -1)}${ui.token.endsWith("A") ? "B" : "A"}`;
      for (const path of [
        `/${wrong}/`,
        `/${wrong}/api/users`,
        `/${wrong}/page/main.js`,
        `/${ui.token.slice(0, 20)}/api/users`,
        "/api/users",
        "/page/main.js",
      ]) {
        const response = await rawRequest(ui.port, path);
        expect(response.status, path).toBe(403);
        expect(response.json, path).toMatchObject({ error: { code: "FORBIDDEN" } });
      }
      // DNS rebinding: the right token but a page of another site resolving to 127.0.0.1.
      const rebound = await rawRequest(ui.port, `/${ui.token}/api/users`, { headers: { Host: `evil.example:${ui.port}` } });
      expect(rebound.status).toBe(403);
      expect(rebound.json).toMatchObject({ error: { code: "FORBIDDEN" } });
      expect(rebound.text).not.toContain("alice");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "lists the users with counts per status and their last write",
    async () => {
      const response = await page.goto(ui.url);
      expect(response?.status()).toBe(200);
      // The token never leaves in a Referer, and nothing but this origin's files may run.
      expect(response?.headers()["referrer-policy"]).toBe("no-referrer");
      expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.getByRole("heading", { level: 1, name: "Users" }).waitFor();
      await page.locator("main table tbody tr").first().waitFor();
      const rows = await tableRows();
      // Default order: most recent write first (carol's raw memory, then alice's forget, then bob).
      expect(rows).toEqual([
        ["carol", "1", "0", "0", "1", "2", "2025-05-31 09:30:00"],
        ["alice", "5", "2", "1", "0", "8", "2025-05-21 09:30:00"],
        ["bob", "3", "0", "0", "0", "3", "2025-04-11 09:30:00"],
      ]);
      expect(await page.locator("nav a[aria-current=page]").textContent()).toBe("Users");
      await shoot("users");

      // Sort by user id through the column header (a link: it changes the URL, so Back works).
      await page.getByRole("link", { name: "User: sort ascending" }).click();
      await expect.poll(async () => (await tableRows()).map((r) => r[0])).toEqual(["alice", "bob", "carol"]);
      expect(await page.locator("th[aria-sort]").getAttribute("aria-sort")).toBe("ascending");
      await page.goBack();
      await expect.poll(async () => (await tableRows()).map((r) => r[0])).toEqual(["carol", "alice", "bob"]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "can be used from the keyboard, with a visible focus ring",
    async () => {
      await page.goto(ui.url);
      await page.locator("main table tbody tr").first().waitFor();
      await page.keyboard.press("Tab");
      const skip = await page.evaluate(() => ({ text: document.activeElement?.textContent, outline: getComputedStyle(document.activeElement!).outlineStyle }));
      expect(skip).toEqual({ text: "Skip to content", outline: "solid" });
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
      // Tab on from <main> to the user-id filter, type, submit with Enter.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("id"))).toBe("user-filter");
      await page.keyboard.type("bo");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await tableRows()).map((r) => r[0])).toEqual(["bob"]);
      // Every form control has a label.
      const unlabelled = await page.evaluate(
        () => [...document.querySelectorAll("main input, main select, main textarea")].filter((el) => (el as HTMLInputElement).labels?.length === 0).length,
      );
      expect(unlabelled).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "shows a user's memories, filtered, sorted and paged on the server",
    async () => {
      await page.goto(ui.url);
      await page.getByRole("link", { name: "alice", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Memories of alice" }).waitFor();
      await page.locator("main table tbody tr").first().waitFor();
      let rows = await tableRows();
      expect(rows.length).toBe(8);
      expect(rows[0]![1]).toContain("I switched to black coffee, no more tea");
      await shoot("entries");

      await page.getByLabel("Status").selectOption("superseded");
      await page.getByRole("button", { name: "Apply filters" }).click();
      await expect.poll(async () => (await tableRows()).length).toBe(2);
      rows = await tableRows();
      expect(rows.map((r) => r[2])).toEqual(["superseded", "superseded"]);
      expect(rows.map((r) => r[1])).toEqual([
        `I prefer green tea in the morning → replaced by ${ids.coffee}`,
        `I live in Beijing → replaced by ${ids.shenzhen}`,
      ]);

      // Metadata and key filters go to the server as they are; the page shows what it answers.
      await page.goto(`${ui.url}#/users/alice?metadata=${encodeURIComponent('{"channel":"email"}')}`);
      await expect.poll(async () => (await tableRows()).map((r) => r[1])).toEqual([`I prefer green tea in the morning → replaced by ${ids.coffee}`]);
      await page.goto(`${ui.url}#/users/alice?key=home_city&sort=createdAt&order=asc`);
      await expect.poll(async () => (await tableRows()).map((r) => r[4])).toEqual(["home_city", "home_city"]);
      expect((await tableRows()).map((r) => r[1]!.split(" → ")[0])).toEqual(["I live in Beijing", "I moved to Shenzhen in May"]);

      // The API answers one page (`limit` rows) and the total.
      const api = (await (await page.request.get(`${ui.url}api/users/alice/entries?limit=3&offset=3`)).json()) as EntriesResponse;
      expect(api.total).toBe(8);
      expect(api.entries.length).toBe(3);
      // Only the fragment changes, so the previous table stays until the new one is rendered: wait for the answer itself.
      await page.goto(`${ui.url}#/users/alice?limit=25`);
      await expect.poll(() => page.locator("nav.pager .summary").textContent()).toBe("Showing 1–8 of 8 memories");

      // A user the store does not know: a clear message, not an empty table.
      await page.goto(`${ui.url}#/users/nobody`);
      await expect.poll(() => page.locator("main [role=alert]").textContent()).toContain('this store has no user "nobody"');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "opens a memory: content, metadata, why it was replaced, and its history as a timeline",
    async () => {
      await page.goto(`${ui.url}#/users/alice`);
      await page.getByRole("link", { name: "I live in Beijing" }).click();
      await page.getByRole("heading", { level: 1, name: `Memory ${ids.beijing}` }).waitFor();
      expect(await page.locator(".memory-content").textContent()).toBe("I live in Beijing");
      const facts = await page.locator("main dl.facts").first().textContent();
      expect(facts).toContain("superseded");
      expect(facts).toContain("home_city");
      const why = await page.locator("main dl.facts").nth(1).textContent();
      expect(why).toContain("Extracted byrules");
      expect(why).toContain('Replaced becausenew value for key "home_city" (judged by similarity)');
      const timeline = page.locator("ol.timeline > li");
      expect(await timeline.count()).toBe(2);
      expect(await timeline.nth(0).getAttribute("aria-current")).toBe("true");
      expect(await timeline.nth(0).textContent()).toContain("I live in Beijing");
      expect(await timeline.nth(1).textContent()).toContain("I moved to Shenzhen in May");
      expect(await timeline.nth(1).textContent()).toContain('Why: new value for key "home_city"');
      // Read-only: no write button, and a hint how to get them.
      expect(await page.getByRole("button", { name: "Forget" }).count()).toBe(0);
      expect(await page.locator("main").textContent()).toContain("moomem ui --write");
      await shoot("entry");

      // Follow the chain forward from the timeline.
      await timeline.nth(1).getByRole("link", { name: ids.shenzhen }).click();
      await page.getByRole("heading", { level: 1, name: `Memory ${ids.shenzhen}` }).waitFor();
      expect(await page.locator("main dl.facts").nth(1).textContent()).toContain("Judged bysimilarity");
      expect(await page.locator("ol.timeline > li").nth(1).getAttribute("aria-current")).toBe("true");

      // A memory stored raw because extraction failed says so.
      await page.goto(`${ui.url}#/users/carol?status=unstructured`);
      await page.getByRole("link", { name: /cello lesson/ }).click();
      await page.getByRole("heading", { level: 1, name: /^Memory / }).waitFor();
      expect(await page.locator("main dl.facts").nth(1).textContent()).toContain("Extraction failed, stored as said");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "runs a recall and shows the fused score and both route ranks of every hit",
    async () => {
      await page.goto(`${ui.url}#/recall`);
      await page.getByRole("heading", { level: 1, name: "Recall playground" }).waitFor();
      await page.getByLabel("User", { exact: true }).fill("alice");
      await page.getByLabel("Query", { exact: true }).fill("moved to Shenzhen, drinks coffee, allergic to peanuts");
      await page.getByLabel("Top K").fill("5");
      await page.getByRole("button", { name: "Recall" }).click();
      await page.locator("main table tbody tr").first().waitFor();
      const rows = await tableRows();
      // The same call through the API: the page must show exactly its ranks and scores.
      const api = (await (
        await page.request.get(`${ui.url}api/users/alice/recall?q=${encodeURIComponent("moved to Shenzhen, drinks coffee, allergic to peanuts")}&topK=5`)
      ).json()) as RecallResponse;
      expect(api.hits.length).toBeGreaterThan(1);
      expect(rows.length).toBe(api.hits.length);
      const rank = (r: number | undefined): string => (r === undefined ? "—not returned by the" : `#${r}`);
      api.hits.forEach((hit, i) => {
        const row = rows[i]!;
        expect(row[0]).toBe(String(i + 1));
        expect(row[1]).toBe(hit.score.toFixed(4));
        expect(row[2]).toContain(rank(hit.vectorRank));
        expect(row[3]).toContain(rank(hit.keywordRank));
        expect(row[4]).toBe(hit.content);
      });
      // What the page is for: the routes disagree (vector and keyword rank differ), fusion settles it.
      expect(api.hits.some((h) => h.vectorRank !== undefined && h.keywordRank !== undefined && h.vectorRank !== h.keywordRank)).toBe(true);
      // Superseded memories are never recalled.
      expect(rows.some((r) => r[4] === "I live in Beijing" || r[4] === "I prefer green tea in the morning")).toBe(false);
      // A hit only one route found shows a dash in the other route's column.
      expect(api.hits.some((h) => h.vectorRank === undefined || h.keywordRank === undefined)).toBe(true);
      await shoot("recall");

      // Keyword mode: only the keyword column has ranks.
      await page.getByLabel("Mode").selectOption("keyword");
      await page.getByRole("button", { name: "Recall" }).click();
      await expect.poll(async () => (await page.locator("main table caption").textContent()) ?? "").toContain("keyword");
      for (const row of await tableRows()) {
        expect(row[2]).toContain("not returned by the vector route");
        expect(row[3]).toMatch(/^#\d+$/);
      }
      // A bad request is explained on the page.
      await page.goto(`${ui.url}#/recall?user=nobody&q=tea`);
      await expect.poll(() => page.locator("main [role=alert]").textContent()).toContain('this store has no user "nobody"');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "shows the store's stats: counts, size, format, recoveries, embedder",
    async () => {
      await page.goto(`${ui.url}#/stats`);
      await page.getByRole("heading", { level: 1, name: "Store" }).waitFor();
      const rows = await tableRows();
      expect(rows).toEqual([["9", "2", "1", "1", "13", "3"]]);
      const text = (await page.locator("main").textContent()) ?? "";
      expect(text).toContain("Format version6");
      expect(text).toContain("Torn tails recovered0");
      expect(text).toMatch(/Embedderhashing[^\s]*Vector dimensions256/);
      expect(text).toContain("read-only, following the writer");
      await shoot("stats");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "keeps AA text contrast in the dark colour scheme too",
    async () => {
      await page.emulateMedia({ colorScheme: "dark" });
      try {
        for (const [hash, heading, ready] of [
          ["#/", "Users", "main table"],
          ["#/users/alice", "Memories of alice", "main table"],
          [`#/users/alice/entries/${ids.beijing}`, `Memory ${ids.beijing}`, "ol.timeline"],
          ["#/recall?user=alice&q=Shenzhen%20coffee%20peanuts", "Recall playground", "main table"],
          ["#/stats", "Store", "main table"],
        ] as const) {
          await page.goto(`${ui.url}${hash}`);
          await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor();
          await page.locator(ready).first().waitFor();
          expect(await contrastFailures(page), hash).toEqual([]);
        }
        await page.goto(`${ui.url}#/users/alice/entries/${ids.beijing}`);
        await page.locator("ol.timeline").waitFor();
        await page.screenshot({ path: join(ARTIFACTS, "entry-dark.png"), fullPage: true });
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "follows a writer: another process adds, the open page shows it without a restart",
    async () => {
      await page.goto(`${ui.url}#/users/alice`);
      await page.getByRole("heading", { level: 1, name: "Memories of alice" }).waitFor();
      await page.getByRole("link", { name: "I switched to black coffee, no more tea" }).waitFor();
      expect(await page.getByText("I started learning the cello").count()).toBe(0);
      const before = filesOf(dir);
      // The agent: a separate process with the writer lock (the inspector holds none).
      const added = await runMoomem(["--dir", dir, "add", "-u", "alice", "I started learning the cello"]);
      expect(added.stderr).toBe("");
      expect(added.code).toBe(0);
      expect(filesOf(dir)).not.toEqual(before);
      // The page polls; nobody reloads it.
      await page.getByRole("link", { name: "I started learning the cello" }).waitFor({ timeout: 30_000 });
      expect(await page.locator("#status").textContent()).toContain("New writes read in");
      // A user the writer creates appears on the users page too.
      const second = await runMoomem(["--dir", dir, "add", "-u", "dave", "I live in Oslo"]);
      expect(second.code).toBe(0);
      await page.goto(ui.url);
      await page.getByRole("link", { name: "dave", exact: true }).waitFor({ timeout: 30_000 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses writes when started without --write, and changes nothing",
    async () => {
      const before = filesOf(dir);
      const response = await rawRequest(ui.port, `/${ui.token}/api/users/alice/entries/${encodeURIComponent(ids.peanuts)}/forget`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Moomem-Token": ui.token },
        body: "{}",
      });
      expect(response.status).toBe(403);
      expect(response.json).toMatchObject({ error: { code: "READ_ONLY", message: expect.stringContaining("--write") } });
      expect(filesOf(dir)).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );
});
