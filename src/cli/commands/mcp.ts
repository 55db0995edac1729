// `moomem mcp`: serve the store to an MCP client (Claude Desktop, Cursor, agent frameworks) over stdio.

import { type Command, type CommandContext, requireNone } from "../command.ts";
import { buildOpenOptions } from "../open-options.ts";

export const mcpCommand: Command = {
  name: "mcp",
  summary: "serve the store over stdio as an MCP server (tools: remember, recall, forget, list)",
  usage: "",
  options: {},
  details: [
    "Runs until the client disconnects (or SIGINT / SIGTERM); stdout carries only the protocol.",
    "Needs the optional package @modelcontextprotocol/sdk next to moomem.",
    "",
    "example client entry (e.g. Claude Desktop's mcpServers):",
    '  "moomem": { "command": "npx", "args": ["moomem", "--dir", "/home/me/.agent-memory", "mcp"] }',
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    // Loaded on demand: the other commands never pay for the MCP server or its SDK.
    const { runMcpServer } = await import("../../mcp/server.ts");
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      await runMcpServer({ dir: ctx.dir, storeOptions: buildOpenOptions(ctx.values, ctx.io.env, { readOnly: false, embeds: true }), signal: stop.signal });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
};
