// The official MCP TypeScript SDK (v2 server package), an optional peer dependency: loaded when a
// server first connects, so `import 'plannav/mcp'` works without it and a missing package is a
// typed error that says what to install.

import { ConfigError } from '../index';

/** The server package's module, as far as plannav uses it. */
export type ServerSdk = typeof import('@modelcontextprotocol/server');
/** Its stdio module. */
export type StdioSdk = typeof import('@modelcontextprotocol/server/stdio');

const install = 'npm install @modelcontextprotocol/server';

function missing(cause: unknown): ConfigError {
  return new ConfigError(
    `plannav's MCP server needs the optional package @modelcontextprotocol/server (the official MCP TypeScript SDK, v2), which could not be loaded. Install it with: ${install}`,
    { cause },
  );
}

let server: Promise<ServerSdk> | undefined;
let stdio: Promise<StdioSdk> | undefined;

/**
 * The SDK's server module.
 * @throws `ConfigError` naming the package to install when it cannot be loaded.
 */
export function loadServerSdk(): Promise<ServerSdk> {
  server ??= import('@modelcontextprotocol/server').catch((error: unknown) => {
    server = undefined;
    throw missing(error);
  });
  return server;
}

/**
 * The SDK's stdio transport module.
 * @throws `ConfigError` naming the package to install when it cannot be loaded.
 */
export function loadStdioSdk(): Promise<StdioSdk> {
  stdio ??= import('@modelcontextprotocol/server/stdio').catch((error: unknown) => {
    stdio = undefined;
    throw missing(error);
  });
  return stdio;
}
