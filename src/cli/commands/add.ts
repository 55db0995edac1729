// `moomem add`: remember what a user said and show what was understood and stored.

import type { AddSummary, Metadata } from "../../node.ts";
import { stringList, usageError } from "../args.ts";
import { type Command, type CommandContext, USER_OPTION, requireText, requireUser } from "../command.ts";
import { readAll } from "../io.ts";
import { type Output, oneLine, plural } from "../output.ts";

export const addCommand: Command = {
  name: "add",
  summary: "remember what a user said; prints what was stored, deduplicated or replaced",
  usage: "-u <user> [--meta key=value]... <text…>",
  options: {
    user: USER_OPTION,
    meta: { type: "string", multiple: true, placeholder: "key=value", description: "metadata kept on the new entries (repeatable; values are strings)" },
  },
  details: [
    'The words after the options are the text; "-" reads the text from stdin.',
    "",
    "examples:",
    `  moomem add -u alice "I'm allergic to peanuts"`,
    "  moomem add -u alice --meta source=onboarding I live in Beijing",
    "  echo 'I prefer tea' | moomem add -u alice -",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const metadata = readMeta(ctx);
    const text = ctx.positionals.length === 1 && ctx.positionals[0] === "-" ? await readAll(ctx.io.stdin) : requireText(ctx, "the text to remember");
    const store = await ctx.open({ readOnly: false, embeds: true });
    const summary = await store.add(user, text, metadata === undefined ? undefined : { metadata });
    if (ctx.out.json) ctx.out.data(summary);
    else printSummary(ctx.out, summary, user);
  },
};

function readMeta(ctx: CommandContext): Metadata | undefined {
  const pairs = stringList(ctx.values, "meta");
  if (pairs.length === 0) return undefined;
  const metadata: Metadata = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw usageError(ctx.name, `--meta takes key=value, got ${JSON.stringify(pair)}`);
    metadata[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return metadata;
}

function printSummary(out: Output, s: AddSummary, user: string): void {
  const counts = [`extracted ${s.extracted}`, `inserted ${s.inserted}`, `duplicates ${s.duplicates}`, `superseded ${s.superseded}`, `conflicts ${s.conflicts}`];
  out.line(counts.join(" · "));
  if (s.extracted === 0)
    out.line(
      `nothing to remember: ${s.nothingExtracted ?? "the extractor kept no statement of this text (the default drops questions, greetings and other small talk)"}`,
    );
  if (s.degraded) out.line(out.style.yellow("degraded: extraction or embedding failed, so the text was kept as is (see the entry's metadata)"));
  for (const fact of s.facts) {
    const action = fact.action === "inserted" ? out.style.green("inserted ") : out.style.dim("duplicate");
    const kind = fact.key === undefined ? fact.kind : `${fact.kind}:${fact.key}`;
    out.line(`${action}  ${out.style.dim(fact.id)}  ${kind}  ${oneLine(fact.content)}`);
    if (fact.truncated !== undefined) {
      out.line(
        out.style.yellow(`  truncated: kept the first ${fact.content.length} of ${fact.truncated.originalChars} characters (the store's maxContentChars)`),
      );
    }
    if (fact.replaced !== undefined) out.line(`  replaces ${fact.replaced.join(", ")} (now superseded; see: moomem history -u ${user} ${fact.id})`);
    if (fact.conflicts !== undefined)
      out.line(`  may conflict with ${plural(fact.conflicts.length, "entry", "entries")}: ${fact.conflicts.join(", ")} (both kept)`);
  }
}
