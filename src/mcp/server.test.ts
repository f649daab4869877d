// The MCP server through the SDK's own client (v2) over an in-memory transport, on a fake browser
// and a scripted model: the tool list's shape, run_task with progress, narrowing, elicitation and
// cancel, the saved runs' tools and the browser tools.

import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { indexOf, shopBrowser } from '../../test/helpers/loop';
import type { Executor } from '../executor/executor';
import type { ExecutorOptions } from '../executor/options';
import type { LLMClient } from '../llm/types';
import { saveHistory } from '../node/history-files';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import type { McpRunSession } from './runtime';
import { createServerWith, type PlannavMcpServer } from './server';

interface Harness {
  readonly client: Client;
  readonly server: PlannavMcpServer;
  readonly folder: string;
  readonly opened: { count: number; closed: number; saved: string[] };
}

const open: Harness[] = [];

afterEach(async () => {
  for (const harness of open.splice(0)) {
    await harness.client.close();
    await harness.server.close();
    await rm(harness.folder, { recursive: true, force: true });
  }
});

function session(llm: LLMClient, opened: Harness['opened'], extra: Partial<ExecutorOptions> = {}): McpRunSession {
  const browser = shopBrowser();
  return {
    browser,
    llm,
    extractionLLM: undefined,
    startUrl: undefined,
    demoTask: undefined,
    taskFor: (task = '', startUrl) => (startUrl && !task.includes(startUrl) ? `${task}\nStart at ${startUrl}` : task),
    executorOptions: (task) => ({
      task,
      llm,
      browser,
      sensitiveActions: false,
      humanTimeoutMs: 5_000,
      urlPolicy: { allow: ['shop.test'] },
      secrets: { pin: '4242-4242', 'https://bank.test': { user: 'ada-lovelace' } },
      maxSteps: 8,
      ...extra,
    }),
    saveRun: async (executor: Executor, outDir: string) => {
      const historyFile = join(outDir, 'history.json');
      await saveHistory(historyFile, executor.history);
      opened.saved.push(executor.history.tasks.at(-1)?.status ?? 'none');
      return { historyFile, warnings: [] };
    },
    close: async () => void (opened.closed += 1),
  };
}

async function connect(llm: LLMClient, capabilities: Record<string, unknown> = {}, extra: Partial<ExecutorOptions> = {}): Promise<Harness> {
  const folder = await mkdtemp(join(tmpdir(), 'plannav-mcp-test-'));
  const opened = { count: 0, closed: 0, saved: [] as string[] };
  const server = createServerWith({ historyDir: folder }, async () => {
    opened.count += 1;
    return session(llm, opened, extra);
  });
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  const harness = { client, server, folder, opened };
  open.push(harness);
  return harness;
}

const finishing = (answer: string): ScriptedLLM =>
  new ScriptedLLM({
    responses: [scriptedPlan(), scriptedActions([{ done: { text: answer, success: true } }]), scriptedPlan({ done: true, finalAnswer: answer })],
  });

function text(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[]).map((block) => block.text ?? '').join('\n');
}

