// The store page: counts, size on disk, format, recoveries, the embedder the vectors belong to, and how the inspector follows the writer.

import type { StatsResponse } from "../../api-types.ts";
import { getJson } from "../api-client.ts";
import { bytes, count, facts, h, time } from "../dom.ts";
import type { View, ViewContext } from "../view.ts";

export async function statsView(_ctx: ViewContext): Promise<View> {
  const { stats, embedder, dir, writable, follow } = await getJson<StatsResponse>("api/stats");
  return {
    title: "Store",
    body: h(
      "div",
      null,
      h("h1", { tabindex: "-1" }, "Store"),
      h("h2", null, "Contents"),
      h(
        "table",
        null,
        h("caption", { class: "visually-hidden" }, "Entries per status"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Active", "Superseded", "Deleted", "Unstructured", "Total", "Users"].map((label) => h("th", { scope: "col", class: "num" }, label)),
          ),
        ),
        h(
          "tbody",
          null,
          h(
            "tr",
            null,
            [stats.active, stats.superseded, stats.deleted, stats.unstructured, stats.total, stats.users].map((n) => h("td", { class: "num" }, count(n))),
          ),
        ),
      ),
      h("h2", null, "On disk"),
      facts([
        ["Folder", h("code", null, dir)],
        ["Size", `${bytes(stats.bytesOnDisk)} (${count(stats.bytesOnDisk)} bytes)`],
        ["Format version", String(stats.formatVersion)],
        ["Last write", time(stats.lastWriteAt)],
        ["Torn tails recovered", String(stats.truncatedRecovered)],
      ]),
      h("h2", null, "Vectors"),
      facts([
        ["Embedder", h("code", null, embedder.id)],
        ["Vector dimensions", String(embedder.dim)],
      ]),
      h("h2", null, "This inspector"),
      facts([
        ["Mode", writable ? "write (holds the writer lock; forget, restore and purge are enabled)" : "read-only, following the writer"],
        ["Last looked for new writes", time(follow.checkedAt)],
        ["Last read new writes", time(follow.changedAt)],
        ["Problem reading new writes", follow.lastError],
      ]),
    ),
  };
}
