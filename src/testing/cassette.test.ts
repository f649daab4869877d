import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { CassetteError, CassetteMismatchError, ConfigError, isFatalError, RequestCancelledError } from '../errors';
import { Executor } from '../executor/executor';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { OpenAIChatModel } from '../openai/openai-chat-model';
import { buildStateMessage } from '../prompts/state-message';
import { recordModelCalls, replayModelCalls } from './cassette';
import { FakeBrowserDriver } from './fake-browser-driver';
import { openAIText } from './model-conformance-openai';
import { LoopbackServer } from './model-conformance-server';
import { ScriptedLLM } from './scripted-llm';

let folder: string;
let file: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-cassette-'));
  file = join(folder, 'cassettes', 'calls.json');
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const schema = { type: 'object', properties: { answer: { type: 'string' }, count: { type: 'number' } }, required: ['answer'] };

function ask(text: string, overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    messages: [
      { role: 'system', content: 'You answer questions.\nBe brief.' },
      { role: 'user', content: text },
    ],
    ...overrides,
  };
}

/** The state message plannav sends, at the given time. */
function stateAt(now: Date, step = 1): string {
  const message = buildStateMessage({
    state: {
      url: 'https://shop.test/',
      title: 'Shop',
      tabs: [{ id: 'tab-1', url: 'https://shop.test/', title: 'Shop' }],
      activeTabId: 'tab-1',
      elementsText: '[0]<a>Mugs />',
      elements: new Map(),
      newIndices: new Set(),
      pixelsAbove: 0,
      pixelsBelow: 0,
      capturedAt: now.getTime(),
    },
    step,
    maxSteps: 10,
    transientResults: [],
    includeScreenshot: false,
    now,
  });
  return typeof message === 'string' ? message : '';
}

async function readJson(path: string): Promise<{ cassetteVersion: number; calls: unknown[] } & Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as { cassetteVersion: number; calls: unknown[] };
}

