// The public entry points of plannav, in ONE place: tsup builds them, api-report checks them, tests import them.
// To add one: append it here and add its "exports" block to package.json; its API report follows.

/**
 * @typedef {object} Entry
 * @property {string} name     output base name: tsup writes dist/<name>.js, .cjs, .d.ts, .d.cts
 * @property {string} subpath  key in package.json "exports" ('.' or './<name>')
 * @property {string} src      source file of the entry point
 * @property {string} summary  one sentence on what it holds, shown in the API reference (docs/api/index.md)
 */

/** @type {Entry[]} */
export const entries = [
  {
    name: 'index',
    subpath: '.',
    src: 'src/index.ts',
    summary:
      'The core, for app authors: the `Executor` that runs the Planner and Navigator loop, its options, events and errors; actions of your own; `observe`, `act` and `extract`; a history, its replay and its export; a collection.',
  },
  {
    name: 'driver',
    subpath: './driver',
    src: 'src/driver.ts',
    summary: 'For driver authors: the `BrowserDriver` contract and its parts, the page runtime a driver runs in every frame, and the helpers that run it.',
  },
  {
    name: 'provider',
    subpath: './provider',
    src: 'src/provider.ts',
    summary: 'For model-client authors: the `LLMClient` contract, its messages and usage, retries, and the typed errors of a failed HTTP call.',
  },
  {
    name: 'testing',
    subpath: './testing',
    src: 'src/testing/index.ts',
    summary: 'A scripted model and an in-memory browser for tests, and the conformance kits for your own drivers and model clients.',
  },
  {
    name: 'playwright',
    subpath: './playwright',
    src: 'src/playwright/index.ts',
    summary: 'The Playwright driver (Node, Chromium); needs the optional peer dependency `playwright-core`.',
  },
  { name: 'openai', subpath: './openai', src: 'src/openai/index.ts', summary: 'The OpenAI-compatible chat adapter and its presets.' },
  { name: 'anthropic', subpath: './anthropic', src: 'src/anthropic/index.ts', summary: 'The Anthropic Messages API adapter.' },
  { name: 'gemini', subpath: './gemini', src: 'src/gemini/index.ts', summary: 'The Gemini API adapter.' },
  {
    name: 'ai-sdk',
    subpath: './ai-sdk',
    src: 'src/ai-sdk/index.ts',
    summary: 'Any Vercel AI SDK language model as an `LLMClient`; needs the optional peer dependency `ai`.',
  },
  {
    name: 'models',
    subpath: './models',
    src: 'src/models/index.ts',
    summary: "`createLLM('provider:model')`: a model client from a short name and the keys in the environment.",
  },
  {
    name: 'puppeteer',
    subpath: './puppeteer',
    src: 'src/puppeteer/index.ts',
    summary: 'The Puppeteer driver (Node, Chromium); needs the optional peer dependency `puppeteer-core`.',
  },
  {
    name: 'node',
    subpath: './node',
    src: 'src/node/index.ts',
    summary: 'Runs on disk (Node only): history files and journals, and a run as a GIF or an HTML report.',
  },
  {
    name: 'bullmq',
    subpath: './bullmq',
    src: 'src/bullmq/index.ts',
    summary: 'A collection on many machines as BullMQ jobs on Redis (Node only): a coordinator and workers; needs the optional peers `bullmq` and `ioredis`.',
  },
  {
    name: 'mcp',
    subpath: './mcp',
    src: 'src/mcp/index.ts',
    summary:
      "The Model Context Protocol both ways (Node only): plannav as an MCP server (a whole task as one tool, and browser tools) and MCP servers' tools as actions; needs the optional peer `@modelcontextprotocol/server` (v2 of the official SDK).",
  },
  // Issue 24: OpenTelemetry spans of a run.
  {
    name: 'otel',
    subpath: './otel',
    src: 'src/otel/index.ts',
    summary:
      "OpenTelemetry spans of a run: `traceExecutor` turns an Executor's events into task, step, model-call (GenAI semantic conventions) and action spans; needs the optional peer `@opentelemetry/api`.",
  },
];

/**
 * ESM-only runtime dependencies (and their own dependencies): the CJS build bundles them so that
 * `require('plannav')` works on every Node 20.x; the ESM build keeps them external.
 */
export const bundledInCjs = ['p-retry', 'is-network-error', '@mdream/js'];

/** The import specifier of an entry, e.g. 'plannav' or 'plannav/testing'. */
export const specifierOf = (/** @type {Entry} */ entry) => `plannav${entry.subpath.slice(1)}`;

/** The API report written for an entry: etc/plannav.api.md, etc/plannav-testing.api.md, ... */
export const apiReportOf = (/** @type {Entry} */ entry) => (entry.name === 'index' ? 'etc/plannav.api.md' : `etc/plannav-${entry.name}.api.md`);
