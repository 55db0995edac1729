// The `moomem/mcp` entry (Node, Bun, Deno): serve a store to MCP clients over stdio (needs the optional peer `@modelcontextprotocol/sdk`).

export { runMcpServer, type McpServerOptions } from "./mcp/server.ts";
export {
  memoryToolDefinitions,
  callMemoryTool,
  type McpUserScope,
  type McpToolDefinition,
  type McpToolResult,
  type McpToolsStore,
} from "./mcp/memory-tools.ts";
export type { RememberResult, RememberedFact, RecallResult, RecalledMemory, ListedMemory } from "./integrations/tool-results.ts";