describe('plannav MCP server: tools', () => {
  it('lists the contract tools, each with an object input schema and no top-level union', async () => {
    const { client } = await connect(new ScriptedLLM());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'run_task',
        'replay_history',
        'export_playwright',
        'browser_navigate',
        'browser_state',
        'browser_click',
        'browser_type',
        'browser_select',
        'browser_scroll',
        'browser_extract',
        'browser_screenshot',
        'browser_tabs',
        'browser_close',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      for (const key of ['oneOf', 'anyOf', 'allOf', '$schema']) expect(Object.keys(tool.inputSchema), tool.name).not.toContain(key);
    }
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
    expect(readOnly.sort()).toEqual(['browser_extract', 'browser_screenshot', 'browser_state', 'export_playwright']);
    const runTask = tools.find((tool) => tool.name === 'run_task');
    expect(runTask?.inputSchema.required).toEqual(['task']);
    expect(Object.keys(runTask?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['task', 'start_url', 'output_schema', 'max_steps', 'allowed_hosts']),
    );
  });

  it('opens no browser until a tool needs one', async () => {
    const { client, opened } = await connect(new ScriptedLLM());
    await client.listTools();
    const closed = await client.callTool({ name: 'browser_close', arguments: {} });
    expect(text(closed)).toBe('No browser was open.');
    expect(opened.count).toBe(0);
  });

  it('answers bad arguments with a tool error naming the field', async () => {
    const { client } = await connect(new ScriptedLLM());
    const result = await client.callTool({ name: 'run_task', arguments: { task: 7 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/task/);
  });
});

describe('plannav MCP server: run_task', () => {
  it('runs the task, sends one progress notification per step, and saves the history', async () => {
    const { client, folder } = await connect(finishing('The blue mug is $12.'));
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'run_task', arguments: { task: 'Find the price of the blue mug' } },
      { onprogress: (event) => progress.push(event) },
    );
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      status: string;
      success: boolean;
      answer: string;
      steps: number;
      history_file: string;
      usage: { totalTokens: number };
    };
    expect(structured).toMatchObject({ status: 'ok', success: true, answer: 'The blue mug is $12.', steps: 1 });
    expect(structured.usage.totalTokens).toBeGreaterThan(0);
    expect(structured.history_file.startsWith(folder)).toBe(true);
    expect(existsSync(structured.history_file)).toBe(true);
    expect(text(result)).toContain('The blue mug is $12.');
    // One Navigator step (between two Planner decisions): one notification, saying what it did.
    expect(progress.map((event) => event.progress)).toEqual([1]);
    expect(progress[0]?.message).toMatch(/^Step 1: done/);

    const exported = await client.callTool({ name: 'export_playwright', arguments: { history_file: structured.history_file } });
    expect(exported.isError).toBeFalsy();
    expect(text(exported)).toContain('import { test, expect } from "@playwright/test";');
    expect(text(exported)).toContain('Final answer: The blue mug is $12.');
  });

  it('refuses allowed_hosts wider than the server allows, before any step', async () => {
    const llm = finishing('x');
    const { client } = await connect(llm);
    const result = await client.callTool({ name: 'run_task', arguments: { task: 'go', allowed_hosts: ['shop.test', 'evil.example'] } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/only narrow.*evil\.example/);
    expect(llm.requests).toHaveLength(0);
  });

  it('refuses a secret the server does not hold, and a start_url outside the narrowed hosts', async () => {
    const { client } = await connect(finishing('x'));
    const secret = await client.callTool({ name: 'run_task', arguments: { task: 'go', secrets: ['pin', 'root-password'] } });
    expect(secret.isError).toBe(true);
    expect(text(secret)).toMatch(/root-password/);
    const start = await client.callTool({ name: 'run_task', arguments: { task: 'go', allowed_hosts: ['www.shop.test'], start_url: 'https://shop.test/' } });
    expect(start.isError).toBe(true);
    expect(text(start)).toMatch(/start_url/);
  });

  it('asks the agent\u2019s question through elicitation when the client can answer', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ ask_human: { question: 'Which colour?' } }]),
        scriptedActions([{ done: { text: 'ok', success: true } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const { client } = await connect(llm, { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'Blue, please' } };
    });
    const result = await client.callTool({ name: 'run_task', arguments: { task: 'Buy a mug' } });
    expect(result.structuredContent).toMatchObject({ status: 'ok' });
    expect(asked).toEqual(['Which colour?']);
    const seen = JSON.stringify(llm.requests[2]?.messages ?? []);
    expect(seen).toContain('Blue, please');
  });

  it('without the elicitation capability, a question waits out its timeout and the model is told', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ ask_human: { question: 'Which colour?' } }]),
        scriptedActions([{ done: { text: 'ok', success: true } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const { client } = await connect(llm, {}, { humanTimeoutMs: 50 });
    const result = await client.callTool({ name: 'run_task', arguments: { task: 'Buy a mug' } });
    expect(result.structuredContent).toMatchObject({ status: 'ok' });
    expect(JSON.stringify(llm.requests[2]?.messages ?? [])).toContain('No one answered the question \\"Which colour?\\"');
  });

  it('a declined elicitation is no answer', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ ask_human: { question: 'Your PIN?' } }]),
        scriptedActions([{ done: { text: 'ok', success: true } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const { client } = await connect(llm, { elicitation: {} });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'run_task', arguments: { task: 'Log in' } });
    expect(result.structuredContent).toMatchObject({ status: 'ok' });
    const seen = JSON.stringify(llm.requests[2]?.messages ?? []);
    expect(seen).not.toContain('The user answered');
    expect(seen).toContain('No one answered the question \\"Your PIN?\\"');
  });

  it('cancelling the request cancels the task in flight', async () => {
    // The third model call never answers by itself: only the cancel ends it.
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), scriptedActions([{ go_to_url: { url: 'https://shop.test/mugs' } }])] });
    const stuck = new ScriptedLLM({ latencyMs: Number.POSITIVE_INFINITY });
    let calls = 0;
    const seenAbort: boolean[] = [];
    const model: LLMClient = {
      specificationVersion: 'v1',
      provider: 'scripted',
      model: 'scripted',
      generate: async (request) => {
        calls += 1;
        if (calls <= 2) return llm.generate(request);
        try {
          return await stuck.generate(request);
        } finally {
          seenAbort.push(request.signal?.aborted ?? false);
        }
      },
    };
    const { client, opened } = await connect(model);
    const controller = new AbortController();
    const progress: number[] = [];
    const call = client.callTool(
      { name: 'run_task', arguments: { task: 'Wait forever' } },
      {
        signal: controller.signal,
        onprogress: (event) => {
          progress.push(event.progress);
          controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow();
    // The task ends cancelled, its history still saved; a model call in flight saw the abort.
    await expect.poll(() => opened.saved).toEqual(['cancelled']);
    expect(seenAbort.every(Boolean)).toBe(true);
    expect(progress).toEqual([1]);
    // The server is free again: the next call runs.
    const next = await client.callTool({ name: 'browser_close', arguments: {} });
    expect(next.isError).toBeFalsy();
  });
});

