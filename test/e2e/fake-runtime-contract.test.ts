// The fake keeps to the runtime (issue 22): FakeBrowserDriver answers the page runtime's methods by
// hand (src/testing/fake-page-scripts.ts), so a user's test could pass on the fake and fail in
// Chromium. One contract, run against both: each fake page is also written as the HTML it stands
// for, loaded in Chromium, and every runtime method the fake answers is asked the same question on
// both. Answers must agree; where the fake cannot know something (pixels, a real layout) the
// comparison names what it leaves out and why, field by field.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { callRuntime, type RuntimeMethodName } from '../../src/dom/page-runtime';
import { validateFrameSnapshot } from '../../src/dom/validate-snapshot';
import { runtimeMethods } from '../../src/dom/page/runtime';
import { runtimeScriptId } from '../../src/dom/page-runtime';
import { fakePageScripts } from '../../src/testing/fake-page-scripts';
import { PlaywrightDriver } from '../../src/playwright/index';
import { FakeBrowserDriver, type FakeElement, type FakePage } from '../../src/testing/fake-browser-driver';

/** The pages of the contract: every kind of element the fake models, each beside text. */
const pages: Record<string, FakePage> = {
  '/form': {
    title: 'Sign up',
    content: [
      'Create your account',
      { tag: 'input', attributes: { name: 'email', type: 'email', placeholder: 'you@example.com' } },
      { tag: 'input', attributes: { name: 'age', type: 'number', value: '41' } },
      { tag: 'input', attributes: { name: 'code', type: 'text', readonly: '', value: 'AB-12' } },
      { tag: 'input', attributes: { name: 'nick', type: 'text', disabled: '' } },
      { tag: 'input', attributes: { name: 'birthday', type: 'date' } },
      { tag: 'input', attributes: { name: 'terms', type: 'checkbox' } },
      { tag: 'textarea', attributes: { name: 'bio', maxlength: '40' }, text: '' },
      { tag: 'select', attributes: { name: 'country' }, options: ['Norway', 'Peru', 'Japan'] },
      { tag: 'select', attributes: { name: 'tags', multiple: '' }, options: ['red', 'green', 'blue'] },
      { tag: 'input', attributes: { name: 'avatar', type: 'file', accept: 'image/*' } },
      { tag: 'button', text: 'Create account' },
    ],
  },
  '/list': {
    title: 'Teapots',
    content: [
      'Teapots for every kitchen',
      { tag: 'a', text: 'Blue teapot', href: '/teapot/blue' },
      'Price: $24.99',
      { tag: 'a', text: 'Red teapot', href: '/teapot/red' },
      'Price: $19.50',
      { tag: 'a', text: 'Next page', href: '/list?page=2', attributes: { rel: 'next' } },
      { tag: 'button', text: 'Add blue teapot to cart', attributes: { 'aria-label': 'Add Blue teapot to cart' } },
    ],
  },
};

/** The HTML a fake page stands for: each text line a paragraph, each element itself. */
function html(page: FakePage): string {
  const escape = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const element = (item: FakeElement): string => {
    const attributes = Object.entries({ ...item.attributes, ...(item.href ? { href: item.href } : {}) })
      .map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}="${escape(value)}"`))
      .join('');
    if (item.tag === 'input') return `<input${attributes}>`;
    if (item.tag === 'select') return `<select${attributes}>${(item.options ?? []).map((option) => `<option>${escape(option)}</option>`).join('')}</select>`;
    return `<${item.tag}${attributes}>${escape(item.text ?? '')}</${item.tag}>`;
  };
  const body = page.content.map((item) => (typeof item === 'string' ? `<p>${escape(item)}</p>` : `<div>${element(item)}</div>`)).join('\n');
  return `<!doctype html><html><head><title>${escape(page.title)}</title></head><body>${body}</body></html>`;
}

let server: Server;
let origin = '';
let chromium: PlaywrightDriver;

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://contract').pathname;
    const page = pages[path];
    if (!page) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chromium = await PlaywrightDriver.launch({ settle: { networkQuietMs: 50, domQuietMs: 50, maxWaitMs: 2000 } });
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Both drivers on the same page, with the ids of their elements in document order. */
async function open(
  path: string,
): Promise<{ fake: BrowserDriver; real: BrowserDriver; ids: { fake: string[]; real: string[] }; frames: { fake: string; real: string } }> {
  const fakePages = Object.fromEntries(Object.entries(pages).map(([key, page]) => [`${origin}${key}`, page]));
  const fake = new FakeBrowserDriver({ pages: fakePages, startUrl: `${origin}${path}` });
  await chromium.goto(`${origin}${path}`);
  const frames = { fake: (await fake.frames())[0]!.id, real: (await chromium.frames())[0]!.id };
  const snapshotOptions = {
    viewportExpansion: -1,
    includeAttributes: ['name', 'type', 'href', 'placeholder', 'value', 'aria-label', 'rel'],
    maxTextLength: 200,
  };
  const idsOf = async (driver: BrowserDriver, frameId: string): Promise<string[]> => {
    const snapshot = await callRuntime(driver, frameId, 'snapshot', snapshotOptions);
    return snapshot.items.flatMap((item) => (item.kind === 'element' ? [item.elementId] : []));
  };
  return { fake, real: chromium, frames, ids: { fake: await idsOf(fake, frames.fake), real: await idsOf(chromium, frames.real) } };
}

/** Asks both the same question of every element; returns the answers side by side. */
async function askEach(path: string, method: RuntimeMethodName, argument: (elementId: string) => unknown): Promise<{ fake: unknown[]; real: unknown[] }> {
  const { fake, real, ids, frames } = await open(path);
  expect(ids.fake.length, 'both list the same number of elements').toBe(ids.real.length);
  const ask = (driver: BrowserDriver, frameId: string, list: string[]) =>
    Promise.all(
      list.map((elementId) =>
        callRuntime(driver, frameId, method, argument(elementId) as never).catch(
          (error: unknown) => `error: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ),
    );
  return { fake: await ask(fake, frames.fake, ids.fake), real: await ask(real, frames.real, ids.real) };
}

