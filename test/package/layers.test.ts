// Architecture test on the sources: core files (src/ minus tests and NOT_CORE folders) import no Node builtin,
// and every import between layers (top folder or top file of src/) is allowed by the LAYERS table below.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Layer -> the layers it may import (besides itself). A layer is a folder `src/<layer>/` or a file
 * `src/<layer>.ts`. Top to bottom: executor > agents > messages, prompts, actions >
 * llm, browser, dom, history, security > errors, events, util (dom may use browser, not the reverse). Type-only imports count too.
 * Layers that do not exist yet are fine; a core file in a layer missing here fails the test.
 */
const BASE = ['errors', 'events', 'util']; // usable by every layer
const BOTTOM = ['llm', 'browser', 'dom', 'history', 'security'];
const MIDDLE = ['messages', 'prompts', 'actions'];
const LAYERS: Record<string, string[]> = {
  index: ['executor', 'agents', 'standalone', 'replay', 'collect', 'cache', ...MIDDLE, ...BOTTOM, ...BASE], // src/index.ts, the public face
  driver: ['browser', 'dom', 'security', 'collect', ...BASE], // src/driver.ts, plannav/driver: the face for driver authors (collect: the BrowserPool type)
  provider: ['llm', ...BASE], // src/provider.ts, plannav/provider: the face for model-client authors
  executor: ['session', 'agents', ...MIDDLE, ...BOTTOM, ...BASE], // nothing imports executor but index.ts
  // The one browser session every entry point uses: driver defaults, lease, reader, settle-then-read, URL guard, deadlines, agent context, events.
  session: ['agents', ...MIDDLE, ...BOTTOM, ...BASE],
  agents: [...MIDDLE, ...BOTTOM, ...BASE],
  standalone: ['session', 'cache', ...MIDDLE, ...BOTTOM, ...BASE], // observe, act, extract: the Navigator's pieces without the loop
  cache: ['replay', ...MIDDLE, ...BOTTOM, ...BASE], // issue 24: the action cache of act() and extract(); the replay matcher re-checks a hit
  collect: ['session', 'agents', ...MIDDLE, ...BOTTOM, ...BASE], // the Collector: the loop as a crawler; index.ts imports it, driver.ts its BrowserPool type
  replay: ['session', 'agents', ...MIDDLE, ...BOTTOM, ...BASE], // a recorded run again without a model; the Navigator only to heal a step
  messages: [...MIDDLE, ...BOTTOM, ...BASE],
  prompts: [...MIDDLE, ...BOTTOM, ...BASE],
  actions: [...MIDDLE, ...BOTTOM, ...BASE],
  llm: BASE,
  browser: BASE, // the driver contract and page-state types only
  dom: ['browser', ...BASE], // the snapshot runs through the driver contract
  history: ['llm', 'browser', ...BASE],
  security: ['browser', ...BASE], // type-only: UrlDecision
  util: ['errors'], // small helpers (abort, base64)
  events: ['errors', 'llm', 'browser'], // type-only: token usage and download reports in event payloads
  errors: ['util'], // util/describe-thrown only (it imports nothing), for the messages of causes that are not Errors
  // Adapters: separate entry points beside the core. They may use the core's lower layers; no
  // core layer lists them, so the core can never import an adapter.
  providers: ['llm', ...BASE], // shared HTTP plumbing of the fetch adapters
  openai: ['providers', 'llm', ...BASE],
  anthropic: ['providers', 'llm', ...BASE],
  gemini: ['providers', 'llm', ...BASE],
  'ai-sdk': ['llm', ...BASE],
  models: ['openai', 'anthropic', 'gemini', 'providers', 'llm', ...BASE], // createLLM('provider:model')
  chromium: ['browser', 'dom', ...BASE], // Node-only code the Playwright and Puppeteer drivers share
  playwright: ['browser', 'dom', 'chromium', ...BASE],
  puppeteer: ['browser', 'dom', 'chromium', ...BASE],
  node: ['collect', 'history', 'llm', 'browser', 'cache', ...BASE], // plannav/node: history files, journals, GIF and report (Node only)
  bullmq: ['collect', 'session', 'agents', ...MIDDLE, ...BOTTOM, ...BASE], // plannav/bullmq: a collection as BullMQ jobs on Redis (Node only)
  // The front doors (Node only) use the package through its entry points (src/index.ts, src/<entry>/index.ts) only,
  // so the bundled command imports them as `plannav`, `plannav/playwright`, … instead of a second copy.
  demo: ['index', 'testing'], // the demo shop and its scripted shopper, served by `plannav run --demo`, `plannav mcp --demo`, `plannav ui --demo`
  front: ['index', 'models', 'playwright', 'node', 'demo'], // the run set-up the command, the MCP server and the run page share
  cli: ['front', 'index', 'models', 'playwright', 'node', 'demo', 'ui', 'mcp'], // the `plannav` command
  mcp: ['front', 'index', 'models', 'node', 'security', ...BASE], // plannav/mcp: the agent as an MCP server, MCP tools as actions
  ui: ['front', 'index', 'node'], // `plannav ui`: the run page's server and the page's own script (src/ui/page/, bundled)
  otel: ['index', ...BASE], // plannav/otel (issue 24): spans of a run from its events; types from the public face, runs anywhere
};

