// The help pages: one for the tool, one per command, made from the same option specs the parser uses.

import type { OptionSpecs } from "./args.ts";
import type { Command } from "./command.ts";

/** `moomem --help`. */
export function toolHelp(commands: readonly Command[], globals: OptionSpecs): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = [
    "moomem — long-term memory for AI agents, from the command line",
    "",
    "usage: moomem [--dir <folder> | --pg <url>] [--json] <command> [options]",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "options for every command:",
    ...optionLines(globals),
    "",
    "exit status: 0 success, 2 usage error or bad input, 1 store error, 130 interrupted;",
    "errors go to stderr as `moomem: <CODE>: <message>`.",
    'Run "moomem <command> --help" for a command\'s options and examples.',
  ];
  return lines.join("\n") + "\n";
}

/** `moomem <command> --help`. */
export function commandHelp(command: Command, globals: OptionSpecs): string {
  const lines = [`usage: moomem ${command.name}${command.usage === "" ? "" : ` ${command.usage}`}`, "", command.summary];
  if (Object.keys(command.options).length > 0) lines.push("", "options:", ...optionLines(command.options));
  lines.push("", "options for every command:", ...optionLines(globals));
  if (command.details.length > 0) lines.push("", ...command.details);
  return lines.join("\n") + "\n";
}

function optionLines(specs: OptionSpecs): string[] {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const long = `--${name}${spec.placeholder === undefined ? "" : ` ${spec.placeholder}`}`;
    return [spec.short === undefined ? `    ${long}` : `-${spec.short}, ${long}`, spec.description] as const;
  });
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
