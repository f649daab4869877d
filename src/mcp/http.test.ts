// Streamable HTTP: who gets in (Host, Origin, token; 403 and 401 otherwise, no CORS ever), and that
// both SDK lines' clients (v2 `@modelcontextprotocol/client`, the v1 `@modelcontextprotocol/sdk`
// hosts ship) list the tools and run a task through it.

import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { ConfigError } from '../errors';
import { saveHistory } from '../node/history-files';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import type { McpRunSession } from './runtime';
import { createServerWith, type McpHttpServer, type PlannavMcpServer } from './server';

const token = 'test-token-0123456789';
let folder: string;
let server: PlannavMcpServer;
let open: McpHttpServer;
let guarded: McpHttpServer;

function session(): McpRunSession {
  const browser = shopBrowser();
  const llm = new ScriptedLLM({
    responses: [
      scriptedPlan(),
      scriptedActions([{ done: { text: 'Shop is open.', success: true } }]),
      scriptedPlan({ done: true, finalAnswer: 'Shop is open.' }),
    ],
  });
  return {
    browser,
    llm,
    extractionLLM: undefined,
    startUrl: undefined,
    demoTask: undefined,
    taskFor: (task = '', startUrl) => (startUrl && !task.includes(startUrl) ? `${task}\nStart at ${startUrl}` : task),
    executorOptions: (task) => ({ task, llm, browser, sensitiveActions: false, urlPolicy: { allow: ['shop.test'] } }),
    saveRun: async (executor, outDir) => {
      const historyFile = join(outDir, 'history.json');
      await saveHistory(historyFile, executor.history);
      return { historyFile, warnings: [] };
    },
    close: async () => undefined,
  };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-mcp-http-'));
  server = createServerWith({ historyDir: folder }, async () => session());
  open = await server.listen({ port: 0 });
  guarded = await server.listen({ host: '127.0.0.2', port: 0, token });
});

afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

/** A raw request with headers a browser or fetch would not let us set (Host). */
function raw(
  url: string,
  headers: Record<string, string>,
  method = 'POST',
  body = '{}',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('MCP over HTTP: who gets in', () => {
  it('binds to 127.0.0.1 by default and serves /mcp', () => {
    expect(open.host).toBe('127.0.0.1');
    expect(open.url).toBe(`http://127.0.0.1:${open.port}/mcp`);
  });

  it('answers its own Host and refuses a foreign one with 403', async () => {
    const own = await raw(open.url, { host: `localhost:${open.port}` }, 'POST', initialize);
    expect(own.status).toBe(200);
    const rebound = await raw(open.url, { host: `evil.example:${open.port}` }, 'POST', initialize);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/not this server/);
  });

  it('refuses a request from another site\u2019s page (Origin) with 403, and never grants CORS', async () => {
    const foreign = await raw(open.url, { origin: 'https://evil.example' }, 'POST', initialize);
    expect(foreign.status).toBe(403);
    const preflight = await raw(open.url, { origin: 'https://evil.example', 'access-control-request-method': 'POST' }, 'OPTIONS');
    expect(preflight.status).toBe(403);
    for (const response of [foreign, preflight, await raw(open.url, {}, 'POST', initialize)]) {
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('with a token, refuses a request without it (401) and takes one with it', async () => {
    expect((await raw(guarded.url, {}, 'POST', initialize)).status).toBe(401);
    expect((await raw(guarded.url, { authorization: 'Bearer nope' }, 'POST', initialize)).status).toBe(401);
    expect((await raw(guarded.url, { authorization: `Bearer ${token}` }, 'POST', initialize)).status).toBe(200);
  });

  it('refuses to bind off loopback without a token', async () => {
    await expect(server.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(ConfigError);
    await expect(server.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/token/);
  });

  it('answers other paths with 404', async () => {
    expect((await raw(open.url.replace('/mcp', '/other'), {}, 'POST', initialize)).status).toBe(404);
  });
});

describe('MCP over HTTP: both SDK lines\u2019 clients', () => {
  it('the v1 client (@modelcontextprotocol/sdk) lists the tools and runs a task with progress', async () => {
    const client = new ClientV1({ name: 'v1-host', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(open.url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('run_task');
      const progress: number[] = [];
      const result = await client.callTool({ name: 'run_task', arguments: { task: 'Is the shop open?' } }, undefined, {
        onprogress: (event) => progress.push(event.progress),
      });
      expect(result.structuredContent).toMatchObject({ status: 'ok', answer: 'Shop is open.' });
      expect(progress).toEqual([1]);
    } finally {
      await client.close();
    }
  });

  it('the v2 client lists the tools with the token', async () => {
    const client = new ClientV2({ name: 'v2-host', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(guarded.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(13);
      const result = await client.callTool({ name: 'browser_close', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
