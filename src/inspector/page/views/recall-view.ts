// The recall playground: run recall as a user and see each hit's fused score and the rank each route (vector, keyword) gave it.

import type { RecallResponse, UsersResponse } from "../../api-types.ts";
import type { RecallHit } from "../../../types.ts";
import { ApiFailure, apiPath, getJson } from "../api-client.ts";
import { field, fromLocalInput, h, select, statusBadge, time, toLocalInput } from "../dom.ts";
import { entryHref, href } from "../router.ts";
import type { View, ViewContext } from "../view.ts";

export async function recallView(params: URLSearchParams, _ctx: ViewContext): Promise<View> {
  const userId = params.get("user") ?? "";
  const q = params.get("q") ?? "";
  const mode = params.get("mode") ?? "hybrid";
  const topK = params.get("topK") ?? "10";
  const since = params.get("since") ?? undefined;
  const until = params.get("until") ?? undefined;
  const kindValue = params.get("kind") ?? "";

  // Suggestions for the user field: the most recently written-to users.
  const known = await getJson<UsersResponse>("api/users", { sort: "lastWriteAt", order: "desc", limit: 500 });
  const user = h("input", { type: "text", name: "user", value: userId, list: "known-users", autocomplete: "off", required: true });
  const query = h("textarea", { name: "q", required: true, rows: 2 }, q);
  const modeSelect = select(
    "mode",
    [
      ["hybrid", "hybrid (vector + keyword)"],
      ["vector", "vector only"],
      ["keyword", "keyword (BM25) only"],
    ],
    mode,
  );
  const topKInput = h("input", { type: "number", name: "topK", min: 1, max: 100, value: topK });
  const sinceInput = h("input", { type: "datetime-local", name: "since", value: toLocalInput(since === undefined ? undefined : Number(since)) });
  const untilInput = h("input", { type: "datetime-local", name: "until", value: toLocalInput(until === undefined ? undefined : Number(until)) });
  const kind = select(
    "kind",
    [
      ["", "any"],
      ["fact", "fact"],
      ["preference", "preference"],
      ["event", "event"],
      ["unstructured", "unstructured"],
    ],
    kindValue,
  );

  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "Run a recall",
      onsubmit: (event: Event) => {
        event.preventDefault();
        location.hash = href(["recall"], {
          user: user.value.trim(),
          q: query.value,
          mode: modeSelect.value === "hybrid" ? undefined : modeSelect.value,
          topK: topKInput.value === "10" ? undefined : topKInput.value,
          since: fromLocalInput(sinceInput.value),
          until: fromLocalInput(untilInput.value),
          kind: kind.value,
        });
      },
    },
    h(
      "datalist",
      { id: "known-users" },
      known.users.map((u) => h("option", { value: u.userId })),
    ),
    field("r-user", "User", user),
    field("r-query", "Query", query, "what the agent would ask before its LLM call", true),
    field("r-mode", "Mode", modeSelect),
    field("r-topk", "Top K", topKInput, "1 to 100"),
    field("r-since", "Created from", sinceInput),
    field("r-until", "Created until", untilInput),
    field("r-kind", "Kind", kind),
    h("button", { type: "submit" }, "Recall"),
  );

  let results: Node = h("p", { class: "hint" }, "Results appear here: each hit with its fused score and the rank each route gave it.");
  if (userId !== "" && q.trim() !== "") {
    try {
      const response = await getJson<RecallResponse>(apiPath("users", userId, "recall"), {
        q,
        mode: params.get("mode") ?? undefined,
        topK: params.get("topK") ?? undefined,
        since,
        until,
        kind: kindValue,
      });
      results = hitsTable(response);
    } catch (error) {
      if (!(error instanceof ApiFailure) || error.status >= 500) throw error;
      results = h("p", { class: "error", role: "alert" }, error.message);
    }
  }

  return {
    title: "Recall playground",
    follows: false,
    body: h(
      "div",
      null,
      h("h1", { tabindex: "-1" }, "Recall playground"),
      h(
        "p",
        { class: "lead" },
        "Runs the same recall your agent runs. The score fuses two routes with Reciprocal Rank Fusion: each route that found a memory adds more the higher it ranked it. ",
        "A dash means that route did not return the memory (no shared keyword, or the vectors are too far apart).",
      ),
      form,
      h("section", { "aria-labelledby": "results-heading" }, h("h2", { id: "results-heading" }, "Results"), results),
    ),
  };
}

function hitsTable(response: RecallResponse): HTMLElement {
  if (response.hits.length === 0) return h("p", { class: "notice" }, `No memory of ${response.userId} matches “${response.query}” in ${response.mode} mode.`);
  const degraded = response.hits.some((hit) => hit.degraded === true);
  return h(
    "div",
    null,
    degraded ? h("p", { class: "notice" }, "The query could not be embedded: only the keyword route ran.") : null,
    h(
      "table",
      null,
      h(
        "caption",
        null,
        `${response.hits.length} ${response.hits.length === 1 ? "hit" : "hits"} for “${response.query}” as ${response.userId} (${response.mode}, top ${response.topK})`,
      ),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col", class: "num" }, "Rank"),
          h("th", { scope: "col", class: "num" }, "Score"),
          h("th", { scope: "col", class: "num" }, "Vector rank"),
          h("th", { scope: "col", class: "num" }, "Keyword rank"),
          h("th", { scope: "col" }, "Content"),
          h("th", { scope: "col" }, "Status"),
          h("th", { scope: "col" }, "Created"),
        ),
      ),
      h(
        "tbody",
        null,
        response.hits.map((hit, i) =>
          h(
            "tr",
            null,
            h("td", { class: "num" }, String(i + 1)),
            h("td", { class: "num" }, hit.score.toFixed(4)),
            routeCell(hit.vectorRank, "vector"),
            routeCell(hit.keywordRank, "keyword"),
            h("td", { class: "content" }, h("a", { href: entryHref(response.userId, hit.id) }, hit.content)),
            h("td", null, statusBadge(hit.status)),
            h("td", { class: "time" }, time(hit.createdAt)),
          ),
        ),
      ),
    ),
  );
}

function routeCell(rank: RecallHit["vectorRank"], route: string): HTMLElement {
  if (rank === undefined)
    return h(
      "td",
      { class: "num route missing" },
      h("span", { "aria-hidden": "true" }, "—"),
      h("span", { class: "visually-hidden" }, `not returned by the ${route} route`),
    );
  return h("td", { class: "num route" }, `#${rank}`);
}
