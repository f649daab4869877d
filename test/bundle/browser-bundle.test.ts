// `plannav` and `plannav/testing` as an extension author bundles them: the packed tarball
// (test/package/packed-project.ts) installed in a project, a small program importing the core and
// the scripted model bundled by esbuild with its browser defaults (no externals, no polyfills), then
// run in a page and in an MV3 extension's service worker of headless Chromium. Each run is a whole
// Executor task with ScriptedLLM and FakeBrowserDriver that must end `ok` with the page's answer.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/chromium/find-chromium';
import { packedProject, type PackedProject } from '../package/packed-project';

/**
 * The program: a task on a fake shop whose answer is on a page, so the model must make the fake
 * browser load it. `globalThis.plannavBundleResult` is the promise of what the run gave back.
 */
const program = `import { Executor } from 'plannav';
import { FakeBrowserDriver, ScriptedLLM, modelClientConformance, recordModelCalls, replayModelCalls, scriptedActions, scriptedPlan } from 'plannav/testing';

const url = 'https://shop.example/mugs';

async function main() {
  const browser = new FakeBrowserDriver({ pages: { [url]: { title: 'Mugs', content: ['The blue mug costs $12.'] } } });
  const llm = new ScriptedLLM({
    respond: ({ agent, lastUserText }) => {
      const price = /The blue mug costs (\\$\\d+)/.exec(lastUserText)?.[1];
      if (agent === 'planner') return scriptedPlan({ done: price !== undefined, nextSteps: 'Open ' + url, finalAnswer: 'The blue mug costs ' + price + '.' });
      return scriptedActions(price ? [{ done: { text: 'It costs ' + price + '.' } }] : [{ go_to_url: { url } }]);
    },
  });
  const result = await new Executor({ task: 'How much is the blue mug at ' + url + '?', llm, browser }).execute();
  // What needs Node (cassette files, the conformance kits' local server) says so with a typed error.
  const named = (error) => error.name + ' ' + error.code;
  const nodeOnly = {
    record: await Promise.resolve().then(() => recordModelCalls(llm, 'cassettes/mugs.json')).then(() => 'no error', named),
    replay: await replayModelCalls('cassettes/mugs.json').then(() => 'no error', named),
    conformance: await modelClientConformance({ wireFormat: 'openai', createClient: () => llm })[0].run().then(() => 'no error', named),
  };
  return {
    status: result.status,
    finalAnswer: result.finalAnswer,
    error: result.error ? String(result.error.message) : null,
    loaded: browser.calls.filter((call) => call.method === 'goto').length,
    nodeOnly,
  };
}

globalThis.plannavBundleResult = main().then(
  (out) => {
    console.log(out.status, out.finalAnswer);
    return out;
  },
  (error) => ({ thrown: String(error && error.stack ? error.stack : error) }),
);
`;

/**
 * The run's result as the tests expect it: the task ended ok, with the answer read from the fake
 * page it loaded; cassettes and the conformance kit refused with their typed errors.
 */
const okResult = {
  status: 'ok',
  finalAnswer: 'The blue mug costs $12.',
  error: null,
  loaded: 1,
  nodeOnly: { record: 'CassetteError CASSETTE_ERROR', replay: 'CassetteError CASSETTE_ERROR', conformance: 'ConfigError CONFIG_ERROR' },
};

/** Chromium's flags for a test machine (as vitest.config.ts and the e2e tests launch it). */
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** How long one run in Chromium may take: the task is a few scripted steps. */
const RUN_MS = 30_000;

