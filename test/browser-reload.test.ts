// Data in IndexedDB survives a page reload and a tab closed mid-write (real reloads of an iframe page in Chromium).

import { describe, it, expect, afterEach } from "vitest";
import { IndexedDbBackend } from "../src/persistence/indexeddb/indexeddb-backend.ts";
import { isMoomemError } from "../src/errors.ts";
import type { EntryRecord } from "../src/types.ts";
import { makeEntry } from "./backend-conformance.ts";
import { MemoryStore as BrowserMemoryStore } from "../src/browser.ts";

const inBrowser = typeof document !== "undefined" && typeof window !== "undefined";

let counter = 0;
function uniqueName(label: string): string {
  counter += 1;
  return `reload-${label}-${Date.now().toString(36)}-${counter}`;
}

describe("IndexedDB data after a fresh connection", () => {
  it("is all there when the backend is reopened on a new connection", async () => {
    const name = uniqueName("connection");
    const writer = new IndexedDbBackend(name);
    await writer.load();
    const written: EntryRecord[] = [];
    for (let i = 1; i <= 20; i++) {
      const entry = makeEntry(`r${i}`, i, { content: `remembered ${i}`, embedding: Float32Array.from([i, 1 / i]) });
      written.push(entry);
      await writer.append([{ entries: [entry] }]);
    }
    await writer.compact({ embedder: { id: "test", dim: 2 }, count: written.length, entries: written });
    await writer.close();
    const reader = new IndexedDbBackend(name);
    const state = await reader.load();
    await reader.close();
    expect(state.entries.map((e) => e.content)).toEqual(written.map((e) => e.content));
    expect(state.entries.map((e) => Array.from(e.embedding ?? []))).toEqual(written.map((e) => Array.from(e.embedding ?? [])));
    expect(state.embedder).toEqual({ id: "test", dim: 2 });
  });
});

/**
 * A same-origin iframe stands in for a tab: its page imports the backend from the dev server
 * and obeys messages from the test. Reloading or removing the iframe destroys its JS realm,
 * its IndexedDB connection and its Web Locks, as reloading or closing a tab does.
 */
interface PageReply {
  type: "ready" | "done" | "error";
  ids?: string[];
  embedder?: unknown;
  code?: string;
  message?: string;
}

const backendUrl = new URL("../src/persistence/indexeddb/indexeddb-backend.ts", import.meta.url).href;
const browserEntryUrl = new URL("../src/browser.ts", import.meta.url).href;

function pageSource(): string {
  // The page never calls close(): a reload or a closed tab is exactly the case where nobody does.
  return `<!doctype html><script type="module">
const { IndexedDbBackend } = await import(${JSON.stringify(backendUrl)});
const { MemoryStore } = await import(${JSON.stringify(browserEntryUrl)});
let backend = null;
let store = null;
const reply = (message) => parent.postMessage({ fromTestPage: true, ...message }, "*");
addEventListener("message", async (event) => {
  const op = event.data;
  try {
    if (op.type === "open") {
      backend = new IndexedDbBackend(op.name);
      const state = await backend.load();
      reply({ type: "done", ids: state.entries.map((e) => e.id), embedder: state.embedder });
    } else if (op.type === "append") {
      const entries = op.entries.map((e) => ({ ...e, embedding: e.embedding === null ? null : Float32Array.from(e.embedding) }));
      const written = backend.append([{ entries }]);
      if (op.wait) { await written; reply({ type: "done" }); }
      else reply({ type: "done" });
    } else if (op.type === "store-open") {
      store = await MemoryStore.open(op.name);
      reply({ type: "done" });
    } else if (op.type === "store-add") {
      await store.add(op.user, op.text);
      reply({ type: "done" });
    } else if (op.type === "store-recall") {
      const hits = await store.recall(op.user, op.query, { topK: 3 });
      reply({ type: "done", ids: hits.map((h) => h.content) });
    } else if (op.type === "compact") {
      const entries = op.entries.map((e) => ({ ...e, embedding: e.embedding === null ? null : Float32Array.from(e.embedding) }));
      await backend.compact({ embedder: op.embedder, count: entries.length, entries });
      reply({ type: "done" });
    }
  } catch (error) {
    reply({ type: "error", code: error.code, message: String(error.message) });
  }
});
reply({ type: "ready" });
</script>`;
}