describe('recordModelCalls → replayModelCalls', () => {
  it('replays the recorded answers, with the recorded provider and model, and stores no raw response', async () => {
    const answers: GenerateResult[] = [
      { text: 'Paris', usage: { inputTokens: 12, outputTokens: 3 }, finishReason: 'stop', raw: { secret: 'raw-body' }, requestId: 'req_42' },
      { text: '{"answer":"4"}', object: { answer: '4', count: 1 }, usage: { inputTokens: 20, outputTokens: 5, cachedInputTokens: 8 }, finishReason: 'length' },
    ];
    let calls = 0;
    const model: LLMClient = {
      specificationVersion: 'v1',
      provider: 'acme',
      model: 'acme-1',
      supportsImages: true,
      generate: async () => answers[calls++] ?? { text: 'none' },
    };
    const recorder = recordModelCalls(model, file);
    expect([recorder.specificationVersion, recorder.provider, recorder.model, recorder.supportsImages]).toEqual(['v1', 'acme', 'acme-1', true]);
    expect((await recorder.generate(ask('Capital of France?', { temperature: 0 }))).raw).toEqual({ secret: 'raw-body' });
    await recorder.generate(ask('2 + 2?', { output: { name: 'answer_output', schema }, maxOutputTokens: 50 }));

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('raw-body');
    expect(text).not.toContain('req_42');
    expect(text.endsWith('}\n')).toBe(true);
    const content = await readJson(file);
    expect(Object.keys(content)).toEqual(['cassetteVersion', 'provider', 'model', 'supportsImages', 'calls']);
    expect(content.cassetteVersion).toBe(1);
    expect(content.calls[0]).toEqual({
      request: {
        messages: [
          { role: 'system', text: ['You answer questions.', 'Be brief.'] },
          { role: 'user', text: ['Capital of France?'] },
        ],
        temperature: 0,
      },
      response: { text: 'Paris', usage: { inputTokens: 12, outputTokens: 3 }, finishReason: 'stop' },
    });
    expect((content.calls[1] as { request: { output: unknown } }).request.output).toEqual({
      name: 'answer_output',
      schemaSha256: expect.stringMatching(/^[0-9a-f]{16}$/),
    });

    const replay = await replayModelCalls(file);
    expect([replay.specificationVersion, replay.provider, replay.model, replay.supportsImages]).toEqual(['v1', 'acme', 'acme-1', true]);
    // The same schema with its keys in another order is the same request.
    const reordered = { required: ['answer'], properties: { count: { type: 'number' }, answer: { type: 'string' } }, type: 'object' };
    expect(await replay.generate(ask('2 + 2?', { output: { name: 'answer_output', schema: reordered }, maxOutputTokens: 50 }))).toEqual({
      text: '{"answer":"4"}',
      object: { answer: '4', count: 1 },
      usage: { inputTokens: 20, outputTokens: 5, cachedInputTokens: 8 },
      finishReason: 'length',
    });
    expect(await replay.generate(ask('Capital of France?', { temperature: 0, timeout: 5000 }))).toEqual({
      text: 'Paris',
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: 'stop',
    });
  });

  it('writes the file after every call, atomically, and keeps what was recorded when a call fails', async () => {
    const model = new ScriptedLLM({ responses: ['one', { fail: 'status', status: 500 }, 'three'] });
    const recorder = recordModelCalls(model, file);
    await recorder.generate(ask('first'));
    expect((await readJson(file)).calls).toHaveLength(1);
    await expect(recorder.generate(ask('second'))).rejects.toMatchObject({ statusCode: 500 });
    expect((await readJson(file)).calls).toHaveLength(1);
    await Promise.all([recorder.generate(ask('third')), replayModelCalls(file)]);
    expect((await readJson(file)).calls).toHaveLength(2);
    expect(await readdir(join(folder, 'cassettes'))).toEqual(['calls.json']);
  });

  it('answers identical requests in recorded order', async () => {
    const recorder = recordModelCalls(new ScriptedLLM({ responses: ['a1', 'b1', 'a2'] }), file);
    for (const question of ['a', 'b', 'a']) await recorder.generate(ask(question));
    const replay = await replayModelCalls(file);
    const texts: unknown[] = [];
    for (const question of ['a', 'a', 'b']) texts.push((await replay.generate(ask(question))).text);
    expect(texts).toEqual(['a1', 'a2', 'b1']);
    const error = await rejectionOf<CassetteMismatchError>(replay.generate(ask('a')));
    expect(CassetteMismatchError.isInstance(error)).toBe(true);
    expect(error.closestCall).toBe(0);
    expect(error.difference).toBeUndefined();
    expect(error.message).toContain('the same as calls[0], but the cassette recorded it 2 times and this run makes it once more');
  });

  it('rejects a cancelled call', async () => {
    await recordModelCalls(new ScriptedLLM({ responses: ['x'] }), file).generate(ask('q'));
    const replay = await replayModelCalls(file);
    const controller = new AbortController();
    controller.abort();
    expect(RequestCancelledError.isInstance(await rejectionOf(replay.generate(ask('q', { signal: controller.signal }))))).toBe(true);
    expect((await replay.generate(ask('q'))).text).toBe('x');
  });
});

