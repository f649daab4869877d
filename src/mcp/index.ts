// plannav/mcp: plannav and the Model Context Protocol, both ways. The agent as an MCP server
// (`createMcpServer`: a whole task as one tool, and browser tools), and the tools of MCP servers
// as plannav actions (`mcpActions`). Needs the official MCP TypeScript SDK, an optional peer:
// `@modelcontextprotocol/server` for the server, a connected client of `@modelcontextprotocol/client`
// (or the v1 `@modelcontextprotocol/sdk`) for `mcpActions`. The core (`plannav`) imports none of it.

export { createMcpServer, type McpServerOptions, type PlannavMcpServer } from './server';
export type { McpHttpOptions, McpHttpServer } from './http';
export { mcpActions, type McpActionsOptions, type McpToolClient, type McpToolInfo } from './actions';
export type { RunConfig } from '../front/run-config';
