// `plannav mcp --demo` over stdio, driven by the official MCP TypeScript SDK's client (v2,
// @modelcontextprotocol/client): its tools and their schemas, `run_task` on the demo shop with a
// progress notification per step, a second `run_task` cancelled after its first progress
// notification, and `export_playwright` / `replay_history` of the saved run. One server for the file.
import { existsSync } from 'node:fs';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TOOLS, CHANGING_TOOLS, DEMO_TASK, plannavMcpStdio, READ_ONLY_TOOLS, TASK_TOOLS, TOP_LEVEL_COMBINATORS } from '../helpers/front-mcp';

/** JSON-RPC messages as they crossed the transport, both ways. */
type Message = { readonly id?: unknown; readonly method?: string; readonly params?: Record<string, unknown> } & Record<string, unknown>;

let client: Client;
let transport: StdioClientTransport;
let stderr = '';
const sent: Message[] = [];
const received: Message[] = [];
/** What the transport could not parse or deliver (a stray line on the server's stdout lands here). */
const transportErrors: Error[] = [];

beforeAll(async () => {
  transport = new StdioClientTransport(plannavMcpStdio(['--demo']));
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  // Every message on the wire, to see the progress tokens and the notifications the client does not surface after a cancel.
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    sent.push(message);
    return send(message);
  };
  client = new Client({ name: 'plannav-test', version: '0.0.0' });
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (message) => {
    received.push(message);
    onmessage?.(message);
  };
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    transportErrors.push(error);
    onerror?.(error);
  };
}, 60_000);

afterAll(async () => {
  await client?.close();
});