class TestPage {
  readonly frame: HTMLIFrameElement;
  #replies: PageReply[] = [];
  #waiters: ((reply: PageReply) => void)[] = [];
  readonly #listener = (event: MessageEvent): void => {
    const data = event.data as (PageReply & { fromTestPage?: boolean }) | null;
    if (event.source !== this.frame.contentWindow || data?.fromTestPage !== true) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter(data);
    else this.#replies.push(data);
  };

  constructor() {
    this.frame = document.createElement("iframe");
    window.addEventListener("message", this.#listener);
  }

  /** Resolves with the page's next message (or fails after a timeout). */
  next(): Promise<PageReply> {
    const queued = this.#replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      // A hang detector: a page answers in milliseconds, but a loaded machine can take many times that.
      const timer = setTimeout(() => reject(new Error("test page did not answer within 120 s")), 120_000);
      this.#waiters.push((reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  async load(): Promise<void> {
    this.frame.srcdoc = pageSource();
    document.body.appendChild(this.frame);
    expect((await this.next()).type).toBe("ready");
  }

  async reload(): Promise<void> {
    this.frame.contentWindow?.location.reload();
    expect((await this.next()).type).toBe("ready");
  }

  async send(op: Record<string, unknown>): Promise<PageReply> {
    this.frame.contentWindow?.postMessage(op, "*");
    return this.next();
  }

  remove(): void {
    this.frame.remove();
    window.removeEventListener("message", this.#listener);
  }
}

/** Plain, postMessage-able form of an entry. */
function wire(entry: EntryRecord): Record<string, unknown> {
  return { ...entry, embedding: entry.embedding === null ? null : Array.from(entry.embedding) };
}

/**
 * Opens a writer, retrying while the browser releases a destroyed page's Web Lock. Bounded by wall time
 * only as a hang detector (120 s): how soon the browser gets to it depends on the machine's load.
 */
async function openWriter(name: string): Promise<{ backend: IndexedDbBackend; ids: string[] }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const backend = new IndexedDbBackend(name);
    try {
      const state = await backend.load();
      return { backend, ids: state.entries.map((e) => e.id) };
    } catch (error) {
      if (!isMoomemError(error, "STORE_LOCKED") || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe.skipIf(!inBrowser)("IndexedDB across real page reloads (Chromium)", () => {
  const pages: TestPage[] = [];
  afterEach(() => {
    for (const page of pages.splice(0)) page.remove();
  });

  it("recalls after a reload what the page wrote before it, and the dead page's lock is gone", async () => {
    const name = uniqueName("page");
    const page = new TestPage();
    pages.push(page);
    await page.load();
    expect(await page.send({ type: "open", name })).toMatchObject({ type: "done", ids: [] });
    const entries = [makeEntry("p1", 1, { embedding: Float32Array.from([0.5, 0.25]) }), makeEntry("p2", 2), makeEntry("p3", 3)];
    expect(await page.send({ type: "append", entries: entries.map(wire), wait: true })).toMatchObject({ type: "done" });
    expect(await page.send({ type: "compact", embedder: { id: "page-embedder", dim: 2 }, entries: entries.map(wire) })).toMatchObject({ type: "done" });

    // The page still holds the writer lock: a writer elsewhere in the origin is refused.
    const blocked = new IndexedDbBackend(name);
    let caught: unknown = null;
    try {
      await blocked.load();
    } catch (error) {
      caught = error;
    }
    expect(isMoomemError(caught, "STORE_LOCKED")).toBe(true);
    expect((caught as Error).message).toMatch(/another tab or worker/);

    // Reload without close(): the new document opens as the writer and sees everything.
    await page.reload();
    expect(await page.send({ type: "open", name })).toMatchObject({ type: "done", ids: ["p1", "p2", "p3"], embedder: { id: "page-embedder", dim: 2 } });
  });

  it("recalls through MemoryStore (moomem/browser) after a reload what was added before it", async () => {
    const name = uniqueName("store");
    const page = new TestPage();
    pages.push(page);
    await page.load();
    expect(await page.send({ type: "store-open", name })).toMatchObject({ type: "done" });
    for (const text of ["I'm allergic to peanuts", "I live in Berlin", "My cat is called Miso"]) {
      expect(await page.send({ type: "store-add", user: "user-42", text })).toMatchObject({ type: "done" });
    }
    const before = await page.send({ type: "store-recall", user: "user-42", query: "what is my cat's name?" });
    expect(before.ids?.[0]).toBe("My cat is called Miso");
    // No close(): the page just reloads.
    await page.reload();
    expect(await page.send({ type: "store-open", name })).toMatchObject({ type: "done" });
    const after = await page.send({ type: "store-recall", user: "user-42", query: "what is my cat's name?" });
    expect(after).toEqual(before);
  });

  it("keeps all or none of a group whose tab closed mid-write", async () => {
    const name = uniqueName("closed-tab");
    const page = new TestPage();
    pages.push(page);
    await page.load();
    await page.send({ type: "open", name });
    await page.send({ type: "append", entries: [wire(makeEntry("before", 1))], wait: true });
    const group: Record<string, unknown>[] = [];
    for (let i = 0; i < 2000; i++) group.push(wire(makeEntry(`big-${i}`, i + 2, { content: `bulk entry ${i} `.repeat(20) })));
    // The page answers as soon as the write has started; then the "tab" is closed under it.
    expect(await page.send({ type: "append", entries: group, wait: false })).toMatchObject({ type: "done" });
    page.remove();

    const { backend, ids } = await openWriter(name);
    await backend.close();
    expect(ids[0]).toBe("before");
    // Atomic: the group landed completely or not at all, never a prefix.
    expect([1, 2001]).toContain(ids.length);
  });
});

describe("MemoryStore on IndexedDB (moomem/browser) after closing and reopening", () => {
  it("recalls what was added before", async () => {
    const name = uniqueName("store-reopen");
    const first = await BrowserMemoryStore.open(name);
    await first.add("user-42", "I'm allergic to peanuts");
    await first.add("user-42", "I live in Berlin");
    await first.add("user-7", "I live in Lisbon");
    const before = await first.recall("user-42", "where do I live?", { topK: 2 });
    await first.close();
    const second = await BrowserMemoryStore.open(name);
    try {
      const after = await second.recall("user-42", "where do I live?", { topK: 2 });
      expect(after.map((h) => [h.id, h.content, h.score])).toEqual(before.map((h) => [h.id, h.content, h.score]));
      expect(after[0]?.content).toBe("I live in Berlin");
      const stats = await second.stats();
      expect(stats.total).toBe(3);
      expect(stats.users).toBe(2);
      expect(stats.bytesOnDisk).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });
});
