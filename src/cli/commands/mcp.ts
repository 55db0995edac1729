// `moomem mcp`: serve the store to an MCP client (Claude Desktop, Cursor, agent frameworks) over stdio.

import { flag, stringOption, usageError } from "../args.ts";
import { type Command, type CommandContext, USER_OPTION, requireNone } from "../command.ts";
import { buildOpenOptions } from "../open-options.ts";
import { withStoreBackend } from "../store-location.ts";

/** The client entry the README and docs/agents.md show too (test/node/mcp.test.ts keeps the three the same). */
export const MCP_CLIENT_ENTRY =
  '"moomem": { "command": "npx", "args": ["-y", "-p", "moomem", "-p", "@modelcontextprotocol/sdk", "moomem", "--dir", "/home/me/.agent-memory", "mcp", "--user", "alice"] }';

export const mcpCommand: Command = {
  name: "mcp",
  summary: "serve the store over stdio as an MCP server (tools: remember, recall, forget, list)",
  usage: "--user <user> | --any-user",
  options: {
    user: { ...USER_OPTION, description: "serve only this user's memories; the tools take no user id (1-64 of A-Z a-z 0-9 _ . -)" },
    "any-user": {
      type: "boolean",
      description: "let the client name the user in every call: it can then read and forget every user's memories (trusted clients only)",
    },
  },
  details: [
    "Runs until the client disconnects (or SIGINT / SIGTERM); stdout carries only the protocol.",
    "One of --user and --any-user is required: the MCP client (in the end, the model) calls the tools, so",
    "--user keeps it to one person's memories; use --any-user only for a client you trust with everyone's.",
    "Needs the optional package @modelcontextprotocol/sdk next to moomem (npx -p installs both).",
    "",
    "example client entry (e.g. Claude Desktop's mcpServers):",
    `  ${MCP_CLIENT_ENTRY}`,
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const user = stringOption(ctx.values, "user");
    const anyUser = flag(ctx.values, "any-user");
    if (user !== undefined && anyUser) throw usageError(ctx.name, "mcp takes --user <user> or --any-user, not both");
    if (user === undefined && !anyUser) {
      throw usageError(
        ctx.name,
        "mcp needs --user <user> (serve one user's memories; the tools then take no user id) or --any-user " +
          "(the client names the user in every call and can read and forget every user's memories: trusted clients only)",
      );
    }
    // Loaded on demand: the other commands never pay for the MCP server or its SDK.
    const { runMcpServer } = await import("../../mcp/server.ts");
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const storeOptions = withStoreBackend(ctx.location, buildOpenOptions(ctx.values, ctx.io.env, { readOnly: false, embeds: true }));
      const scope = user === undefined ? { anyUser: true } : { userId: user };
      await runMcpServer({ dir: ctx.dir, ...scope, storeOptions, signal: stop.signal });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
};
