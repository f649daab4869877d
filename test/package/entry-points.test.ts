// Every entry point of the packed tarball (test/package/packed-project.ts), used for real from a fresh
// ESM project and a fresh CommonJS project: a task through the core, the model adapters through the
// shipped conformance kit, both browser drivers on a plain three-page site served on 127.0.0.1, the
// run kept on disk, drawn as a GIF and a report, and a collection read from Redis. No network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GifReader } from 'omggif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entries, specifierOf } from '../../scripts/entries.mjs';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { nodeBinary, nodeRequiresEsm, nodeVersion, packedProject, run, writeFiles, type PackedProject } from './packed-project';

/** The three pages: white, a heading and a paragraph of ordinary text, as most sites' plainest pages. */
const pages = ['one', 'two', 'three'];

/**
 * The program, the same for both formats but for how it loads modules (`import()` or `require`). It
 * prints one JSON object: what each entry point gave back. Every wait in it is bounded.
 */
function program(format: 'esm' | 'cjs'): string {
  const load = format === 'esm' ? 'const load = (specifier) => import(specifier);' : 'const load = async (specifier) => require(specifier);';
  return `${load}
const pages = ${JSON.stringify(pages)};
const pageHtml = (name, next) => '<!doctype html><html><head><title>Page ' + name + '</title></head>' +
  '<body style="font-family: sans-serif; margin: 40px"><h1>Page ' + name + '</h1>' +
  // The sign to the next page comes first: the model's view of the page shortens long text.
  '<p>' + (next ? 'The next page is ' + next + '.' : 'This is the last page.') + ' This is page ' + name + ' of a plain site: ' +
  'a white page with a heading and a paragraph of ordinary text, the kind of page most sites are made of.</p></body></html>';

async function main() {
  const { createServer } = await load('node:http');
  const { mkdtemp } = await load('node:fs/promises');
  const { readFileSync } = await load('node:fs');
  const { tmpdir } = await load('node:os');
  const { join } = await load('node:path');
  const out = {};

  // plannav and plannav/testing: a task that needs no browser.
  const { Executor, ConfigError, ChatModelError } = await load('plannav');
  const { FakeBrowserDriver, ScriptedLLM, scriptedActions, scriptedPlan, modelClientConformance } = await load('plannav/testing');
  const quick = await new Executor({
    task: 'What is the capital of France?',
    llm: new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'Paris' })] }),
    browser: new FakeBrowserDriver(),
  }).execute();
  out.core = { status: quick.status, finalAnswer: quick.finalAnswer, configErrorIsInstance: ConfigError.isInstance(new ConfigError('x')) };

  // plannav/provider: a model client of one's own, its HTTP failures typed, retried by withRetries; the errors are
  // the core's classes (one chunk for both entries, in CommonJS too).
  const { chatModelErrorFromStatus, withRetries, ChatModelRateLimitError } = await load('plannav/provider');
  const limited = chatModelErrorFromStatus({ status: 429, retryAfterMs: 1, message: 'slow down' });
  let tries = 0;
  const flaky = {
    specificationVersion: 'v1', provider: 'own', model: 'flaky',
    async generate() {
      tries += 1;
      if (tries === 1) throw chatModelErrorFromStatus({ status: 503, message: 'busy' });
      return { text: 'fine', usage: { inputTokens: 2, outputTokens: 1 }, finishReason: 'stop' };
    },
  };
  const retries = [];
  const retried = await withRetries(flaky, { retries: 2, minTimeout: 1, maxTimeout: 5, onRetry: (attempt, error) => retries.push(attempt + ':' + error.code) })
    .generate({ messages: [{ role: 'user', content: 'Hi' }] });
  out.provider = {
    rateLimit: { name: limited.name, code: limited.code, retryAfterMs: limited.retryAfterMs, isProviderClass: limited instanceof ChatModelRateLimitError, isCoreClass: limited instanceof ChatModelError },
    retried: { text: retried.text, tries, retries },
  };

  // plannav/driver: a page script of one's own, run as a driver runs it (here the expression in Node, below in Chromium).
  const { definePageScript, pageScriptExpression, readPageScriptResult, elementLookupExpression, resolveDriver, matchesUrlPattern } = await load('plannav/driver');
  const sum = definePageScript('entry-points.sum', (numbers) => numbers.reduce((total, n) => total + n, 0));
  const evaluate = (expression) => (0, eval)(expression);
  const resolved = resolveDriver(new FakeBrowserDriver());
  out.driver = {
    sum: readPageScriptResult(await evaluate(pageScriptExpression(sum, [1, 2, 3])), sum.id),
    lookupWithoutRuntime: evaluate(elementLookupExpression({ elementId: '1' })),
    matches: [matchesUrlPattern('https://shop.example.com/cart', '*.example.com'), matchesUrlPattern('https://example.org/', '*.example.com')],
    resolvedSettles: typeof resolved.waitForSettled,
  };
  const pageTitle = definePageScript('entry-points.title', () => document.title);

  // The model adapters, against the shipped conformance kit's local servers.
  const conformance = async (wireFormat, createClient) => {
    const cases = modelClientConformance({ wireFormat, createClient });
    const failed = [];
    for (const check of cases) await check.run().catch((error) => failed.push(check.name + ': ' + error.message));
    return { cases: cases.length, failed };
  };
  const { openai } = await load('plannav/openai');
  const { AnthropicChatModel } = await load('plannav/anthropic');
  const { GeminiChatModel } = await load('plannav/gemini');
  const { createLLM } = await load('plannav/models');
  out.openai = await conformance('openai', ({ baseURL, apiKey, timeout, supportsImages }) => openai({ model: 'gpt-4.1-mini', baseURL, apiKey, timeout, supportsImages }));
  out.anthropic = await conformance('anthropic', ({ baseURL, apiKey, timeout, supportsImages }) => new AnthropicChatModel({ model: 'claude-mock', baseURL, apiKey, timeout, supportsImages }));
  out.gemini = await conformance('gemini', ({ baseURL, apiKey, timeout, supportsImages }) => new GeminiChatModel({ model: 'gemini-mock', baseURL, apiKey, timeout, supportsImages }));
  out.models = await conformance('anthropic', ({ baseURL, apiKey, timeout, supportsImages }) => createLLM('anthropic:claude-mock', { baseURL, apiKey, timeout, supportsImages, env: {} }));

  // plannav/ai-sdk over ai's own mock model; ai v7 is ESM-only, so CommonJS needs a require() that loads ES modules.
  if (${format === 'esm'} || process.features.require_module === true) {
    const { AISDKChatModel } = await load('plannav/ai-sdk');
    const { MockLanguageModelV4 } = await load('ai/test');
    const model = new MockLanguageModelV4({ doGenerate: {
      content: [{ type: 'text', text: '{"answer":"hi"}' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 12, noCache: 12 }, outputTokens: { total: 3, text: 3 } },
      warnings: [],
    } });
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const generated = await new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }], output: { name: 'answer_output', schema } });
    out.aiSdk = { object: generated.object, usage: generated.usage };
  }

  // The plain three-page site, and a model that reads each page and goes to the next.
  const server = createServer((request, response) => {
    const index = pages.indexOf(request.url.slice(1));
    if (index < 0) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(pages[index], pages[index + 1]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = 'http://127.0.0.1:' + server.address().port;
  const siteModel = () => new ScriptedLLM({
    respond: ({ agent, lastUserText }) => {
      const last = lastUserText.includes('This is the last page.');
      if (agent === 'planner') return scriptedPlan({ done: last, nextSteps: 'Read the three pages in turn', finalAnswer: 'Read all three pages.' });
      if (last) return scriptedActions([{ done: { text: 'Read all three pages.' } }]);
      const next = /The next page is (\\w+)\\./.exec(lastUserText)?.[1] ?? pages[0];
      return scriptedActions([{ go_to_url: { url: origin + '/' + next } }]);
    },
  });
  const readSite = async (browser) => {
    try {
      const result = await new Executor({ task: 'Read the three pages of ' + origin, llm: siteModel(), browser, maxSteps: 8, planningInterval: 10, recordScreenshots: true }).execute();
      const steps = result.history.steps.filter((step) => step.actor === 'navigator');
      const [frame] = await browser.frames();
      const title = await browser.evaluate(frame.id, pageTitle, undefined);
      return { result, summary: { status: result.status, finalAnswer: result.finalAnswer, urls: steps.map((step) => step.browser?.url ?? null), screenshots: steps.filter((step) => step.screenshot).length, title } };
    } finally {
      await browser.close();
    }
  };

  try {
    // plannav/puppeteer and plannav/playwright, each on the system Chromium, headless.
    const { PuppeteerDriver } = await load('plannav/puppeteer');
    out.puppeteer = (await readSite(await PuppeteerDriver.launch())).summary;
    const { PlaywrightDriver } = await load('plannav/playwright');
    const { result, summary } = await readSite(await PlaywrightDriver.launch());
    out.playwright = summary;

    // plannav/node: the run kept on disk and read back, drawn as a GIF and as a report.
    const { saveHistory, loadHistory, createRunGif, createRunReport } = await load('plannav/node');
    const folder = await mkdtemp(join(tmpdir(), 'plannav-entry-points-'));
    const saved = join(folder, 'run.json');
    await saveHistory(saved, result.history);
    const history = await loadHistory(saved);
    out.history = { steps: history.steps.length, screenshots: history.screenshots.size };
    out.gif = await createRunGif(history, join(folder, 'run.gif'), { width: 320, timeout: 60000 }).catch((error) => ({ error: error.name + ': ' + error.message }));
    out.report = await createRunReport(history, join(folder, 'run.html')).then(
      async (report) => ({ ...report, mentions: pages.filter((page) => readFileSync(report.path, 'utf8').includes('Page ' + page)).length }),
      (error) => ({ error: error.name + ': ' + error.message }),
    );
  } finally {
    server.close();
  }

  // plannav/bullmq: the records of a collection never run, asked of the Redis the test started, which
  // answers that it holds no such collection.
  const { readCollectionRecords } = await load('plannav/bullmq');
  try {
    for await (const record of readCollectionRecords({ connection: process.env.PLANNAV_TEST_REDIS, name: 'entry-points' })) out.bullmq = { record };
  } catch (error) {
    out.bullmq = { code: error.code, message: error.message };
  }

  // plannav/mcp: the server on streamable HTTP, on a free loopback port, listed by the SDK's client; and its tools back
  // as plannav actions through mcpActions. No task runs, so no model is needed.
  const { createMcpServer, mcpActions } = await load('plannav/mcp');
  const { Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client');
  const mcp = createMcpServer({});
  const client = new Client({ name: 'entry-points', version: '1.0.0' });
  try {
    const listener = await mcp.listen({ port: 0 });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const { tools } = await client.listTools();
    const actions = await mcpActions(client, { include: ['browser_state'], prefix: 'remote_' });
    out.mcp = { tools: tools.map((tool) => tool.name).sort(), actions: actions.map((action) => action.name) };
  } finally {
    await client.close();
    await mcp.close();
  }

  // plannav/otel (issue 24): a task's spans in the OpenTelemetry SDK's in-memory exporter, with the model's token counts.
  const { traceExecutor } = await load('plannav/otel');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await load('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const traced = new Executor({
    task: 'What is the capital of France?',
    llm: new ScriptedLLM({ model: 'otel-model', usage: { inputTokens: 42, outputTokens: 7 }, responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'Paris' })] }),
    browser: new FakeBrowserDriver(),
  });
  const stopTracing = traceExecutor(traced, { tracer: provider.getTracer('entry-points') });
  await traced.execute();
  stopTracing();
  const spans = exporter.getFinishedSpans();
  const parentName = (span) => spans.find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId)?.name ?? null;
  out.otel = spans.map((span) => ({ name: span.name, parent: parentName(span), inputTokens: span.attributes['gen_ai.usage.input_tokens'] ?? null, outputTokens: span.attributes['gen_ai.usage.output_tokens'] ?? null }));

  console.log(JSON.stringify(out));
}
main().then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
`;
}

