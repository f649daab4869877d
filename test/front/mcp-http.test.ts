// `plannav mcp --http`: the SDK's streamable HTTP client lists the tools; the server is bound to
// loopback, checks Host and Origin (no DNS rebinding, no cross-site page), requires a bearer token
// when one is set, and refuses to start off loopback without one. Two servers for the file, started
// side by side: one on its defaults, one with --token.
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliProcess } from '../helpers/front-cli';
import { freePort, INITIALIZE_BODY, mcpPostHeaders, rawRequest, TASK_TOOLS, waitForHttp } from '../helpers/front-mcp';

const TOKEN = 'test-token-7f3a9c2e51d84b06';
let open: { cli: CliProcess; port: number };
let guarded: { cli: CliProcess; port: number };

async function startHttpServer(extra: readonly string[]): Promise<{ cli: CliProcess; port: number }> {
  const port = await freePort();
  const cli = startCli(['mcp', '--http', '--port', String(port), '--demo', ...extra], { timeoutMs: 120_000, keepStdinOpen: true });
  let ended = false;
  void cli.done.then(() => void (ended = true));
  await waitForHttp(port, 60_000, () => !ended).catch(async (error: unknown) => {
    cli.kill('SIGKILL');
    const result = await cli.done;
    throw new Error(`plannav mcp --http did not start: ${String(error)}\nstderr:\n${result.stderr}`);
  });
  return { cli, port };
}

beforeAll(async () => {
  [open, guarded] = await Promise.all([startHttpServer([]), startHttpServer(['--token', TOKEN])]);
}, 90_000);

afterAll(async () => {
  for (const server of [open, guarded]) {
    if (!server) continue;
    server.cli.kill('SIGTERM');
    const ended = await Promise.race([server.cli.done.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    if (!ended) server.cli.kill('SIGKILL');
  }
});

describe('plannav mcp --http', () => {
  it('serves the SDK streamable HTTP client at /mcp on 127.0.0.1', async () => {
    const client = new Client({ name: 'plannav-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${open.port}/mcp`)));
    try {
      const { tools } = await client.listTools();
      for (const name of TASK_TOOLS) expect(tools.map((tool) => tool.name)).toContain(name);
    } finally {
      await client.close();
    }
  });

  it('answers a well-formed request from the page own origin and host (the control for the refusals below)', async () => {
    const plain = await rawRequest({ port: open.port, method: 'POST', path: '/mcp', headers: mcpPostHeaders(open.port), body: INITIALIZE_BODY });
    expect(plain.status, plain.body).toBe(200);
    const localhost = await rawRequest({
      port: open.port,
      method: 'POST',
      path: '/mcp',
      headers: mcpPostHeaders(open.port, { host: `localhost:${open.port}`, origin: `http://localhost:${open.port}` }),
      body: INITIALIZE_BODY,
    });
    expect(localhost.status, localhost.body).toBe(200);
  });

  it('refuses a foreign Host header with 403 (DNS rebinding)', async () => {
    const response = await rawRequest({
      port: open.port,
      method: 'POST',
      path: '/mcp',
      headers: mcpPostHeaders(open.port, { host: `evil.example:${open.port}` }),
      body: INITIALIZE_BODY,
    });
    expect(response.status).toBe(403);
  });

  it('refuses a foreign Origin with 403 (a cross-site page)', async () => {
    const response = await rawRequest({
      port: open.port,
      method: 'POST',
      path: '/mcp',
      headers: mcpPostHeaders(open.port, { origin: 'http://evil.example' }),
      body: INITIALIZE_BODY,
    });
    expect(response.status).toBe(403);
    // No CORS grant either.
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('with --token: 401 without Authorization: Bearer or with a wrong one, 200 with the token', async () => {
    const post = (extra: Record<string, string>) =>
      rawRequest({ port: guarded.port, method: 'POST', path: '/mcp', headers: mcpPostHeaders(guarded.port, extra), body: INITIALIZE_BODY });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect((await post({ authorization: TOKEN })).status).toBe(401);
    const allowed = await post({ authorization: `Bearer ${TOKEN}` });
    expect(allowed.status, allowed.body).toBe(200);
    // The token does not excuse a foreign Origin.
    expect((await post({ authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).status).toBe(403);
  });

  it('with --token: the SDK client lists the tools when it sends the token', async () => {
    const client = new Client({ name: 'plannav-test', version: '0.0.0' });
    const url = new URL(`http://127.0.0.1:${guarded.port}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_task');
    } finally {
      await client.close();
    }
  });

  it('refuses to start on 0.0.0.0 without a token: exit 2 and one line on stderr', async () => {
    const port = await freePort();
    const result = await runCli(['mcp', '--http', '--host', '0.0.0.0', '--port', String(port), '--demo'], { timeoutMs: 30_000 });
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(2);
    const errorLines = result.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(/^plannav: .*token/i);
  });
});
