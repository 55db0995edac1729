// The `moomem/mcp` entry (Node, Bun, Deno): serve a store to MCP clients over stdio (needs the optional peer `@modelcontextprotocol/sdk`).

export { runMcpServer, type McpServerOptions } from "./mcp/server.ts";
export { MCP_TOOLS, callMemoryTool, type McpToolDefinition, type McpToolResult, type McpToolsStore } from "./mcp/memory-tools.ts";