/** Folders of src/ that are not core: not checked here, and no core file may import them. */
const NOT_CORE = ['testing'];

/** Layers that may import Node builtins: the Playwright and Puppeteer drivers, and the code they share, run in Node only. */
const NODE_ONLY = ['chromium', 'playwright', 'puppeteer', 'node', 'bullmq', 'demo', 'front', 'cli', 'ui', 'mcp'];

/** The page runtime (src/dom/page/) is bundled into the script pages run: it may import only itself, the DOM types and these packages. */
const PAGE_RUNTIME = join('src', 'dom', 'page');
const PAGE_PACKAGES = ['dom-accessibility-api'];

const SRC = resolve('src');
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec) || builtinModules.includes(spec.split('/')[0]!);

/** The layer of an absolute path inside src/: its first path segment without extension. */
const layerOf = (path: string) => (relative(SRC, path).split(sep)[0] || 'index').replace(/\.[cm]?[jt]sx?$/, '');

function coreFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return dir === SRC && NOT_CORE.includes(d.name) ? [] : coreFiles(path);
    return /\.ts$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [path] : [];
  });
}

const files = coreFiles(SRC);
const imports = files.flatMap((file) =>
  ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName: spec }) => ({
    file: relative('.', file),
    from: layerOf(file),
    spec,
    to: spec.startsWith('.') ? layerOf(resolve(dirname(file), spec)) : undefined,
  })),
);

describe('source layers', () => {
  it('core and adapter files import no Node builtin (the Node-only driver layers excepted)', () => {
    const bad = imports.filter(({ from, spec }) => isBuiltin(spec) && !NODE_ONLY.includes(from)).map(({ file, spec }) => `${file} imports ${spec}`);
    expect(bad).toEqual([]);
  });

  it('the page runtime imports only its own modules, the snapshot types and the packages it bundles', () => {
    const bad = imports
      .filter(({ file }) => file.startsWith(PAGE_RUNTIME + sep))
      .filter(({ file, spec }) => {
        if (!spec.startsWith('.')) return !PAGE_PACKAGES.includes(spec);
        const target = relative('.', resolve(dirname(file), spec));
        return !target.startsWith(PAGE_RUNTIME + sep) && target !== join('src', 'dom', 'types');
      })
      .map(({ file, spec }) => `${file} imports ${spec}`);
    expect(bad).toEqual([]);
  });

  it('every core file is in a known layer', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((layer) => !(layer in LAYERS));
    expect(unknown, 'add these layers to LAYERS in test/package/layers.test.ts').toEqual([]);
  });

  it('imports between layers follow the LAYERS table (core never imports src/testing)', () => {
    const bad = imports
      .filter(({ from, to }) => to !== undefined && to !== from && !(LAYERS[from] ?? []).includes(to))
      .map(({ file, from, to, spec }) => `${file} (${from}) imports ${spec} (${to})`);
    expect(bad).toEqual([]);
  });
});