/** Every import or require of a Node built-in in `code`, with or without the `node:` prefix. */
function nodeImportsIn(code: string): string[] {
  const names = builtinModules.filter((name) => !name.startsWith('_')).map((name) => name.replace(/[/]/g, '\\/'));
  const pattern = new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\brequire\\s*\\(\\s*)(["'\`])((?:node:)?(?:${names.join('|')}))\\1`, 'g');
  return [...code.matchAll(pattern)].map((match) => match[2] ?? '');
}

let project: PackedProject;
/** The folder the program and its bundle are written to, inside the packed project so that `plannav` resolves. */
let folder: string;
let bundled: Promise<string> | undefined;

/** The program bundled by esbuild for the browser with its defaults: an IIFE, nothing external. */
function bundle(): Promise<string> {
  bundled ??= build({
    entryPoints: [join(folder, 'program.js')],
    absWorkingDir: folder,
    bundle: true,
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then(
    (result) => result.outputFiles[0]?.text ?? '',
    (error: unknown) => {
      const failure = error as { message?: string; errors?: { text: string; location?: { file: string; lineText: string } | null }[] };
      const errors = (failure.errors ?? []).map(
        (message) => `${message.text}${message.location ? ` (${message.location.file}: ${message.location.lineText.trim()})` : ''}`,
      );
      throw new Error(`esbuild could not bundle plannav and plannav/testing for the browser:\n${errors.join('\n') || failure.message}`, { cause: error });
    },
  );
  return bundled;
}

beforeAll(async () => {
  project = await packedProject();
  folder = mkdtempSync(join(project.dir, 'bundle-'));
  writeFileSync(join(folder, 'program.js'), program);
}, 300_000);

describe('plannav and plannav/testing bundled for a browser (esbuild, platform browser, defaults)', { timeout: 120_000 }, () => {
  it('bundles with no Node built-in left to import', async () => {
    const code = await bundle();
    expect(code).toContain('plannavBundleResult');
    expect(nodeImportsIn(code)).toEqual([]);
  });

  it('finds the Node imports it looks for', () => {
    expect(nodeImportsIn(`await import("fs/promises"); require('node:http'); import x from "node:crypto"; import("./http.js"); "path"`)).toEqual([
      'fs/promises',
      'node:http',
      'node:crypto',
    ]);
  });

  describe('in headless Chromium', () => {
    let server: Server | undefined;
    let origin = '';

    beforeAll(async () => {
      const code = await bundle().catch(() => '');
      server = createServer((request, response) => {
        if (request.url === '/program.js') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bundle</title><script src="/program.js"></script>');
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });

    it('runs a task to ok in a page', async () => {
      await bundle();
      const browser = await chromium.launch({ executablePath: findChromium(), args: chromiumArgs });
      try {
        const page = await browser.newPage();
        const pageErrors: string[] = [];
        const printed: string[] = [];
        page.on('pageerror', (error) => pageErrors.push(error.message));
        page.on('console', (message) => printed.push(message.text()));
        await page.goto(`${origin}/`);
        const result = await page.evaluate(
          (ms) =>
            Promise.race([
              (globalThis as { plannavBundleResult?: Promise<unknown> }).plannavBundleResult ?? 'the program set no plannavBundleResult',
              new Promise((resolve) => setTimeout(() => resolve(`no result after ${ms} ms`), ms)),
            ]),
          RUN_MS,
        );
        expect({ result, pageErrors }).toEqual({ result: okResult, pageErrors: [] });
        expect(printed).toContain('ok The blue mug costs $12.');
      } finally {
        await browser.close();
      }
    });

    it('runs a task to ok in an MV3 extension service worker', async () => {
      const code = await bundle();
      const extension = join(folder, 'extension');
      mkdirSync(extension, { recursive: true });
      writeFileSync(
        join(extension, 'manifest.json'),
        JSON.stringify({ manifest_version: 3, name: 'plannav bundle test', version: '1.0', background: { service_worker: 'program.js' } }),
      );
      writeFileSync(join(extension, 'program.js'), code);
      const context = await chromium.launchPersistentContext(mkdtempSync(join(folder, 'profile-')), {
        executablePath: findChromium(),
        headless: true,
        args: [...chromiumArgs, `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
      });
      try {
        const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: RUN_MS }));
        expect(worker.url()).toMatch(/^chrome-extension:\/\/[a-z]+\/program\.js$/);
        const result = await worker.evaluate(
          (ms) =>
            Promise.race([
              (globalThis as { plannavBundleResult?: Promise<unknown> }).plannavBundleResult ?? 'the program set no plannavBundleResult',
              new Promise((resolve) => setTimeout(() => resolve(`no result after ${ms} ms`), ms)),
            ]),
          RUN_MS,
        );
        expect(result).toEqual(okResult);
      } finally {
        await context.close();
      }
    });
  });
});