let project: PackedProject;
let redis: RedisServer;

beforeAll(async () => {
  [project, redis] = await Promise.all([packedProject(), startRedis()]);
}, 300_000);

afterAll(async () => {
  await redis?.stop();
});

describe(`every entry point of the packed package, used, under Node ${nodeVersion}`, { timeout: 240_000 }, () => {
  it.each(['esm', 'cjs'] as const)('works from a fresh %s project', (format) => {
    const dir = join(project.dir, `entry-points-${format}`);
    writeFiles(dir, {
      'package.json': JSON.stringify({ name: `plannav-${format}-app`, private: true, type: format === 'esm' ? 'module' : 'commonjs' }),
      'main.js': program(format),
    });
    const result = run(nodeBinary, ['main.js'], dir, 200_000, { PLANNAV_TEST_REDIS: redis.url });
    expect(result.status, `main.js (${format}) failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
    const out = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
    // The program uses one entry point per key (testing with the core); none may be left out.
    const used = [
      'plannav/testing',
      'plannav',
      'plannav/provider',
      'plannav/driver',
      'plannav/openai',
      'plannav/anthropic',
      'plannav/gemini',
      'plannav/models',
      'plannav/ai-sdk',
      'plannav/puppeteer',
      'plannav/playwright',
      'plannav/node',
      'plannav/bullmq',
      'plannav/mcp',
      'plannav/otel',
    ];
    expect([...used].sort()).toEqual(entries.map(specifierOf).sort());

    expect(out.core).toEqual({ status: 'ok', finalAnswer: 'Paris', configErrorIsInstance: true });
    expect(out.provider).toEqual({
      rateLimit: { name: 'ChatModelRateLimitError', code: 'CHAT_MODEL_RATE_LIMIT', retryAfterMs: 1, isProviderClass: true, isCoreClass: true },
      retried: { text: 'fine', tries: 2, retries: ['1:CHAT_MODEL_SERVER'] },
    });
    expect(out.driver).toEqual({ sum: 6, lookupWithoutRuntime: 'no-runtime', matches: [true, false], resolvedSettles: 'function' });
    for (const adapter of ['openai', 'anthropic', 'gemini', 'models']) {
      expect(out[adapter].failed, `${adapter}: the conformance cases that failed`).toEqual([]);
      expect(out[adapter].cases, adapter).toBeGreaterThan(10);
    }
    if (format === 'esm' || nodeRequiresEsm)
      expect(out.aiSdk).toEqual({ object: { answer: 'hi' }, usage: expect.objectContaining({ inputTokens: 12, outputTokens: 3 }) });

    for (const driver of ['puppeteer', 'playwright']) {
      // A page script of plannav/driver, run by the shipped driver in the last page.
      expect(out[driver], driver).toMatchObject({ status: 'ok', finalAnswer: 'Read all three pages.', screenshots: 4, title: 'Page three' });
      // The first step sees the empty tab, then one page of the site per step.
      const origin = /^http:\/\/127\.0\.0\.1:\d+/.exec(out[driver].urls[1])?.[0] ?? '(no site page)';
      expect(out[driver].urls.slice(1), driver).toEqual(pages.map((page) => `${origin}/${page}`));
    }

    expect(out.history.screenshots).toBe(4);
    // A title frame, then one per step on the site: the empty tab is the only blank page.
    expect(out.gif, 'createRunGif').toMatchObject({ frames: 4, width: 320 });
    const gif = new GifReader(readFileSync(out.gif.path));
    expect(gif.numFrames(), 'frames decoded from the GIF file').toBe(4);
    expect(out.report, 'createRunReport').toMatchObject({ steps: out.history.steps, mentions: 3 });
    expect(out.bullmq).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining('entry-points') });
    expect(out.mcp.tools, 'plannav/mcp tools listed by the SDK client').toEqual(expect.arrayContaining(['run_task', 'browser_state', 'export_playwright']));
    expect(out.mcp.actions, 'mcpActions').toEqual(['remote_browser_state']);
    // plannav/otel: the task span, its Planner step, and the model call in it with the model's token counts.
    expect(out.otel, 'plannav/otel spans').toEqual([
      { name: 'chat otel-model', parent: 'plannav.step', inputTokens: 42, outputTokens: 7 },
      { name: 'plannav.step', parent: 'plannav.task', inputTokens: null, outputTokens: null },
      { name: 'plannav.task', parent: null, inputTokens: null, outputTokens: null },
    ]);
  });
});
