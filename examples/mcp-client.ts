// Example: moomem as an MCP server. An MCP client (here the official SDK's; in real life Claude Desktop,
// Cursor or your agent framework) starts the server over stdio and calls its tools: remember, recall,
// list, forget. The server is pinned to one end user (alice): the tools take no user id, so the client,
// and the model behind it, cannot reach anyone else's memories.
//
// In an MCP client's config the server is (docs/agents.md):
//   { "command": "npx", "args": ["-y", "-p", "moomem", "-p", "@modelcontextprotocol/sdk", "moomem", "--dir", "./memory", "mcp", "--user", "alice"] }
// Here the example starts itself in server mode (runMcpServer from "moomem/mcp"), so it needs no CLI.
//
// Run: npm run build && npx tsx examples/mcp-client.ts

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runMcpServer } from "moomem/mcp";

if (process.argv[2] === "--serve") {
  // Server mode: what `moomem --dir <dir> mcp --user alice` runs. Serves until the client closes stdin.
  await runMcpServer({ dir: process.argv[3]!, userId: "alice" });
} else {
  await runClient();
}

type Result = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
type Memory = { id: string; content: string; when: string; status?: string };
type ToolInfo = { name: string; inputSchema: { properties?: Record<string, unknown> } };

async function runClient(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "moomem-mcp-example-"));
  // Start this same file in server mode, with the same node flags (tsx's loader).
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...process.execArgv, fileURLToPath(import.meta.url), "--serve", dir],
    stderr: "pipe",
  });
  let serverLog = "";
  transport.stderr?.on("data", (chunk: Buffer) => (serverLog += chunk.toString()));
  const client = new Client({ name: "moomem-example", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = (await client.listTools()) as { tools: ToolInfo[] };
    console.log(
      `server ${client.getServerVersion()?.name} offers: ${tools.map((t) => `${t.name}(${Object.keys(t.inputSchema.properties ?? {}).join(", ")})`).join(" ")}`,
    );

    const call = async (name: string, args: Record<string, unknown>): Promise<Result> => {
      const result = (await client.callTool({ name, arguments: args })) as Result;
      console.log(`${name} ${JSON.stringify(args)}\n  -> ${result.isError ? "error " : ""}${result.content[0]?.text}`);
      return result;
    };

    await call("remember", { content: "I'm allergic to peanuts" });
    await call("remember", { content: "I moved to Lisbon", observedAt: "2024-01-15" });

    const recalled = await call("recall", { query: "food allergies", topK: 3 });
    const memories = (recalled.structuredContent as { memories: Memory[] }).memories;
    console.log(
      `alice's allergies: ${memories
        .filter((m) => /allergic/.test(m.content))
        .map((m) => m.content)
        .join("; ")}`,
    );

    // The model tries another user: a tool error with the MoomemError code; nothing of bob's is reached,
    // and the server keeps running.
    const refused = await call("recall", { userId: "bob", query: "anything" });
    console.log(`a call naming another user was refused: ${refused.isError === true ? "yes" : "no"}`);

    await call("forget", { id: memories[0]!.id });
    const listed = await call("list", {});
    const all = (listed.structuredContent as { memories: Memory[] }).memories;
    console.log(`alice now: ${all.map((m) => `${m.content} [${m.status}]`).join("; ")}`);
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
  if (serverLog !== "") console.log(`server log:\n${serverLog}`);
  console.log("done");
}