describe('normalisation', () => {
  it("leaves the state message's date and time out, and nothing else", async () => {
    const recorded = stateAt(new Date(2025, 0, 31, 14, 5));
    expect(recorded).toContain('Current date and time: 2025-01-31 14:05');
    await recordModelCalls(new ScriptedLLM({ responses: ['click'] }), file).generate(ask(recorded));
    const text = await readFile(file, 'utf8');
    expect(text).toContain('"Current date and time: (ignored)"');
    expect(text).not.toContain('2025-01-31');

    const replay = await replayModelCalls(file);
    expect((await replay.generate(ask(stateAt(new Date(2026, 6, 4, 9, 30))))).text).toBe('click');
    const error = await rejectionOf<CassetteMismatchError>(replay.generate(ask(stateAt(new Date(2026, 6, 4, 9, 30), 2))));
    expect(error.difference).toContain('messages[1] (user) differs at character');
    expect(error.difference).toContain('Current step: 1/10');
    expect(error.difference).toContain('Current step: 2/10');
  });

  it('leaves out what the ignore patterns match, with or without the g flag', async () => {
    await recordModelCalls(new ScriptedLLM({ responses: ['ok'] }), file, { ignore: [/127\.0\.0\.1:\d+/] }).generate(
      ask('Open http://127.0.0.1:40001/a then http://127.0.0.1:40001/b'),
    );
    expect(await readFile(file, 'utf8')).toContain('Open http://(ignored)/a then http://(ignored)/b');
    const replay = await replayModelCalls(file, { ignore: [/127\.0\.0\.1:\d+/g] });
    expect((await replay.generate(ask('Open http://127.0.0.1:51234/a then http://127.0.0.1:51234/b'))).text).toBe('ok');
  });

  it('matches images by a short hash of their data, or by place alone with matchImageData false', async () => {
    const image = (data: string): GenerateRequest => ({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is on the screen?' },
            { type: 'image', data, mediaType: 'image/png' },
          ],
        },
      ],
    });
    const screenshot = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'.repeat(20);
    await recordModelCalls(new ScriptedLLM({ responses: ['a cat'] }), file).generate(image(screenshot));
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(screenshot.slice(0, 40));
    expect((await readJson(file)).calls[0]).toMatchObject({
      request: {
        messages: [{ role: 'user', parts: [{ type: 'text' }, { type: 'image', mediaType: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{16}$/) }] }],
      },
    });

    expect((await (await replayModelCalls(file)).generate(image(screenshot))).text).toBe('a cat');
    const error = await rejectionOf<CassetteMismatchError>((await replayModelCalls(file)).generate(image(`${screenshot}AA`)));
    expect(error.difference).toMatch(/messages\[0\] \(user\) differs at character \d+:\n {2}recorded: .*\[image image\/png sha256:/);
    expect((await (await replayModelCalls(file, { matchImageData: false })).generate(image(`${screenshot}AA`))).text).toBe('a cat');
  });
});

