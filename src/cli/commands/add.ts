// `moomem add`: remember what a user said and show what was understood and stored.

import type { AddSummary, Metadata } from "../../node.ts";
import { flag, stringList, usageError } from "../args.ts";
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
    lines: { type: "boolean", description: 'with "-": each line of stdin is one input (blank lines skipped), added with addMany' },
  },
  details: [
    'The words after the options are the text; "-" reads the text from stdin.',
    "",
    "examples:",
    `  moomem add -u alice "I'm allergic to peanuts"`,
    "  moomem add -u alice --meta source=onboarding I live in Beijing",
    "  echo 'I prefer tea' | moomem add -u alice -",
    "  moomem add -u alice --lines - < notes.txt",
    "",
    "With --lines, the lines go to the store 1,000 at a time (one embedder call and one write each, all or",
    "nothing), each added exactly as a separate add would be; --json prints one summary per line.",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const metadata = readMeta(ctx);
    const fromStdin = ctx.positionals.length === 1 && ctx.positionals[0] === "-";
    if (flag(ctx.values, "lines")) {
      if (!fromStdin) throw usageError(ctx.name, '--lines reads the lines from stdin: pass "-" as the text');
      return addLines(ctx, user, metadata, await readAll(ctx.io.stdin));
    }
    const text = fromStdin ? await readAll(ctx.io.stdin) : requireText(ctx, "the text to remember");
    const store = await ctx.open({ readOnly: false, embeds: true });
    const summary = await store.add(user, text, metadata === undefined ? undefined : { metadata });
    if (ctx.out.json) ctx.out.data(summary);
    else printSummary(ctx.out, summary, user);
  },
};

/** The inputs `addMany` takes per call (README, "Adding many inputs at once"). */
const LINES_PER_CALL = 1_000;

/** `--lines`: every non-blank line one input, through addMany in calls of at most 1,000 lines. */
async function addLines(ctx: CommandContext, user: string, metadata: Metadata | undefined, text: string): Promise<void> {
  // Numbered as in the input, blank lines included, so a reader finds each one.
  const numbered = text.split(/\r?\n/).map((line, i) => ({ line, n: i + 1 }));
  const kept = numbered.filter(({ line }) => line.trim().length > 0);
  const lines = kept.map(({ line }) => line);
  if (lines.length === 0) throw usageError(ctx.name, "--lines found no line with text on stdin");
  const store = await ctx.open({ readOnly: false, embeds: true });
  const summaries: AddSummary[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_CALL) {
    summaries.push(...(await store.addMany(user, lines.slice(i, i + LINES_PER_CALL), metadata === undefined ? undefined : { metadata })));
  }
  if (ctx.out.json) {
    ctx.out.data(summaries);
    return;
  }
  summaries.forEach((summary, i) => {
    ctx.out.line(ctx.out.style.dim(`line ${kept[i]!.n}: ${oneLine(lines[i]!)}`));
    printSummary(ctx.out, summary, user);
  });
}

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
