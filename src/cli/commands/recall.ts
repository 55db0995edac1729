// `moomem recall`: the user's memories most relevant to a query, best first.

import type { RecallMode } from "../../node.ts";
import { stringOption, usageError } from "../args.ts";
import { type Command, type CommandContext, USER_OPTION, requireText, requireUser } from "../command.ts";
import { printHits } from "../entry-view.ts";

const MODES: readonly RecallMode[] = ["hybrid", "vector", "keyword"];
/** The range `recall` accepts for topK (README, "API at a glance"). */
const MIN_K = 1;
const MAX_K = 100;

export const recallCommand: Command = {
  name: "recall",
  summary: "find a user's memories relevant to a query (vector + keywords, fused)",
  usage: "-u <user> [-k 5] [--mode hybrid|vector|keyword] <query…>",
  options: {
    user: USER_OPTION,
    "top-k": { type: "string", short: "k", placeholder: "<n>", description: "how many memories at most, 1-100 (default 5)" },
    mode: { type: "string", placeholder: "<mode>", description: "hybrid (default), vector or keyword" },
  },
  details: [
    "Only active entries are recalled: superseded and forgotten ones never come back.",
    'The "routes" column shows the rank each route gave a hit (v = vector, k = keywords).',
    "",
    "example:",
    "  moomem recall -u alice -k 3 any food allergies?",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const query = requireText(ctx, "a query");
    const options: { topK?: number; mode?: RecallMode } = {};
    const k = stringOption(ctx.values, "top-k");
    if (k !== undefined) {
      // Checked here, range included, so -k 0 and -k abc get the same words (the store would say "topK").
      const topK = /^\d+$/.test(k) ? Number(k) : Number.NaN;
      if (!(topK >= MIN_K && topK <= MAX_K)) throw usageError(ctx.name, `-k must be a whole number from ${MIN_K} to ${MAX_K}, got ${JSON.stringify(k)}`);
      options.topK = topK;
    }
    const mode = stringOption(ctx.values, "mode");
    if (mode !== undefined) {
      if (!MODES.includes(mode as RecallMode)) throw usageError(ctx.name, `--mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(mode)}`);
      options.mode = mode as RecallMode;
    }
    const store = await ctx.open({ readOnly: true, embeds: true });
    const hits = await store.recall(user, query, options);
    if (ctx.out.json) {
      ctx.out.data(hits);
      return;
    }
    if (hits.length === 0) {
      ctx.out.line(`no memories of ${user} match this query`);
      return;
    }
    printHits(ctx.out, hits);
    if (hits.some((h) => h.degraded === true)) ctx.out.line(ctx.out.style.yellow("degraded: the query could not be embedded; keywords only"));
  },
};