describe('a request with no recorded answer', () => {
  it('fails with the closest recorded call and the first difference', async () => {
    const recorder = recordModelCalls(new ScriptedLLM({ responses: ['x', 'y', 'z'] }), file);
    await recorder.generate(ask('What does the red mug cost?'));
    await recorder.generate(ask('What does the blue mug cost? Answer in dollars.', { output: { name: 'answer_output', schema } }));
    await recorder.generate(ask('Unrelated', { output: { name: 'other_output', schema } }));
    const replay = await replayModelCalls(file);
    const error = await rejectionOf<CassetteMismatchError>(
      replay.generate(ask('What does the blue mug cost? Answer in euros.', { output: { name: 'answer_output', schema } })),
    );
    expect(CassetteMismatchError.isInstance(error)).toBe(true);
    expect(CassetteError.isInstance(error)).toBe(true);
    expect([error.code, error.retryable, isFatalError(error), error.file, error.closestCall]).toEqual(['CASSETTE_MISMATCH', false, true, file, 1]);
    expect(error.message).toBe(
      `No recorded call in the cassette ${file} answers this model call (answer_output, 2 messages). ` +
        'The closest recorded call is calls[1] (answer_output, 2 messages): messages[1] (user) differs at character 39:\n' +
        '  recorded: "What does the blue mug cost? Answer in dollars."\n' +
        '  now:      "What does the blue mug cost? Answer in euros."\n' +
        "Record the cassette again (recordModelCalls, or replayModelCalls with mode 'auto' and an llm), or find what made the request change.",
    );
  });

  it('names a difference of message count, role, output or settings', async () => {
    const recorder = recordModelCalls(new ScriptedLLM({ responses: ['x'] }), file);
    await recorder.generate(ask('q', { output: { name: 'answer_output', schema }, temperature: 0.2, maxOutputTokens: 10 }));
    const replay = await replayModelCalls(file);
    const differenceOf = async (request: GenerateRequest): Promise<string | undefined> =>
      (await rejectionOf<CassetteMismatchError>(replay.generate(request))).difference;
    const base = { output: { name: 'answer_output', schema }, temperature: 0.2, maxOutputTokens: 10 };
    expect(await differenceOf({ ...base, messages: [...ask('q').messages, { role: 'assistant', content: 'extra' }] })).toBe(
      'this request has 3 messages, the recorded call 2; messages[2] (assistant) of this request is "extra"',
    );
    expect(await differenceOf({ ...base, messages: [ask('q').messages[0]!, { role: 'assistant', content: 'q' }] })).toBe(
      'messages[1] is a assistant message here, a user message in the recorded call',
    );
    expect(await differenceOf(ask('q', { ...base, output: { name: 'answer_output', schema: { type: 'object' } } }))).toMatch(
      /^the output's schema differs \(sha256 [0-9a-f]{16} here, [0-9a-f]{16} in the recorded call\)$/,
    );
    expect(await differenceOf(ask('q', { ...base, temperature: 0 }))).toBe('temperature is 0 here, 0.2 in the recorded call');
    expect(await differenceOf(ask('q', { ...base, maxOutputTokens: undefined }))).toBe('maxOutputTokens is not set here, 10 in the recorded call');
  });

  it('ends an Executor task at once, without a retry', async () => {
    await recordModelCalls(new ScriptedLLM({ responses: ['x'] }), file).generate(ask('q'));
    const replayed = await replayModelCalls(file);
    let calls = 0;
    const replay: LLMClient = { ...replayed, generate: (request) => (calls++, replayed.generate(request)) };
    const browser = new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages: { 'https://shop.test/': { title: 'Shop', content: ['Hello'] } } });
    const executor = new Executor({ task: 'Say hello', llm: replay, browser, modelRetry: { retries: 3, minTimeout: 1, maxTimeout: 2 }, maxSteps: 5 });
    const retries: string[] = [];
    executor.on('model-retry', (event) => retries.push(event.error.code));
    const result = await executor.execute();
    await browser.close();
    expect(result.status).toBe('failed');
    expect(CassetteMismatchError.isInstance(result.error)).toBe(true);
    expect(calls).toBe(1);
    expect(retries).toEqual([]);
  });
});

describe("mode 'auto'", () => {
  it('sends a request with no recorded answer to the llm and appends the call', async () => {
    await recordModelCalls(new ScriptedLLM({ provider: 'acme', model: 'acme-1', responses: ['recorded'] }), file).generate(ask('old'));
    const live = new ScriptedLLM({ provider: 'other', model: 'other-1', responses: ['live 1', 'live 2'] });
    const auto = await replayModelCalls(file, { mode: 'auto', llm: live });
    expect([auto.provider, auto.model]).toEqual(['acme', 'acme-1']);
    expect((await auto.generate(ask('old'))).text).toBe('recorded');
    expect((await auto.generate(ask('new'))).text).toBe('live 1');
    expect((await auto.generate(ask('old'))).text).toBe('live 2');
    expect(live.requests).toHaveLength(2);
    expect((await readJson(file)).calls).toHaveLength(3);

    const replay = await replayModelCalls(file);
    const texts: unknown[] = [];
    for (const question of ['new', 'old', 'old']) texts.push((await replay.generate(ask(question))).text);
    expect(texts).toEqual(['live 1', 'recorded', 'live 2']);
  });

  it('starts a cassette that does not exist yet, with the identity of the llm', async () => {
    const auto = await replayModelCalls(file, {
      mode: 'auto',
      llm: new ScriptedLLM({ provider: 'acme', model: 'acme-2', supportsImages: false, responses: ['hi'] }),
    });
    expect([auto.provider, auto.model, auto.supportsImages]).toEqual(['acme', 'acme-2', false]);
    await auto.generate(ask('hello'));
    const replay = await replayModelCalls(file);
    expect([replay.provider, replay.model, replay.supportsImages]).toEqual(['acme', 'acme-2', false]);
    expect((await replay.generate(ask('hello'))).text).toBe('hi');
  });
});

