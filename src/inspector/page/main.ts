// The inspector page: loads what the server is, renders the view the URL fragment names, and polls so a store being written shows its new entries.

import type { MetaResponse, VersionResponse } from "../api-types.ts";
import { ApiFailure, getJson } from "./api-client.ts";
import { formatLocal, h } from "./dom.ts";
import { parseRoute, type Route } from "./router.ts";
import type { View, ViewContext } from "./view.ts";
import { entriesView } from "./views/entries-view.ts";
import { entryView } from "./views/entry-view.ts";
import { recallView } from "./views/recall-view.ts";
import { statsView } from "./views/stats-view.ts";
import { usersView } from "./views/users-view.ts";

/** How often the page asks whether the store changed (the server then catches up with the writer). */
const POLL_MS = 2000;

const main = document.getElementById("main")!;
const status = document.getElementById("status")!;
let meta: MetaResponse;
/** The store generation the current view was rendered from. */
let shownGeneration = 0;
let current: View | null = null;
/** Increases with each render, so a slow render never replaces a newer one. */
let renderId = 0;

function announce(message: string, action?: HTMLElement): void {
  status.replaceChildren(message, ...(action === undefined ? [] : [action]));
}

const context = (): ViewContext => ({ meta, announce: (m) => announce(m), rerender: () => void render(false) });

function viewFor(route: Route, ctx: ViewContext): Promise<View> {
  switch (route.view) {
    case "users":
      return usersView(route.params, ctx);
    case "entries":
      return entriesView(route.userId, route.params, ctx);
    case "entry":
      return entryView(route.userId, route.id, ctx);
    case "recall":
      return recallView(route.params, ctx);
    case "stats":
      return statsView(ctx);
    case "not-found":
      return Promise.resolve({
        title: "Not found",
        body: h("div", null, h("h1", { tabindex: "-1" }, "Not found"), h("p", null, "No view at this address. ", h("a", { href: "#/" }, "Go to the users."))),
      });
  }
}

/**
 * Renders the route in the URL. `navigated`: the person went somewhere, so focus moves to the new
 * heading; otherwise (a poll or a write) focus stays on the element that had it, when it still exists.
 */
async function render(navigated: boolean): Promise<void> {
  const id = ++renderId;
  const route = parseRoute(location.hash);
  const generation = meta.follow.generation;
  let view: View;
  try {
    view = await viewFor(route, context());
  } catch (error) {
    const message = error instanceof ApiFailure ? error.message : `the page failed: ${String(error)}`;
    const code = error instanceof ApiFailure ? ` (${error.status} ${error.code})` : "";
    view = {
      title: "Error",
      body: h(
        "div",
        null,
        h("h1", { tabindex: "-1" }, "Something went wrong"),
        h("p", { class: "error", role: "alert" }, message + code),
        h("p", null, h("a", { href: "#/" }, "Back to the users")),
      ),
    };
  }
  if (id !== renderId) return;
  const focusedId = document.activeElement instanceof HTMLElement && main.contains(document.activeElement) ? document.activeElement.id : "";
  const focusedHref = document.activeElement instanceof HTMLAnchorElement ? document.activeElement.getAttribute("href") : null;
  main.replaceChildren(view.body);
  current = view;
  shownGeneration = generation;
  document.title = `${view.title} · moomem ui`;
  markSection(route);
  if (navigated) {
    (main.querySelector("h1") ?? main).focus();
  } else if (focusedId !== "") {
    document.getElementById(focusedId)?.focus();
  } else if (focusedHref !== null) {
    [...main.querySelectorAll("a")].find((a) => a.getAttribute("href") === focusedHref)?.focus();
  }
}

/** aria-current on the navigation link of the section shown. */
function markSection(route: Route): void {
  const section = route.view === "recall" ? "recall" : route.view === "stats" ? "stats" : "users";
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav a[data-section]")) {
    if (link.dataset["section"] === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** Whether re-rendering now would get in someone's way: typing in a field, or a dialog open. */
function busy(): boolean {
  const active = document.activeElement;
  return (
    document.querySelector("dialog[open]") !== null ||
    (active instanceof HTMLElement && main.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))
  );
}

async function poll(): Promise<void> {
  try {
    if (!document.hidden) {
      const { follow } = await getJson<VersionResponse>("api/version");
      meta = { ...meta, follow };
      if (follow.generation !== shownGeneration && current !== null) {
        const when = formatLocal(follow.changedAt ?? Date.now());
        if (current.follows === false) {
          announce(`The store changed at ${when}; run the query again to include the new writes.`);
          shownGeneration = follow.generation;
        } else if (busy()) {
          announce(
            `The store changed at ${when}.`,
            h(
              "button",
              { type: "button", class: "secondary", onclick: () => void render(false).then(() => announce(`Showing the store as of ${when}.`)) },
              "Show the changes",
            ),
          );
          shownGeneration = follow.generation;
        } else {
          await render(false);
          announce(`New writes read in at ${when}.`);
        }
      } else if (follow.lastError !== null) {
        announce(`Could not read the newest writes (${follow.lastError}); showing the store as last read.`);
      }
    }
  } catch (error) {
    announce(`Lost contact with moomem ui (${error instanceof Error ? error.message : String(error)}). Is it still running?`);
  } finally {
    setTimeout(() => void poll(), POLL_MS);
  }
}

async function start(): Promise<void> {
  document.getElementById("skip-link")?.addEventListener("click", (event) => {
    // The fragment holds the route, so the skip link moves focus itself instead of changing it.
    event.preventDefault();
    main.focus();
  });
  try {
    meta = await getJson<MetaResponse>("api/meta");
  } catch (error) {
    main.replaceChildren(
      h("h1", null, "moomem ui could not start"),
      h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error)),
    );
    return;
  }
  const mode = document.getElementById("mode")!;
  mode.replaceChildren(h("strong", null, meta.writable ? "write mode" : "read-only"), ` · ${meta.dir} · moomem ${meta.version}`);
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith("#/") || location.hash === "") void render(true);
  });
  await render(false);
  setTimeout(() => void poll(), POLL_MS);
}

void start();
