// `moomem ui --write` in headless Chromium: forget, restore and purge behind confirmation dialogs; the writer lock it holds; what survives it.

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { EntryResponse } from "../../src/inspector/api-types.ts";
import { MemoryStore } from "../../src/node.ts";
import { ensureBuilt } from "./helpers/built-package.ts";
import { runMoomem, runProcess } from "./helpers/run-cli.ts";
import { CLI_MAIN } from "./helpers/built-package.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";
import { ARTIFACTS, launchChromium, startUi, writeDemoStore, type DemoIds, type RunningUi } from "./helpers/inspector.ts";

const TEST_TIMEOUT_MS = 60_000;

let temp = "";
let dir = "";
let ids: DemoIds;
let ui: RunningUi;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("ui-write");
  dir = join(temp, "memory");
  ids = await writeDemoStore(dir);
  ui = await startUi(temp, ["--write"]);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: "UTC", locale: "en-US", colorScheme: "light" });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  removeDir(temp);
});

/** The entry as the server has it now (through the API, not the page). */
async function entryNow(id: string, user = "alice"): Promise<EntryResponse["entry"]> {
  const response = await page.request.get(`${ui.url}api/users/${user}/entries/${encodeURIComponent(id)}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as EntryResponse).entry;
}

async function openEntry(id: string, user = "alice"): Promise<void> {
  await page.goto(`${ui.url}#/users/${user}/entries/${encodeURIComponent(id)}`);
  await page.getByRole("heading", { level: 1, name: `Memory ${id}` }).waitFor();
}

const statusShown = (): Promise<string | null> => page.locator("main dl.facts .badge").first().textContent();

describe("moomem ui --write in Chromium", () => {
  it(
    "forgets a memory only after confirmation: Cancel and Escape change nothing",
    async () => {
      await openEntry(ids.peanuts);
      expect(await page.locator("#mode").textContent()).toContain("write mode");
      await page.getByRole("button", { name: "Forget", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Forget this memory?" });
      await dialog.waitFor();
      // The safe choice has the focus.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
      await page.screenshot({ path: join(ARTIFACTS, "forget-dialog.png") });
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect((await entryNow(ids.peanuts)).status).toBe("active");

      await page.getByRole("button", { name: "Forget", exact: true }).click();
      await dialog.waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect((await entryNow(ids.peanuts)).status).toBe("active");

      await page.getByRole("button", { name: "Forget", exact: true }).click();
      await dialog.getByRole("button", { name: "Forget" }).click();
      await expect.poll(statusShown).toBe("deleted");
      expect(await page.locator("#status").textContent()).toBe(`Forgot memory ${ids.peanuts}.`);
      const forgotten = await entryNow(ids.peanuts);
      expect(forgotten).toMatchObject({ status: "deleted", content: "I am allergic to peanuts", lifecycle: { deletedFrom: "active" } });
      // Gone from recall at once.
      const recall = await page.request.get(`${ui.url}api/users/alice/recall?q=peanuts`);
      expect(((await recall.json()) as { hits: unknown[] }).hits).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "restores the forgotten memory after confirmation",
    async () => {
      await openEntry(ids.peanuts);
      expect(await page.getByRole("button", { name: "Forget", exact: true }).count()).toBe(0);
      await page.getByRole("button", { name: "Restore" }).click();
      const dialog = page.getByRole("dialog", { name: "Restore this memory?" });
      await dialog.getByRole("button", { name: "Restore" }).click();
      await expect.poll(statusShown).toBe("active");
      expect(await page.locator("main dl.facts").nth(1).textContent()).toContain("Restored at");
      expect(await entryNow(ids.peanuts)).toMatchObject({ status: "active", content: "I am allergic to peanuts" });
      const recall = await page.request.get(`${ui.url}api/users/alice/recall?q=peanuts`);
      expect(((await recall.json()) as { hits: Array<{ id: string }> }).hits.map((h) => h.id)).toEqual([ids.peanuts]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "restores a superseded memory: it is active again and the one that replaced it becomes superseded",
    async () => {
      await openEntry(ids.beijing);
      await page.getByRole("button", { name: "Restore" }).click();
      await page.getByRole("dialog", { name: "Restore this memory?" }).getByRole("button", { name: "Restore" }).click();
      await expect.poll(statusShown).toBe("active");
      const timeline = page.locator("ol.timeline > li");
      await expect.poll(() => timeline.count()).toBe(2);
      expect(await timeline.nth(1).locator(".badge").textContent()).toBe("superseded");
      expect(await timeline.nth(1).textContent()).toContain(`Why: restored ${ids.beijing} replaces it`);
      expect((await entryNow(ids.shenzhen)).status).toBe("superseded");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "purges a forgotten memory after confirmation; nothing is left to restore",
    async () => {
      await openEntry(ids.phone);
      expect(await statusShown()).toBe("deleted");
      await page.getByRole("button", { name: "Purge" }).click();
      const dialog = page.getByRole("dialog", { name: "Purge this memory?" });
      expect(await dialog.textContent()).toContain("cannot be undone");
      await dialog.getByRole("button", { name: "Purge" }).click();
      await expect.poll(() => page.locator(".memory-content").textContent()).toContain("content purged");
      expect(await page.getByRole("button", { name: "Restore" }).count()).toBe(0);
      expect(await entryNow(ids.phone)).toMatchObject({ status: "deleted", content: "", metadata: {}, lifecycle: { purgedAt: expect.any(Number) as unknown } });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "ignores a write sent by another site's page (no token header, foreign origin)",
    async () => {
      const target = `${ui.url}api/users/alice/entries/${encodeURIComponent(ids.coffee)}/forget`;
      const attacker = await browser.newPage();
      await attacker.goto("data:text/html,<p>another site</p>");
      // What a hostile page can send: a no-cors POST (it cannot add the token header), even knowing the URL.
      await attacker.evaluate(async (url) => {
        await fetch(url, { method: "POST", mode: "no-cors", body: "{}", headers: { "Content-Type": "text/plain" } }).catch(() => undefined);
      }, target);
      await attacker.close();
      expect((await entryNow(ids.coffee)).status).toBe("active");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "holds the writer lock: the agent cannot write meanwhile, and a second ui --write says what to do",
    async () => {
      const agent = await runMoomem(["--dir", dir, "add", "-u", "alice", "I like jazz"]);
      expect(agent.code).toBe(1);
      expect(agent.stderr).toMatch(/^moomem: STORE_LOCKED: /);
      const second = await runProcess("node", [CLI_MAIN, "--dir", dir, "ui", "--write"]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        /^moomem: STORE_LOCKED: .*moomem ui --write needs the writer lock: stop the process writing the store first, or run moomem ui without --write/,
      );
      expect(second.stdout).toBe("");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "keeps every change after it stops: the store holds what the page did",
    async () => {
      expect(await ui.stop()).toBe(0);
      const mem = await MemoryStore.open(dir, { readOnly: true });
      try {
        const byId = new Map((await mem.list("alice")).map((e) => [e.id, e]));
        expect(byId.get(ids.peanuts)?.status).toBe("active");
        expect(byId.get(ids.beijing)?.status).toBe("active");
        expect(byId.get(ids.shenzhen)).toMatchObject({ status: "superseded", supersededBy: ids.beijing });
        expect(byId.get(ids.phone)).toMatchObject({ status: "deleted", content: "", metadata: {}, lifecycle: { purgedAt: expect.any(Number) as unknown } });
        expect(byId.get(ids.coffee)?.status).toBe("active");
        expect(byId.size).toBe(8);
      } finally {
        await mem.close();
      }
      // The lock is released: an agent can write again.
      const agent = await runMoomem(["--dir", dir, "add", "-u", "alice", "I like jazz"]);
      expect(agent.code).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