/** Compares as JSON text, so a failure shows both answers whole. */
function same(fake: unknown, real: unknown, label = ''): void {
  expect(JSON.stringify(fake, null, 1), label).toBe(JSON.stringify(real, null, 1));
}

/** The runtime methods this contract compares. */
const compared = ['snapshot', 'inspectField', 'fieldValue', 'readDropdown', 'nextLinks', 'pageText', 'textEvidence', 'textShown'];
/** Methods the fake answers that are not compared, and why. */
const notCompared: Record<string, string> = {
  changes: 'answered by the fake driver itself from its own load counter, which tests assert on',
  clickTarget: 'a point in the layout: the fake has no pixels',
  watchClick: 'the fake runs click handlers itself: every click lands',
  clickLanding: 'the fake runs click handlers itself: every click lands',
  awaitStableBox: 'a box in the layout: the fake has no pixels',
  watchTyping: 'the fake types synchronously',
  awaitReaction: 'fake pages change only through their handlers',
  selectNative: 'changes the page: compared through readDropdown after the driver selects',
  scrollTarget: 'a scroll position in the layout: the fake has no pixels',
  findFileInput: 'needs a file chooser: the conformance kit covers it in Chromium',
  fileNames: 'needs a file chooser: the conformance kit covers it in Chromium',
  extractHtml: 'the fake writes its HTML from its items, not from a document',
  canGoBack: 'the fake keeps its own history list per tab',
  fingerprints: 'depend on the layout (boxes) the fake does not have',
  scrollFrameIntoView: 'the fake refuses it with a BrowserError: fake pages have no inner frames',
  hasFocus: 'the fake refuses it with a BrowserError: fake pages have no keyboard focus',
  viewportSize: 'the size of a window: the fake has no pixels, and answers a fixed one',
};

describe('the fake keeps to the page runtime', () => {
  it('compares every runtime method the fake answers, or says why not', () => {
    const answered = Object.keys(runtimeMethods).filter(
      (method) => fakePageScripts.has(runtimeScriptId(method as RuntimeMethodName)) || method === 'snapshot' || method === 'changes',
    );
    expect(answered.filter((method) => !compared.includes(method) && notCompared[method] === undefined)).toEqual([]);
  });

  it('lists the same elements with the same text and attributes (snapshot)', async () => {
    for (const path of Object.keys(pages)) {
      const { fake, real, frames } = await open(path);
      const options = {
        viewportExpansion: -1,
        includeAttributes: ['name', 'type', 'href', 'placeholder', 'aria-label', 'rel', 'value', 'checked', 'selected'],
        maxTextLength: 200,
      };
      // What the core keeps of a snapshot (validateFrameSnapshot) is what users see: compare that.
      const view = async (driver: BrowserDriver, frameId: string) =>
        validateFrameSnapshot(await callRuntime(driver, frameId, 'snapshot', options), options).items.map((item) =>
          item.kind === 'element' ? { tag: item.tagName, text: item.text, attributes: item.attributes } : { text: item.text },
        );
      same(await view(fake, frames.fake), await view(real, frames.real), path);
    }
  });

  it('inspects every field alike (inspectField)', async () => {
    const answers = await askEach('/form', 'inspectField', (elementId) => ({ elementId }));
    same(answers.fake, answers.real);
  });

  it('reads every field value alike (fieldValue)', async () => {
    const answers = await askEach('/form', 'fieldValue', (elementId) => ({ elementId }));
    same(answers.fake, answers.real);
  });

  it('reads every dropdown alike (readDropdown)', async () => {
    const answers = await askEach('/form', 'readDropdown', (elementId) => ({ elementId }));
    same(answers.fake, answers.real);
  });

  it('finds the same next links (nextLinks)', async () => {
    const { fake, real, frames } = await open('/list');
    same(await callRuntime(fake, frames.fake, 'nextLinks', undefined), await callRuntime(real, frames.real, 'nextLinks', undefined));
  });

  it('searches the page text alike (pageText)', async () => {
    const { fake, real, frames } = await open('/list');
    const request = {
      source: 'teapot',
      flags: 'i',
      mode: 'search' as const,
      nth: 0,
      contextChars: 12,
      maxResults: 10,
      maxTextChars: 100_000,
      timeBudgetMs: 1000,
    };
    same(await callRuntime(fake, frames.fake, 'pageText', request), await callRuntime(real, frames.real, 'pageText', request));
  });

  it('says alike whether a text is shown (textShown)', async () => {
    const { fake, real, frames } = await open('/list');
    for (const text of ['teapot', 'TEAPOT', '  teapot  ', 'no such words on this page']) {
      same(await callRuntime(fake, frames.fake, 'textShown', { text }), await callRuntime(real, frames.real, 'textShown', { text }), text);
    }
  });

  it('splits the text a person sees from what only a machine reads alike (textEvidence)', async () => {
    const { fake, real, frames } = await open('/list');
    same(
      await callRuntime(fake, frames.fake, 'textEvidence', { maxChars: 10_000 }),
      await callRuntime(real, frames.real, 'textEvidence', { maxChars: 10_000 }),
    );
  });
});
