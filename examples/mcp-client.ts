// Example: moomem as an MCP server. An MCP client (here the official SDK's; in real life Claude Desktop,
// Cursor or your agent framework) starts the server over stdio and calls its tools: remember, recall,
// list, forget — each with the end user's id.
//
// In an MCP client's config the server is simply:  { "command": "npx", "args": ["moomem", "mcp", "--dir", "./memory"] }
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
  // Server mode: what `moomem mcp --dir <dir>` runs. Serves until the client closes stdin.
  await runMcpServer({ dir: process.argv[3]! });
} else {
  await runClient();
}

type Result = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
type Memory = { id: string; content: string; when: string; status?: string };

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
    const { tools } = await client.listTools();
    console.log(`server ${client.getServerVersion()?.name} offers: ${tools.map((t) => t.name).join(", ")}`);

    const call = async (name: string, args: Record<string, unknown>): Promise<Result> => {
      const result = (await client.callTool({ name, arguments: args })) as Result;
      console.log(`${name} ${JSON.stringify(args)}\n  -> ${result.isError ? "error " : ""}${result.content[0]?.text}`);
      return result;
    };

    await call("remember", { userId: "alice", content: "I'm allergic to peanuts" });
    await call("remember", { userId: "alice", content: "I moved to Lisbon", observedAt: "2024-01-15" });
    await call("remember", { userId: "bob", content: "I'm allergic to shellfish" });

    const recalled = await call("recall", { userId: "alice", query: "food allergies", topK: 3 });
    const memories = (recalled.structuredContent as { memories: Memory[] }).memories;
    console.log(`alice's allergies: ${memories.filter((m) => /allergic/.test(m.content)).map((m) => m.content).join("; ")}`);

    const bobs = (await call("recall", { userId: "bob", query: "Lisbon" })).structuredContent as { memories: Memory[] };
    console.log(`bob's recall holds alice's memories: ${bobs.memories.some((m) => /Lisbon|peanuts/.test(m.content)) ? "yes" : "no"}`);
    await call("forget", { userId: "alice", id: memories[0]!.id });
    const listed = await call("list", { userId: "alice" });
    const all = (listed.structuredContent as { memories: Memory[] }).memories;
    console.log(`alice now: ${all.map((m) => `${m.content} [${m.status}]`).join("; ")}`);

    // A bad user id is a tool error with the MoomemError code; the server keeps running.
    await call("recall", { userId: "../etc", query: "anything" });
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
  if (serverLog !== "") console.log(`server log:\n${serverLog}`);
  console.log("done");
}
