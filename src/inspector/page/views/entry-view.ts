// One memory: its content and metadata, what judged it and why (its lifecycle), its supersede chain as a timeline, and (with --write) forget / restore / purge.

import type { EntryResponse, WriteResponse } from "../../api-types.ts";
import type { EntryLifecycle, MemoryEntry } from "../../../types.ts";
import { ApiFailure, apiPath, getJson, postJson } from "../api-client.ts";
import { confirmAction } from "../confirm-dialog.ts";
import { breadcrumbs, facts, h, statusBadge, time, type Child } from "../dom.ts";
import { entryHref, href, userHref } from "../router.ts";
import type { View, ViewContext } from "../view.ts";

export async function entryView(userId: string, id: string, ctx: ViewContext): Promise<View> {
  const { entry, history } = await getJson<EntryResponse>(apiPath("users", userId, "entries", id));
  const purged = isPurged(entry);
  const replacer = entry.supersededBy === undefined ? undefined : history.find((e) => e.id === entry.supersededBy);

  return {
    title: `${userId}: memory ${id}`,
    body: h(
      "div",
      null,
      breadcrumbs([
        ["Users", href([])],
        [userId, userHref(userId)],
        [`Memory ${id}`, null],
      ]),
      h("h1", { tabindex: "-1" }, "Memory ", h("span", { class: "id" }, id)),
      h("p", { class: "memory-content" }, purged ? "(content purged: only this tombstone remains)" : entry.content),
      facts([
        ["Status", statusBadge(entry.status)],
        ["Kind", entry.kind],
        ["Key", entry.key === undefined ? null : h("code", null, entry.key)],
        ["Created (observed)", time(entry.createdAt)],
        ["Last changed", time(entry.updatedAt)],
        ["Seq", String(entry.seq)],
        ["Replaced by", entry.supersededBy === undefined ? null : h("a", { href: entryHref(userId, entry.supersededBy), class: "id" }, entry.supersededBy)],
      ]),
      h("h2", null, "How it got here"),
      whySection(entry, replacer, userId),
      h("h2", null, "History"),
      timeline(history, entry.id, userId),
      h("h2", null, "Metadata"),
      metadataTable(entry),
      h("h2", null, "Actions"),
      actions(entry, userId, ctx),
    ),
  };
}

/** The lifecycle fields that explain an entry, in the order a reader wants them. */
const WHY_FIELDS: ReadonlyArray<readonly [keyof EntryLifecycle, string]> = [
  ["extractor", "Extracted by"],
  ["sourceSpan", "From the words"],
  ["truncated", "Cut to fit, characters before"],
  ["extractionDegraded", "Extraction failed, stored as said"],
  ["embeddingDegraded", "Embedding failed"],
  ["judge", "Judged by"],
  ["conflictReason", "Judge's reason"],
  ["judgeFallback", "Judge fell back because"],
  ["conflict", "May conflict with"],
  ["deletedFrom", "Forgotten while"],
  ["deletedAt", "Forgotten at"],
  ["purgedAt", "Purged at"],
  ["restoredAt", "Restored at"],
  ["reextractedFrom", "Re-extracted from"],
  ["reextractedInto", "Re-extracted into"],
  ["reextractedAt", "Re-extracted at"],
];

const TIME_FIELDS = new Set<keyof EntryLifecycle>(["deletedAt", "purgedAt", "restoredAt", "reextractedAt"]);
const ID_FIELDS = new Set<keyof EntryLifecycle>(["conflict", "reextractedFrom", "reextractedInto"]);

function isPurged(entry: MemoryEntry): boolean {
  return entry.lifecycle?.purgedAt !== undefined;
}

function whySection(entry: MemoryEntry, replacer: MemoryEntry | undefined, userId: string): HTMLElement {
  const pairs: Array<readonly [string, Child]> = [];
  const lifecycle = entry.lifecycle ?? {};
  for (const [field, label] of WHY_FIELDS) {
    const value = lifecycle[field];
    if (value === undefined) continue;
    if (TIME_FIELDS.has(field) && typeof value === "number") pairs.push([label, time(value)]);
    else if (ID_FIELDS.has(field)) pairs.push([label, idLinks(value as string | string[], userId)]);
    else if (field === "truncated" && typeof value === "object") pairs.push([label, String((value as { originalChars: number }).originalChars)]);
    else pairs.push([label, typeof value === "string" ? value : JSON.stringify(value)]);
  }
  if (replacer !== undefined) {
    const reason = replacer.lifecycle?.conflictReason;
    pairs.push([
      "Replaced because",
      reason !== undefined ? `${reason} (judged by ${replacer.lifecycle?.judge ?? "unknown"})` : "the entry that replaced it gives no reason",
    ]);
  }
  if (pairs.length === 0) return h("p", null, "No judge looked at it: nothing similar was stored when it was added.");
  return facts(pairs);
}

