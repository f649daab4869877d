// observe(), act() and extract() in real headless Chromium through PlaywrightDriver: indexes read
// from a served page, typing and clicking by index, the URL policy, typed extraction, cancel and timeout.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ConfigError, ChatModelOutputError, RequestCancelledError, TimeoutError, URLNotAllowedError } from '../../src/errors';
import { act, extract, observe } from '../../src/index';
import { ScriptedLLM } from '../../src/testing/scripted-llm';
import { rejectionOf } from '../helpers/rejection';
import { indexWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;
let page: string;

beforeAll(async () => {
  fixture = await startBrowser();
  page = fixture.server.url('standalone.html');
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  await fixture.driver.goto(page);
});

/** Milliseconds `promise` took to settle. */
async function timed(promise: Promise<unknown>): Promise<number> {
  const started = Date.now();
  await promise;
  return Date.now() - started;
}

const policy = { allow: ['127.0.0.1'] };

describe('standalone calls in a real page', () => {
  it('observe() reads the page with its indexes, as the Navigator sees it', async () => {
    const state = await observe(fixture.driver);

    expect(state.url).toBe(page);
    expect(state.title).toBe('Standalone shop');
    expect(state.tabs.map((tab) => tab.url)).toEqual([page]);
    const [email, subscribe, pageA] = [...state.elements.keys()];
    expect(state.elementsText.split('\n').slice(0, 5)).toEqual([
      'Standalone shop',
      `[${email}]<input type="email" name="email">Email />`,
      `[${subscribe}]<button>Subscribe />`,
      'Not subscribed',
      `[${pageA}]<a>Page A />`,
    ]);
    expect(state.elements.get(subscribe as number)?.tagName).toBe('button');
    // The next call keeps the indexes of elements that live on.
    const again = await observe(fixture.driver, { screenshot: true });
    expect(again.elements.get(subscribe as number)?.elementId).toBe(state.elements.get(subscribe as number)?.elementId);
    expect(again.newIndices.size).toBe(0);
    expect(again.screenshot).toMatch(/^\/9j\//);
  });

  it('act() types and clicks by the indexes of the observed state, and returns the results', async () => {
    const state = await observe(fixture.driver);
    const email = indexWith(state.elementsText, 'Email');
    const subscribe = indexWith(state.elementsText, 'Subscribe');
    const typed = await act(fixture.driver, { action: 'input_text', params: { index: email, text: 'ada@example.com' }, state });
    expect(typed.error).toBeUndefined();
    expect(typed.extractedContent).toBe(`Typed "ada@example.com" into element ${email} (<input type=email> "Email").`);

    const clicked = await act(fixture.driver, { action: 'click_element', params: { index: subscribe }, state });
    expect(clicked.error).toBeUndefined();
    expect(clicked.extractedContent).toMatch(new RegExp(`^Clicked element ${subscribe} \\(<button> "Subscribe"\\)\\.`));

    const after = await observe(fixture.driver);
    expect(after.elementsText).toContain('Subscribed ada@example.com');
    expect(after.elementsText).toContain(`[${email}]<input type="email" name="email" value="ada@example.com">Email />`);
  });

  it('act() follows an allowed link under the URL policy', async () => {
    const state = await observe(fixture.driver);
    const result = await act(
      fixture.driver,
      { action: 'click_element', params: { index: indexWith(state.elementsText, 'Page A') }, state },
      { urlPolicy: policy },
    );
    expect(result.error).toBeUndefined();
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('nav-page-a.html'));
  });

  it('act() rejects an unknown action and bad parameters with exact messages, touching nothing', async () => {
    const state = await observe(fixture.driver);
    const email = indexWith(state.elementsText, 'Email');
    const unknown = await rejectionOf<ConfigError>(act(fixture.driver, { action: 'type_text', params: { index: email }, state }));
    expect(ConfigError.isInstance(unknown)).toBe(true);
    expect(unknown.field).toBe('action');
    expect(unknown.message).toMatch(/^Unknown action "type_text"\. Available actions: done, search, go_to_url, .*\. Add your own with the `actions` option\.$/);

    const badParams = await rejectionOf<ConfigError>(act(fixture.driver, { action: 'input_text', params: { index: email, text: 42 }, state }));
    expect(badParams.field).toBe('params.text');
    expect(badParams.message).toBe(
      'Parameter `text` of action input_text: Invalid input: expected string, received number; got 42. input_text takes: index (integer): The index of the field, from the current page state; text (string): The text the field should hold; an empty string clears it.',
    );
    const now = await observe(fixture.driver);
    expect(now.elementsText).toContain(`[${email}]<input type="email" name="email">Email />`);
  });

  it('act() refuses a denied URL it is asked for, and a link to one, leaving the page where it was', async () => {
    const denied = `${fixture.server.otherOrigin}/nav-page-b.html`;
    const asked = await rejectionOf<URLNotAllowedError>(act(fixture.driver, { action: 'go_to_url', params: { url: denied } }, { urlPolicy: policy }));
    expect(URLNotAllowedError.isInstance(asked)).toBe(true);
    expect(asked.url).toBe(denied);
    expect(asked.message).toMatch(
      new RegExp(
        `^act\\(\\): the URL policy stopped go_to_url from loading ${denied.replace(/[.]/g, '\\.')} \\(navigation\\): host .* is not on the allow list\\.$`,
      ),
    );
    expect(await fixture.driver.currentUrl()).toBe(page);

    const state = await observe(fixture.driver);
    const linked = await rejectionOf<URLNotAllowedError>(
      act(fixture.driver, { action: 'click_element', params: { index: indexWith(state.elementsText, 'Partner offer') }, state }, { urlPolicy: policy }),
    );
    expect(URLNotAllowedError.isInstance(linked)).toBe(true);
    expect(linked.url).toBe(denied);
    expect(await fixture.driver.currentUrl()).toBe(page);

    // The policy was the call's only: without it, the same link loads.
    await act(fixture.driver, { action: 'click_element', params: { index: indexWith(state.elementsText, 'Partner offer') }, state });
    expect(await fixture.driver.currentUrl()).toBe(denied);
  });

  it('extract() returns typed data read from the page, and rejects an answer that does not match', async () => {
    // The model answers from the page text it was sent, so the data proves what reached it.
    const llm = new ScriptedLLM({
      respond: ({ lastUserText }) => ({
        object: { mugs: [...lastUserText.matchAll(/\| (\w+ mug) \| \$(\d+) \|/g)].map(([, name, price]) => ({ name, price: Number(price) })) },
      }),
    });
    const schema = z.object({ mugs: z.array(z.object({ name: z.string(), price: z.number() })) });
    const data: z.infer<typeof schema> = await extract(fixture.driver, { llm, instruction: 'every mug with its price', schema });
    expect(data).toEqual({
      mugs: [
        { name: 'Blue mug', price: 4 },
        { name: 'Red mug', price: 6 },
      ],
    });

    const wrong = new ScriptedLLM({ respond: () => ({ object: { mugs: 'Blue mug $4' } }) });
    const error = await rejectionOf<ChatModelOutputError>(extract(fixture.driver, { llm: wrong, instruction: 'every mug', schema }));
    expect(ChatModelOutputError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^extract\(\): the answer of scripted-model does not match the schema, also after one repair round\. .*\n- mugs: Invalid input: expected array, received string$/s,
    );
  });

  describe('signal and timeout', () => {
    it('observe() rejects at once on abort and on timeout, and the browser still works', async () => {
      const controller = new AbortController();
      const call = rejectionOf(observe(fixture.driver, { signal: controller.signal }));
      controller.abort();
      expect(await timed(call)).toBeLessThan(1000);
      expect(RequestCancelledError.isInstance(await call)).toBe(true);

      const late = await rejectionOf<TimeoutError>(observe(fixture.driver, { timeout: 1 }));
      expect(TimeoutError.isInstance(late)).toBe(true);
      expect(late.message).toBe('observe() did not finish within its timeout of 1 ms. Give it a longer `timeout`, or none.');

      expect((await observe(fixture.driver)).title).toBe('Standalone shop');
    });

    it('act() rejects at once on abort and on timeout', async () => {
      const controller = new AbortController();
      const call = rejectionOf(act(fixture.driver, { action: 'wait', params: { seconds: 30 } }, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 50);
      expect(await timed(call)).toBeLessThan(1000);
      expect(RequestCancelledError.isInstance(await call)).toBe(true);

      const started = Date.now();
      const late = await rejectionOf<TimeoutError>(act(fixture.driver, { action: 'wait', params: { seconds: 30 } }, { timeout: 200 }));
      expect(Date.now() - started).toBeLessThan(1500);
      expect(TimeoutError.isInstance(late)).toBe(true);
      expect(late.message).toBe('act() did not finish within its timeout of 200 ms. Give it a longer `timeout`, or none.');
    });

    it('extract() rejects at once on abort and on timeout while the model thinks', async () => {
      const controller = new AbortController();
      const llm = new ScriptedLLM({ responses: [{ fail: 'hang' }, { fail: 'hang' }] });
      const call = rejectionOf(extract(fixture.driver, { llm, instruction: 'the mugs' }, { signal: controller.signal }));
      await vi.waitFor(() => expect(llm.requests).toHaveLength(1));
      controller.abort();
      expect(await timed(call)).toBeLessThan(1000);
      expect(RequestCancelledError.isInstance(await call)).toBe(true);
      expect(llm.requests[0]?.signal?.aborted).toBe(true);

      // Long enough for the page to settle before it is read (a DOM-quiet window), so the model call is in flight when it runs out.
      const late = await rejectionOf<TimeoutError>(extract(fixture.driver, { llm, instruction: 'the mugs' }, { timeout: 1500 }));
      expect(TimeoutError.isInstance(late)).toBe(true);
      expect(late.message).toBe('extract() did not finish within its timeout of 1500 ms. Give it a longer `timeout`, or none.');
      expect(llm.requests[1]?.signal?.aborted).toBe(true);
    });
  });
});