describe('plannav MCP server: saved runs and browser tools', () => {
  it('replays a saved run without a model, in a fresh browser', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') {
          return request.lastUserText.includes('Blue mug $12')
            ? scriptedPlan({ done: true, finalAnswer: '$12' })
            : scriptedPlan({ nextSteps: 'Open the mugs page' });
        }
        const mugs = indexOf(request.lastUserText, 'Mugs');
        return mugs !== undefined ? scriptedActions([{ click_element: { index: mugs } }]) : scriptedActions([{ done: { text: '$12', success: true } }]);
      },
    });
    const { client, opened } = await connect(llm);
    const run = await client.callTool({ name: 'run_task', arguments: { task: 'What does the blue mug cost?' } });
    const historyFile = (run.structuredContent as { history_file: string }).history_file;
    const calls = llm.callCount;
    const replay = await client.callTool({ name: 'replay_history', arguments: { history_file: historyFile } });
    expect(text(replay)).toMatch(/^Replay ok: \d+ actions, 0 failed/);
    expect(replay.structuredContent).toMatchObject({ status: 'ok', failed_steps: 0 });
    expect(llm.callCount).toBe(calls);
    expect(opened).toMatchObject({ count: 2, closed: 1 });
    const state = await client.callTool({ name: 'browser_state', arguments: {} });
    expect((state.structuredContent as { url: string }).url).toBe('https://shop.test/mugs');
  });

  it('reads only histories inside its history folder', async () => {
    const { client } = await connect(new ScriptedLLM());
    const outside = join(tmpdir(), `plannav-outside-${process.pid}.json`);
    await writeFile(outside, '{}');
    try {
      for (const name of ['replay_history', 'export_playwright']) {
        const result = await client.callTool({ name, arguments: { history_file: outside } });
        expect(result.isError, name).toBe(true);
        expect(text(result)).toMatch(/inside its history folder/);
      }
      const missing = await client.callTool({ name: 'export_playwright', arguments: { history_file: 'nope/history.json' } });
      expect(text(missing)).toMatch(/does not exist/);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('reads the page as untrusted data and acts by its indexes', async () => {
    const { client } = await connect(new ScriptedLLM());
    const before = await client.callTool({ name: 'browser_click', arguments: { index: 1 } });
    expect(before.isError).toBe(true);
    expect(text(before)).toMatch(/browser_state first/);

    const state = await client.callTool({ name: 'browser_state', arguments: {} });
    expect(state.isError).toBeFalsy();
    expect(text(state)).toMatch(/<untrusted_content>[\s\S]*Mugs[\s\S]*<\/untrusted_content>/);
    const elements = (state.structuredContent as { elements: string }).elements;
    const index = /\[(\d+)\]<a[^>]*>Mugs/.exec(elements)?.[1];
    expect(index).toBeDefined();
    const clicked = await client.callTool({ name: 'browser_click', arguments: { index: Number(index) } });
    expect(clicked.isError).toBeFalsy();
    const after = await client.callTool({ name: 'browser_state', arguments: {} });
    expect((after.structuredContent as { url: string }).url).toBe('https://shop.test/mugs');

    const shot = await client.callTool({ name: 'browser_screenshot', arguments: {} });
    expect((shot.content as { type: string }[])[0]?.type).toBe('image');
  });

  it('applies the URL policy to browser_navigate and browser_tabs open', async () => {
    const { client } = await connect(new ScriptedLLM());
    const denied = await client.callTool({ name: 'browser_navigate', arguments: { url: 'https://evil.example/' } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/URL policy stopped.*evil\.example/);
    const tab = await client.callTool({ name: 'browser_tabs', arguments: { action: 'open', url: 'https://evil.example/' } });
    expect(tab.isError).toBe(true);
    const fine = await client.callTool({ name: 'browser_navigate', arguments: { url: 'https://shop.test/mugs' } });
    expect(fine.isError).toBeFalsy();
    const tabs = await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } });
    expect(text(tabs)).toContain('https://shop.test/mugs');
  });
});