describe('what the file keeps out', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await LoopbackServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('holds no API key, header, request id or raw response of an HTTP client', async () => {
    server.enqueue(openAIText('Paris'));
    const llm: LLMClient = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-secret-key-123',
      baseURL: server.url,
      headers: { 'x-team-token': 'header-secret-456' },
    });
    const result = await recordModelCalls(llm, file).generate(ask('Capital of France?'));
    expect(result.requestId).toBe('req_openai_123');
    expect(server.last.headers.authorization).toBe('Bearer sk-secret-key-123');
    const text = await readFile(file, 'utf8');
    for (const secret of ['sk-secret-key-123', 'header-secret-456', 'x-team-token', 'req_openai_123', 'chatcmpl', 'authorization', server.url]) {
      expect(text).not.toContain(secret);
    }
    expect((await readJson(file)).calls[0]).toMatchObject({ response: { text: 'Paris', usage: { inputTokens: 100, outputTokens: 20 }, finishReason: 'stop' } });
  });
});

describe('a cassette that cannot be used', () => {
  const write = async (content: string): Promise<void> => {
    await writeFile(join(folder, 'bad.json'), content);
  };
  const errorOf = async (path = join(folder, 'bad.json')): Promise<CassetteError> => rejectionOf<CassetteError>(replayModelCalls(path));

  it('a newer version fails with a CassetteError naming the versions', async () => {
    await write(JSON.stringify({ cassetteVersion: 2, provider: 'p', model: 'm', calls: [], somethingNew: true }));
    const error = await errorOf();
    expect(CassetteError.isInstance(error)).toBe(true);
    expect(CassetteMismatchError.isInstance(error)).toBe(false);
    expect([error.code, error.retryable, isFatalError(error), error.file]).toEqual(['CASSETTE_ERROR', false, true, join(folder, 'bad.json')]);
    expect(error.message).toBe(
      `The cassette ${join(folder, 'bad.json')} has cassetteVersion 2, newer than this version of plannav reads (1): update plannav, or record the cassette again.`,
    );
  });

  it('a malformed file fails with a CassetteError naming the problem', async () => {
    await write('{ "cassetteVersion": 1, ');
    expect((await errorOf()).message).toMatch(/is not valid JSON \(.+\)\. Record it again\.$/);
    await write(JSON.stringify({ provider: 'p' }));
    expect((await errorOf()).message).toContain('has no cassetteVersion field: it is not a model cassette');
    await write(JSON.stringify({ cassetteVersion: '1' }));
    expect((await errorOf()).message).toContain('cassetteVersion must be a positive integer, got "1"');
    await write(
      JSON.stringify({ cassetteVersion: 1, provider: 'p', model: 'm', calls: [{ request: { messages: [{ role: 'robot', text: ['x'] }] }, response: {} }] }),
    );
    expect((await errorOf()).message).toMatch(/is malformed at calls\[0\]\.request\.messages\[0\]: .+\. Record it again, or fix the file\.$/);
  });

  it('a missing file fails in mode replay, and bad options fail with a ConfigError', async () => {
    expect((await errorOf(join(folder, 'missing.json'))).message).toContain('does not exist. Record it first with recordModelCalls');
    expect(ConfigError.isInstance(await rejectionOf(replayModelCalls(file, { mode: 'auto' })))).toBe(true);
    expect((await rejectionOf<ConfigError>(replayModelCalls(file, { mode: 'record' as 'auto' }))).field).toBe('mode');
    expect(() => recordModelCalls(new ScriptedLLM(), '')).toThrow(ConfigError);
    expect(() => recordModelCalls({} as LLMClient, file)).toThrow('must be an LLMClient');
    expect(() => recordModelCalls(new ScriptedLLM(), file, { ignore: ['x' as unknown as RegExp] })).toThrow('Option `ignore.0` of RecordModelCallsOptions');
  });
});
