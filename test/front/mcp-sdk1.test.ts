// The 1.x MCP client (@modelcontextprotocol/sdk), what most hosts ship today, against `plannav mcp
// --demo` over stdio: it lists the tools, drives the browser tools on a page this test serves on
// 127.0.0.1 (the demo server allows the shop's host, 127.0.0.1), and answers the agent's question
// through elicitation (the demo's scripted model asks one when the task says "ask me").
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TOOLS, DEMO_TASK, plannavMcpStdio, TASK_TOOLS } from '../helpers/front-mcp';

const PAGE = `<!doctype html><html><head><title>Interop page</title></head><body>
<h1>Lighthouse keeper 4711</h1>
<label>Name <input id="name" name="name"></label>
<button type="button" onclick="document.querySelector('#out').textContent = 'Hello ' + document.querySelector('#name').value">Greet</button>
<p id="out"></p>
</body></html>`;

let site: Server;
let siteUrl: string;
let client: Client;
/** The elicitation requests the server sent, and the answer given to each. */
const elicitations: { message: string; requestedSchema: unknown }[] = [];

/** An accepted answer that fits the requested form: every string field says 'blue', numbers 1, booleans true. */
function fill(schema: { properties?: Record<string, { type?: string; enum?: unknown[] }> }): Record<string, string | number | boolean> {
  const content: Record<string, string | number | boolean> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (property.enum?.length) content[name] = property.enum[0] as string;
    else if (property.type === 'number' || property.type === 'integer') content[name] = 1;
    else if (property.type === 'boolean') content[name] = true;
    else content[name] = 'blue';
  }
  return content;
}

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  client = new Client({ name: 'plannav-test-sdk1', version: '0.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as { message: string; requestedSchema?: { properties?: Record<string, { type?: string; enum?: unknown[] }> } };
    elicitations.push({ message: params.message, requestedSchema: params.requestedSchema });
    return { action: 'accept', content: fill(params.requestedSchema ?? {}) };
  });
  await client.connect(new StdioClientTransport(plannavMcpStdio(['--demo'])));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

/** The text parts of a tool result, joined. */
function text(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('\n');
}

describe('plannav mcp with the 1.x SDK client', () => {
  it('lists every task and browser tool', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [...TASK_TOOLS, ...BROWSER_TOOLS]) expect(names, name).toContain(name);
  });

  it('drives the browser step by step: navigate, state, type, click, state, screenshot', { timeout: 60_000 }, async () => {
    const navigated = await client.callTool({ name: 'browser_navigate', arguments: { url: siteUrl } });
    expect(navigated.isError, text(navigated)).toBeFalsy();

    const state = await client.callTool({ name: 'browser_state', arguments: {} });
    expect(state.isError, text(state)).toBeFalsy();
    const stateText = text(state);
    expect(stateText).toContain('Lighthouse keeper 4711');
    // The elements come with the indices the other tools take: find the input's and the button's.
    const index = (pattern: RegExp): number => {
      const line = stateText.split('\n').find((candidate) => pattern.test(candidate));
      const found = /\[(\d+)\]/.exec(line ?? '');
      if (!found) throw new Error(`No indexed element matching ${String(pattern)} in the state:\n${stateText}`);
      return Number(found[1]);
    };
    const typed = await client.callTool({ name: 'browser_type', arguments: { index: index(/\[\d+\]<input/), text: 'Ada' } });
    expect(typed.isError, text(typed)).toBeFalsy();
    const clicked = await client.callTool({ name: 'browser_click', arguments: { index: index(/\[\d+\]<button[^\n]*Greet/) } });
    expect(clicked.isError, text(clicked)).toBeFalsy();
    expect(text(await client.callTool({ name: 'browser_state', arguments: {} }))).toContain('Hello Ada');

    const screenshot = await client.callTool({ name: 'browser_screenshot', arguments: {} });
    expect(screenshot.isError).toBeFalsy();
    const image = (screenshot.content as { type: string; mimeType?: string; data?: string }[]).find((part) => part.type === 'image');
    expect(image?.mimeType).toMatch(/^image\/(png|jpeg|webp)$/);
    expect(Buffer.from(image?.data ?? '', 'base64').length).toBeGreaterThan(100);
  });

  it('a navigation the URL policy refuses is a tool error, not a crash', async () => {
    const refused = await client.callTool({ name: 'browser_navigate', arguments: { url: 'https://evil.example/' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('evil.example');
    // The server still serves.
    expect((await client.callTool({ name: 'browser_state', arguments: {} })).isError).toBeFalsy();
  });

  it('run_task asks the agent question through elicitation and goes on with the answer', { timeout: 90_000 }, async () => {
    const task = `Ask me which colour I want first. ${DEMO_TASK}`;
    const result = await client.callTool({ name: 'run_task', arguments: { task } }, undefined, { timeout: 80_000, resetTimeoutOnProgress: true });
    expect(result.isError, text(result)).toBeFalsy();
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]?.message.trim().length).toBeGreaterThan(0);
    const structured = result.structuredContent as { status?: unknown; success?: unknown } | undefined;
    expect(structured?.status).toBe('ok');
    expect(structured?.success).toBe(true);
  });
});
