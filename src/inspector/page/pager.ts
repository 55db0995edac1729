// Pagination: "Showing 51–100 of 12,345" and First / Previous / Next / Last links that carry the current filters.

import { count, h } from "./dom.ts";

/** `link(offset)` builds the URL of the page starting at `offset`. */
export function pager(what: string, total: number, offset: number, limit: number, link: (offset: number) => string): HTMLElement {
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(total, offset + limit);
  const lastPage = total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
  const item = (label: string, target: number, enabled: boolean): HTMLElement =>
    h("li", null, enabled ? h("a", { href: link(target) }, label) : h("span", { "aria-disabled": "true", class: "hint" }, label));
  return h(
    "nav",
    { class: "pager", "aria-label": `Pages of ${what}` },
    h("p", { class: "summary" }, total === 0 ? `No ${what}` : `Showing ${count(first)}–${count(last)} of ${count(total)} ${what}`),
    h(
      "ul",
      null,
      item("First", 0, offset > 0),
      item("Previous", Math.max(0, offset - limit), offset > 0),
      item("Next", offset + limit, offset + limit < total),
      item("Last", lastPage, offset < lastPage),
    ),
  );
}