function idLinks(value: string | string[], userId: string): Child {
  const ids = Array.isArray(value) ? value : [value];
  return ids.map((id, i) => [i > 0 ? ", " : "", h("a", { href: entryHref(userId, id), class: "id" }, id)]);
}

/** The supersede chain, oldest first; this memory is marked as the current item. */
function timeline(history: readonly MemoryEntry[], currentId: string, userId: string): HTMLElement {
  if (history.length <= 1) return h("p", null, "Nothing replaced it and it replaced nothing.");
  return h(
    "ol",
    { class: "timeline", "aria-label": "Supersede chain, oldest first" },
    history.map((e) => {
      const reason = e.lifecycle?.conflictReason;
      return h(
        "li",
        { "aria-current": e.id === currentId ? "true" : undefined },
        h(
          "div",
          { class: "timeline-head" },
          time(e.createdAt),
          statusBadge(e.status),
          e.id === currentId ? h("strong", null, "this memory") : h("a", { href: entryHref(userId, e.id), class: "id" }, e.id),
        ),
        h("p", { class: "timeline-content" }, isPurged(e) ? "(content purged)" : e.content),
        typeof reason === "string" ? h("p", { class: "why" }, `Why: ${reason}`) : null,
        e.supersededBy === undefined
          ? null
          : h("p", { class: "why" }, "Replaced by ", h("a", { href: entryHref(userId, e.supersededBy), class: "id" }, e.supersededBy)),
      );
    }),
  );
}

function metadataTable(entry: MemoryEntry): HTMLElement {
  const keys = Object.keys(entry.metadata).sort();
  if (keys.length === 0) return h("p", null, "No metadata.");
  return h(
    "table",
    null,
    h("caption", { class: "visually-hidden" }, "Metadata of this memory"),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Key"), h("th", { scope: "col" }, "Value"))),
    h(
      "tbody",
      null,
      keys.map((k) =>
        h("tr", null, h("th", { scope: "row" }, h("code", null, k)), h("td", null, h("pre", { class: "json" }, JSON.stringify(entry.metadata[k], null, 2)))),
      ),
    ),
  );
}

function actions(entry: MemoryEntry, userId: string, ctx: ViewContext): HTMLElement {
  if (!ctx.meta.writable) {
    return h("p", { class: "notice" }, "Read-only: start ", h("code", null, "moomem ui --write"), " to forget, restore or purge memories from this page.");
  }
  if (isPurged(entry)) return h("p", null, "Purged: its content is gone, so there is nothing to restore.");
  const run = async (path: "forget" | "restore", body: object, title: string, message: string, label: string, done: string): Promise<void> => {
    if (!(await confirmAction(title, message, label))) return;
    try {
      await postJson<WriteResponse>(apiPath("users", userId, "entries", entry.id, path), body);
      ctx.announce(done);
      ctx.rerender();
    } catch (error) {
      ctx.announce(error instanceof ApiFailure ? `Failed: ${error.message}` : `Failed: ${String(error)}`);
    }
  };
  const buttons: HTMLElement[] = [];
  if (entry.status === "deleted" || entry.status === "superseded") {
    buttons.push(
      h(
        "button",
        {
          type: "button",
          onclick: () =>
            void run(
              "restore",
              {},
              "Restore this memory?",
              entry.status === "deleted"
                ? "It becomes recallable again, with the status it had before it was forgotten."
                : "It becomes active again, and the memory that replaced it becomes superseded by it.",
              "Restore",
              `Restored memory ${entry.id}.`,
            ),
        },
        "Restore",
      ),
    );
  }
  if (entry.status !== "deleted") {
    buttons.push(
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: () =>
            void run(
              "forget",
              {},
              "Forget this memory?",
              "It leaves recall at once and stays on disk as deleted; Restore brings it back.",
              "Forget",
              `Forgot memory ${entry.id}.`,
            ),
        },
        "Forget",
      ),
    );
  }
  buttons.push(
    h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: () =>
          void run(
            "forget",
            { purge: true },
            "Purge this memory?",
            "Its content and vector are erased; after the next compaction only a content-free tombstone remains on disk. This cannot be undone.",
            "Purge",
            `Purged memory ${entry.id}.`,
          ),
      },
      "Purge",
    ),
  );
  return h("div", { class: "actions" }, buttons);
}
