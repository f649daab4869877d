// Model cassettes end to end: a whole Executor run on the OpenAI-compatible adapter against a
// loopback server, recorded; then the server is stopped and the run replays from the cassette.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatModelError, Executor, type LLMClient } from '../../src/index';
import { OpenAIChatModel } from '../../src/openai/index';
import { FakeBrowserDriver, recordModelCalls, replayModelCalls, scriptedActions, scriptedPlan, type FakePage } from '../../src/testing/index';
import { openAIWireFormat } from '../../src/testing/model-conformance-openai';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import type { Answer, WireCall } from '../../src/testing/model-conformance-wire';
import { rejectionOf } from '../helpers/rejection';

const pages: Record<string, FakePage> = {
  'https://shop.test/': {
    title: 'Shop',
    content: [
      'Welcome to the shop',
      { tag: 'a', text: 'Mugs', href: 'https://shop.test/mugs' },
      { tag: 'a', text: 'Plates', href: 'https://shop.test/plates' },
    ],
  },
  'https://shop.test/mugs': { title: 'Mugs', content: ['Blue mug $12', { tag: 'button', text: 'Add blue mug' }, 'Red mug $9'] },
};

/** The index of the element whose text contains `label` in a state message. */
function indexOf(stateText: string, label: string): number | undefined {
  for (const line of stateText.split('\n')) {
    const match = /\[(\d+)\]<[^>]*>(.*) \/>/.exec(line);
    if (match?.[2]?.includes(label)) return Number(match[1]);
  }
  return undefined;
}

/** The model behind the server: the Planner sends the Navigator to the mugs, then accepts its answer; usage differs per call. */
function shopModel(call: WireCall, index: number): Answer {
  const usage = { input: 1000 + index, output: 50 + index, cached: index, reasoning: 0 };
  if (call.agent === 'planner') {
    const done = call.lastUserText.includes('Blue mug $12');
    return {
      object: JSON.parse(done ? scriptedPlan({ done: true, finalAnswer: 'The blue mug costs $12.' }) : scriptedPlan({ nextSteps: 'Open the mugs page' })),
      usage,
    };
  }
  if (call.agent === 'navigator') {
    const mugs = indexOf(call.lastUserText, 'Mugs');
    const actions = mugs !== undefined ? [{ click_element: { index: mugs } }] : [{ done: { text: 'Blue mug $12', success: true } }];
    return { object: JSON.parse(scriptedActions(actions)), usage };
  }
  return { status: 400, message: 'expected a Planner or Navigator request' };
}

interface Run {
  readonly status: string;
  readonly finalAnswer: string | undefined;
  readonly usage: unknown;
  readonly actions: readonly unknown[];
  readonly url: string;
  readonly steps: number;
}

async function runTask(llm: LLMClient): Promise<Run> {
  const browser = new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages });
  const executor = new Executor({
    sensitiveActions: false,
    task: 'What does the blue mug cost?',
    llm,
    browser,
    maxSteps: 10,
    modelRetry: { retries: 1, minTimeout: 1, maxTimeout: 2 },
  });
  const actions: unknown[] = [];
  executor.on('action-start', (event) => actions.push({ action: event.action, params: event.params }));
  try {
    const result = await executor.execute();
    const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens, calls } = result.usage;
    return {
      status: result.status,
      finalAnswer: result.finalAnswer,
      usage: { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens, calls },
      actions,
      url: await browser.currentUrl(),
      steps: result.history.steps.length,
    };
  } finally {
    await browser.close();
  }
}

describe('a model cassette of an OpenAI-compatible client', () => {
  let folder: string;
  let server: LoopbackServer;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'plannav-cassette-openai-'));
    server = await LoopbackServer.start((request, index) => openAIWireFormat.write(shopModel(openAIWireFormat.read(request), index), request));
  });
  afterAll(async () => {
    await server.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('records a whole run, then replays it with the server stopped: same actions, answer and usage', async () => {
    const file = join(folder, 'mugs.json');
    const model = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-cassette-secret', baseURL: `${server.url}/v1` });

    const recorded = await runTask(recordModelCalls(model, file));
    expect(recorded).toMatchObject({ status: 'ok', finalAnswer: 'The blue mug costs $12.', url: 'https://shop.test/mugs' });
    expect(recorded.actions).toEqual([expect.objectContaining({ action: 'click_element' }), expect.objectContaining({ action: 'done' })]);
    const served = server.requests.length;
    expect(served).toBe(4);
    expect(recorded.usage).toMatchObject({ calls: 4, inputTokens: 4006 });
    const cassette = JSON.parse(await readFile(file, 'utf8')) as { provider: string; model: string; calls: unknown[] };
    expect([cassette.provider, cassette.model, cassette.calls.length]).toEqual(['openai', 'gpt-test', 4]);
    expect(JSON.stringify(cassette)).not.toContain('sk-cassette-secret');

    await server.close();
    // The stopped server refuses connections: a replay that reached the network would fail.
    const refused = await rejectionOf<ChatModelError>(model.generate({ messages: [{ role: 'user', content: 'ping' }] }));
    expect(refused.code).toBe('CHAT_MODEL_NETWORK');

    // The real client is at hand, as a test that switches modes has it; mode replay never calls it.
    const replay = await replayModelCalls(file, { llm: model });
    expect([replay.provider, replay.model]).toEqual(['openai', 'gpt-test']);
    const replayed = await runTask(replay);
    expect(replayed).toEqual(recorded);
    expect(server.requests.length).toBe(served);
  });
});
