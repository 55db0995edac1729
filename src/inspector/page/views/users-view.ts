// The users page: every user of the store with counts per status and their last write, filtered, sorted and paged by the server.

import type { UserSummary, UsersResponse } from "../../api-types.ts";
import { getJson } from "../api-client.ts";
import { count, field, h, time } from "../dom.ts";
import { pager } from "../pager.ts";
import { href, userHref } from "../router.ts";
import type { View, ViewContext } from "../view.ts";

type Column = { key: keyof UserSummary; label: string; numeric: boolean };

const COLUMNS: readonly Column[] = [
  { key: "userId", label: "User", numeric: false },
  { key: "active", label: "Active", numeric: true },
  { key: "superseded", label: "Superseded", numeric: true },
  { key: "deleted", label: "Deleted", numeric: true },
  { key: "unstructured", label: "Unstructured", numeric: true },
  { key: "total", label: "Total", numeric: true },
  { key: "lastWriteAt", label: "Last write", numeric: false },
];

export async function usersView(params: URLSearchParams, _ctx: ViewContext): Promise<View> {
  const query = Object.fromEntries(["text", "sort", "order", "offset"].map((k) => [k, params.get(k) ?? undefined]));
  const page = await getJson<UsersResponse>("api/users", query);
  const sort = params.get("sort") ?? "lastWriteAt";
  const order = params.get("order") ?? "desc";
  const withParams = (changes: Record<string, string | number | undefined>): string => href([], { ...query, ...changes });

  const filter = h("input", { type: "search", name: "text", value: params.get("text") ?? "", autocomplete: "off" });
  const form = h(
    "form",
    {
      class: "filters",
      role: "search",
      "aria-label": "Filter users",
      onsubmit: (event: Event) => {
        event.preventDefault();
        location.hash = withParams({ text: filter.value.trim(), offset: undefined });
      },
    },
    field("user-filter", "User id contains", filter),
    h("button", { type: "submit" }, "Filter"),
  );

  const headerCell = (c: Column): HTMLElement => {
    const sorted = sort === c.key;
    const next = sorted && order === "desc" ? "asc" : sorted ? "desc" : c.numeric || c.key === "lastWriteAt" ? "desc" : "asc";
    return h(
      "th",
      { scope: "col", class: c.numeric ? "num" : undefined, "aria-sort": sorted ? (order === "asc" ? "ascending" : "descending") : undefined },
      h(
        "a",
        { href: withParams({ sort: c.key, order: next, offset: undefined }), "aria-label": `${c.label}: sort ${next === "asc" ? "ascending" : "descending"}` },
        c.label,
        sorted ? (order === "asc" ? " ▲" : " ▼") : "",
      ),
    );
  };

  const table =
    page.users.length === 0
      ? h("p", { class: "notice" }, page.total === 0 && query["text"] === undefined ? "This store has no memories yet." : "No user matches this filter.")
      : h(
          "table",
          null,
          h("caption", null, "Users and their memories per status"),
          h("thead", null, h("tr", null, COLUMNS.map(headerCell))),
          h(
            "tbody",
            null,
            page.users.map((u) =>
              h(
                "tr",
                null,
                h("th", { scope: "row" }, h("a", { href: userHref(u.userId) }, u.userId)),
                h("td", { class: "num" }, count(u.active)),
                h("td", { class: "num" }, count(u.superseded)),
                h("td", { class: "num" }, count(u.deleted)),
                h("td", { class: "num" }, count(u.unstructured)),
                h("td", { class: "num" }, count(u.total)),
                h("td", { class: "time" }, time(u.lastWriteAt)),
              ),
            ),
          ),
        );

  return {
    title: "Users",
    body: h(
      "div",
      null,
      h("h1", { tabindex: "-1" }, "Users"),
      h("p", { class: "lead" }, "Everyone this store remembers something about. Open a user to see their memories."),
      form,
      table,
      pager("users", page.total, page.offset, page.limit, (offset) => withParams({ offset: offset === 0 ? undefined : offset })),
    ),
  };
}