/** The first tools/call request sent with this tool name and task, and its progress token. */
function progressTokenOf(task: string): unknown {
  const call = sent.find((message) => message.method === 'tools/call' && (message.params?.arguments as { task?: string } | undefined)?.task === task);
  return (call?.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
}

describe('plannav mcp --demo over stdio (SDK v2 client)', () => {
  let tools: Tool[];
  let historyFile: string;

  it('lists every tool of the contract, read-only ones annotated, each input schema a plain object schema', async () => {
    ({ tools } = await client.listTools());
    const names = tools.map((tool) => tool.name);
    for (const name of [...TASK_TOOLS, ...BROWSER_TOOLS]) expect(names, name).toContain(name);

    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of READ_ONLY_TOOLS) expect(byName.get(name)?.annotations?.readOnlyHint, `${name} is read-only`).toBe(true);
    for (const name of CHANGING_TOOLS) expect(byName.get(name)?.annotations?.readOnlyHint, `${name} is not read-only`).not.toBe(true);

    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      for (const keyword of TOP_LEVEL_COMBINATORS) expect(tool.inputSchema, `${tool.name} has a top-level ${keyword}`).not.toHaveProperty(keyword);
      expect(tool.description?.length ?? 0, `${tool.name} has a description`).toBeGreaterThan(0);
    }

    const properties = (name: string): string[] => Object.keys(byName.get(name)?.inputSchema.properties ?? {});
    const required = (name: string): readonly string[] => byName.get(name)?.inputSchema.required ?? [];
    expect(properties('run_task')).toEqual(expect.arrayContaining(['task', 'start_url', 'output_schema', 'max_steps', 'allowed_hosts']));
    expect(required('run_task')).toEqual(['task']);
    expect(required('replay_history')).toEqual(['history_file']);
    expect(required('export_playwright')).toEqual(['history_file']);
    expect(required('browser_navigate')).toEqual(['url']);
    expect(required('browser_click')).toEqual(['index']);
    expect([...required('browser_type')].sort()).toEqual(['index', 'text']);
    expect([...required('browser_select')].sort()).toEqual(['index', 'option']);
    expect(required('browser_tabs')).toEqual(['action']);
  });

  it('run_task completes the demo task, with one progress notification per step and the saved history', { timeout: 90_000 }, async () => {
    const progress: { progress: number; total?: number | undefined }[] = [];
    const result = await client.callTool(
      { name: 'run_task', arguments: { task: DEMO_TASK, allowed_hosts: ['127.0.0.1'] } },
      { onprogress: (update) => progress.push(update), timeout: 80_000, resetTimeoutOnProgress: true },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const structured = result.structuredContent as {
      status?: unknown;
      success?: unknown;
      answer?: unknown;
      usage?: unknown;
      steps?: unknown;
      history_file?: unknown;
    };
    expect(structured.status).toBe('ok');
    expect(structured.success).toBe(true);
    expect(structured.answer).toEqual(expect.stringContaining('Blue bowl'));
    expect(structured.usage).toEqual(expect.any(Object));
    expect(structured.steps).toEqual(expect.any(Number));
    expect(typeof structured.history_file).toBe('string');
    historyFile = structured.history_file as string;
    expect(existsSync(historyFile), historyFile).toBe(true);

    // Counted on the wire: the SDK may drop a notification that it handles after the response that ends the request.
    const token = progressTokenOf(DEMO_TASK);
    expect(token).toBeDefined();
    const notifications = received
      .filter((message) => message.method === 'notifications/progress' && message.params?.progressToken === token)
      .map((message) => message.params?.progress as number);
    expect(progress.length).toBeGreaterThan(0);
    expect(notifications).toHaveLength(structured.steps as number);
    for (let index = 1; index < notifications.length; index += 1) expect(notifications[index]).toBeGreaterThan(notifications[index - 1] as number);
  });

  it('run_task refuses allowed_hosts outside the configured ones (it may narrow them, never widen them)', async () => {
    const result = await client.callTool({ name: 'run_task', arguments: { task: DEMO_TASK, allowed_hosts: ['evil.example'] } }, { timeout: 30_000 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('evil.example');
  });

  it('a run_task cancelled after its first progress notification stops: no further progress, and the server goes on serving', { timeout: 90_000 }, async () => {
    const task = `${DEMO_TASK} `; // the same task, told apart on the wire by its trailing space
    const controller = new AbortController();
    let progressSeen = 0;
    const call = client.callTool(
      { name: 'run_task', arguments: { task } },
      {
        signal: controller.signal,
        timeout: 80_000,
        resetTimeoutOnProgress: true,
        onprogress: () => {
          progressSeen += 1;
          if (progressSeen === 1) controller.abort('the test cancels the task');
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(progressSeen).toBe(1);

    const token = progressTokenOf(task);
    expect(token).toBeDefined();
    const callId = sent.find((message) => message.method === 'tools/call' && (message.params?.arguments as { task?: string } | undefined)?.task === task)?.id;
    const receivedAtCancel = received.length;

    // The next call: while it runs, a task that went on would still report its steps (the demo has several left).
    const replay = await client.callTool(
      { name: 'replay_history', arguments: { history_file: historyFile } },
      { timeout: 80_000, resetTimeoutOnProgress: true },
    );
    expect(replay.isError, JSON.stringify(replay.content)).toBeFalsy();
    const status = (replay.structuredContent as { status?: unknown } | undefined)?.status;
    if (status !== undefined) expect(status).toBe('ok');

    const lateProgress = received
      .slice(receivedAtCancel)
      .filter((message) => message.method === 'notifications/progress' && message.params?.progressToken === token);
    // At most the step that was ending as the cancel arrived.
    expect(lateProgress.length).toBeLessThanOrEqual(1);
    // And no late answer to the cancelled request claims the task was done.
    const lateAnswer = received.slice(receivedAtCancel).find((message) => message.id === callId && 'result' in message) as
      { result?: { structuredContent?: { status?: unknown } } } | undefined;
    if (lateAnswer) expect(lateAnswer.result?.structuredContent?.status).toBe('cancelled');
  });

  it('export_playwright turns the saved history into a Playwright test', async () => {
    const result = await client.callTool({ name: 'export_playwright', arguments: { history_file: historyFile } }, { timeout: 30_000 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(text).toContain('test(');
    expect(text).toContain('goto(');
  });

  it('export_playwright of a file that does not exist is a tool error naming it', async () => {
    const result = await client.callTool({ name: 'export_playwright', arguments: { history_file: '/no/such/history.json' } }, { timeout: 30_000 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('/no/such/history.json');
  });

  it('wrote nothing but JSON-RPC on stdout (the log, if any, went to stderr)', () => {
    // A stray console.log on stdout would have broken the client's parse; the client saw only messages.
    expect(received.length).toBeGreaterThan(0);
    expect(transportErrors.map((error) => error.message)).toEqual([]);
    expect(
      received.every((message) => message.jsonrpc === '2.0'),
      stderr,
    ).toBe(true);
  });
});
