// A user's memories: filter by status, kind, key, text, time and metadata; sort; page. The server does the work, the page shows one page.

import type { EntriesResponse } from "../../api-types.ts";
import { apiPath, getJson } from "../api-client.ts";
import { breadcrumbs, count, field, fromLocalInput, h, select, statusBadge, time, toLocalInput } from "../dom.ts";
import { pager } from "../pager.ts";
import { entryHref, href, userHref } from "../router.ts";
import type { View, ViewContext } from "../view.ts";

const FILTERS = ["status", "kind", "key", "text", "since", "until", "metadata", "sort", "order", "offset", "limit"] as const;
const SORTS: ReadonlyArray<readonly [string, string]> = [
  ["seq", "Seq"],
  ["createdAt", "Created"],
  ["updatedAt", "Updated"],
];

export async function entriesView(userId: string, params: URLSearchParams, _ctx: ViewContext): Promise<View> {
  const query: Record<string, string | undefined> = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? undefined]));
  const page = await getJson<EntriesResponse>(apiPath("users", userId, "entries"), query);
  const sort = query["sort"] ?? "seq";
  const order = query["order"] ?? "desc";
  const withParams = (changes: Record<string, string | number | undefined>): string => userHref(userId, { ...query, ...changes });

  const status = select(
    "status",
    [
      ["all", "all"],
      ["active", "active"],
      ["superseded", "superseded"],
      ["deleted", "deleted"],
      ["unstructured", "unstructured"],
    ],
    query["status"] ?? "all",
  );
  const kind = select(
    "kind",
    [
      ["", "any"],
      ["fact", "fact"],
      ["preference", "preference"],
      ["event", "event"],
      ["unstructured", "unstructured"],
    ],
    query["kind"] ?? "",
  );
  const key = h("input", { type: "text", name: "key", value: query["key"] ?? "", autocomplete: "off", size: 14 });
  const text = h("input", { type: "search", name: "text", value: query["text"] ?? "", autocomplete: "off" });
  const since = h("input", { type: "datetime-local", name: "since", value: toLocalInput(numberOrUndefined(query["since"])) });
  const until = h("input", { type: "datetime-local", name: "until", value: toLocalInput(numberOrUndefined(query["until"])) });
  const metadata = h("input", {
    type: "text",
    name: "metadata",
    value: query["metadata"] ?? "",
    autocomplete: "off",
    placeholder: '{"channel":"chat"}',
    size: 22,
  });
  const limit = select(
    "limit",
    [
      ["25", "25"],
      ["50", "50"],
      ["100", "100"],
      ["200", "200"],
    ],
    query["limit"] ?? "50",
  );

  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": `Filter the memories of ${userId}`,
      onsubmit: (event: Event) => {
        event.preventDefault();
        location.hash = userHref(userId, {
          status: status.value === "all" ? undefined : status.value,
          kind: kind.value,
          key: key.value.trim(),
          text: text.value.trim(),
          since: fromLocalInput(since.value),
          until: fromLocalInput(until.value),
          metadata: metadata.value.trim(),
          sort: query["sort"],
          order: query["order"],
          limit: limit.value === "50" ? undefined : limit.value,
        });
      },
    },
    h(
      "fieldset",
      null,
      h("legend", null, "Filters"),
      field("f-status", "Status", status),
      field("f-kind", "Kind", kind),
      field("f-key", "Key", key, "exact slot, e.g. home_city"),
      field("f-text", "Content contains", text),
      field("f-since", "Created from", since),
      field("f-until", "Created until", until),
      field("f-metadata", "Metadata (JSON)", metadata, "exact values per key"),
      field("f-limit", "Rows per page", limit),
    ),
    h("button", { type: "submit" }, "Apply filters"),
    h("a", { href: userHref(userId) }, "Clear"),
  );

  const sortHeader = (field: string, label: string, extraClass?: string): HTMLElement => {
    const sorted = sort === field;
    const next = sorted && order === "desc" ? "asc" : "desc";
    return h(
      "th",
      { scope: "col", class: extraClass, "aria-sort": sorted ? (order === "asc" ? "ascending" : "descending") : undefined },
      h(
        "a",
        { href: withParams({ sort: field, order: next, offset: undefined }), "aria-label": `${label}: sort ${next === "asc" ? "ascending" : "descending"}` },
        label,
        sorted ? (order === "asc" ? " ▲" : " ▼") : "",
      ),
    );
  };

  const table =
    page.entries.length === 0
      ? h("p", { class: "notice" }, page.total === 0 ? "No memory matches these filters." : "This page is past the last match.")
      : h(
          "table",
          null,
          h(
            "caption",
            null,
            `Memories of ${userId}, sorted by ${SORTS.find(([k]) => k === sort)?.[1] ?? sort} (${order === "asc" ? "oldest" : "newest"} first)`,
          ),
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              sortHeader("seq", "Seq", "num"),
              h("th", { scope: "col" }, "Content"),
              h("th", { scope: "col" }, "Status"),
              h("th", { scope: "col" }, "Kind"),
              h("th", { scope: "col" }, "Key"),
              sortHeader("createdAt", "Created"),
              sortHeader("updatedAt", "Updated"),
            ),
          ),
          h(
            "tbody",
            null,
            page.entries.map((e) =>
              h(
                "tr",
                null,
                h("td", { class: "num" }, String(e.seq)),
                h(
                  "td",
                  { class: "content" },
                  h("a", { href: entryHref(userId, e.id) }, e.content === "" ? "(content purged)" : e.content),
                  e.supersededBy === undefined
                    ? null
                    : h("span", { class: "hint" }, " → replaced by ", h("a", { href: entryHref(userId, e.supersededBy), class: "id" }, e.supersededBy)),
                ),
                h("td", null, statusBadge(e.status)),
                h("td", null, e.kind),
                h("td", null, e.key === undefined ? "" : h("code", null, e.key)),
                h("td", { class: "time" }, time(e.createdAt)),
                h("td", { class: "time" }, time(e.updatedAt)),
              ),
            ),
          ),
        );

  return {
    title: `${userId}: memories`,
    body: h(
      "div",
      null,
      breadcrumbs([
        ["Users", href([])],
        [userId, null],
      ]),
      h("h1", { tabindex: "-1" }, `Memories of ${userId}`),
      h(
        "p",
        { class: "lead" },
        `${count(page.total)} matching ${page.total === 1 ? "memory" : "memories"}. `,
        h("a", { href: href(["recall"], { user: userId }) }, `Try a recall as ${userId}`),
      ),
      form,
      table,
      pager("memories", page.total, page.offset, page.limit, (offset) => withParams({ offset: offset === 0 ? undefined : offset })),
    ),
  };
}

function numberOrUndefined(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}
