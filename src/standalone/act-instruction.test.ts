import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { ActionCache, type ActionCacheEvent } from '../cache/action-cache';
import type { ActionCacheEntry, ActionCacheStore } from '../cache/cache-entry';
import { ConfigError } from '../errors';
import { FakeBrowserDriver, type FakeElement, type FakePage } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, type ScriptedRequest } from '../testing/scripted-llm';
import { act } from './act';

const shopUrl = 'https://shop.example/mugs';
const instruction = 'add the blue mug to the cart';

interface Product {
  readonly name: string;
  readonly price: number;
  /** Attributes of its "Add to cart" button. */
  readonly button?: Readonly<Record<string, string>>;
}

/** A fake shop page: each product's name, its price and an "Add to cart" button that records the product. */
function shopPage(products: readonly Product[], added: string[], before: readonly FakeElement[] = []): FakePage {
  return {
    title: 'Mugs',
    content: [
      ...before,
      ...products.flatMap((product) => [
        product.name,
        `$${product.price}`,
        { tag: 'button', text: 'Add to cart', attributes: product.button, onClick: () => void added.push(product.name) },
      ]),
    ],
  };
}

/**
 * A model that reads the state it is sent, as a careful one would: the "Add to cart" button below
 * the product's name, never another's; without the product, it answers that it cannot.
 */
function picker(product: string): ScriptedLLM {
  return new ScriptedLLM({
    respond: ({ lastUserText }: ScriptedRequest) => {
      const lines = lastUserText.split('\n').map((line) => line.trim());
      const at = lines.indexOf(product);
      const button = at < 0 ? undefined : lines.slice(at + 1).find((line) => /^\*?\[\d+\]<button[^>]*>Add to cart \/>$/.test(line));
      const index = button === undefined ? undefined : Number(/\[(\d+)\]/.exec(button)?.[1]);
      return index === undefined
        ? scriptedActions([{ done: { text: `There is no ${product} on this page.`, success: false } }])
        : scriptedActions([{ click_element: { index } }]);
    },
  });
}

function setUp(products: readonly Product[]): { browser: FakeBrowserDriver; added: string[] } {
  const added: string[] = [];
  const browser = new FakeBrowserDriver({ startUrl: shopUrl, pages: { [shopUrl]: shopPage(products, added) } });
  return { browser, added };
}

const blue: Product = { name: 'Blue mug', price: 4 };
const red: Product = { name: 'Red mug', price: 6 };
const green: Product = { name: 'Green mug', price: 5 };

/** The clicks the fake browser got since call number `from`. */
const clicksSince = (browser: FakeBrowserDriver, from: number): number => browser.calls.slice(from).filter((call) => call.method === 'click').length;

describe('act() with an instruction and an ActionCache', () => {
  it('asks the model once, then replays from the cache on a fresh load with no model call and no usage', async () => {
    const { browser, added } = setUp([blue, red]);
    const events: ActionCacheEvent[] = [];
    const cache = new ActionCache({ onEvent: (event) => events.push(event) });
    const llm = picker('Blue mug');

    const first = await act(browser, { instruction }, { llm, cache });
    expect(first).toMatchObject({ action: 'click_element', cache: 'miss' });
    expect(first.error).toBeUndefined();
    expect(first.usage).toMatchObject({ calls: 1, inputTokens: 100, outputTokens: 20 });
    expect(added).toEqual(['Blue mug']);
    expect(llm.callCount).toBe(1);
    // The model was asked as the Navigator is: the instruction, and the page inside the untrusted boundary.
    expect(llm.requests[0]?.agent).toBe('navigator');
    expect(llm.requests[0]?.lastUserText).toContain(`<user_request>\n${instruction}\n</user_request>`);

    await browser.goto(shopUrl); // a new document: other element ids
    const second = await act(browser, { instruction: '  Add the BLUE mug to the cart ' }, { llm, cache });
    expect(second).toMatchObject({ action: 'click_element', cache: 'hit' });
    expect(second.error).toBeUndefined();
    expect(second.usage.calls).toBe(0);
    expect(llm.callCount).toBe(1);
    expect(added).toEqual(['Blue mug', 'Blue mug']);
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, heals: 0 });
    expect(events.map((event) => [event.type, event.call, event.usage.calls])).toEqual([
      ['cache-miss', 'act', 1],
      ['cache-hit', 'act', 0],
    ]);
    expect(events[0]?.url).toBe(shopUrl);
  });

  it('still hits when prices change, and clicks the same product', async () => {
    const { browser, added } = setUp([blue, red]);
    const cache = new ActionCache();
    const llm = picker('Blue mug');
    await act(browser, { instruction }, { llm, cache });

    browser.setPage(
      shopUrl,
      shopPage(
        [
          { ...blue, price: 9 },
          { ...red, price: 7 },
        ],
        added,
      ),
    );
    await browser.goto(shopUrl);
    const again = await act(browser, { instruction }, { llm, cache });
    expect(again.cache).toBe('hit');
    expect(llm.callCount).toBe(1);
    expect(added).toEqual(['Blue mug', 'Blue mug']);
  });

  it('asks the model when look-alike buttons make the match ambiguous (a longer list, no record to tell them apart)', async () => {
    const { browser, added } = setUp([blue, red]);
    const events: ActionCacheEvent[] = [];
    const cache = new ActionCache({ onEvent: (event) => events.push(event) });
    const llm = picker('Blue mug');
    await act(browser, { instruction }, { llm, cache });

    browser.setPage(shopUrl, shopPage([blue, red, green], added));
    await browser.goto(shopUrl);
    const again = await act(browser, { instruction }, { llm, cache });
    expect(again.cache).toBe('healed');
    expect(events[1]?.reason).toMatch(/^index: ambiguous: elements \d+ and \d+ score/);
    expect(llm.callCount).toBe(2);
    expect(added).toEqual(['Blue mug', 'Blue mug']);
  });

  describe('never acts on a wrong element', () => {
    const variants: [string, readonly Product[]][] = [
      ['another product where the blue mug was, and one more', [red, green]],
      ['a single similar product left', [red]],
      ['a product with a similar name', [{ name: 'Blue bowl', price: 4 }, red]],
    ];
    for (const [what, products] of variants) {
      it(`the recorded element gone, a similar one present (${what}): the model is asked, nothing is clicked`, async () => {
        const { browser, added } = setUp([blue, red]);
        const cache = new ActionCache();
        const llm = picker('Blue mug');
        expect((await act(browser, { instruction }, { llm, cache })).cache).toBe('miss');

        browser.setPage(shopUrl, shopPage(products, added));
        await browser.goto(shopUrl);
        const from = browser.calls.length;
        const result = await act(browser, { instruction }, { llm, cache });
        expect(result.cache).toBe('healed');
        expect(result.error).toBe('The model did not act on the instruction: There is no Blue mug on this page.');
        expect(llm.callCount).toBe(2);
        expect(clicksSince(browser, from)).toBe(0);
        expect(added).toEqual(['Blue mug']);
        expect(cache.stats()).toEqual({ hits: 0, misses: 1, heals: 1 });
      });
    }

    it('even when the similar button carries the recorded test id', async () => {
      const testId = { 'data-testid': 'add-to-cart' };
      const { browser, added } = setUp([{ ...blue, button: testId }]);
      const cache = new ActionCache();
      const llm = picker('Blue mug');
      await act(browser, { instruction }, { llm, cache });

      browser.setPage(shopUrl, shopPage([{ ...red, button: testId }], added));
      await browser.goto(shopUrl);
      const from = browser.calls.length;
      const result = await act(browser, { instruction }, { llm, cache });
      expect(result.cache).toBe('healed');
      expect(clicksSince(browser, from)).toBe(0);
      expect(added).toEqual(['Blue mug']);
    });

    it('when another product\u2019s button takes the recorded id (the same structure), it is left to the model, which picks the right one', async () => {
      const { browser, added } = setUp([
        { ...blue, button: { id: 'add-blue' } },
        { ...red, button: { id: 'add-red' } },
      ]);
      const cache = new ActionCache();
      const llm = picker('Blue mug');
      await act(browser, { instruction }, { llm, cache });

      // Same structure; the recorded id now on the red mug's button.
      browser.setPage(
        shopUrl,
        shopPage(
          [
            { ...red, button: { id: 'add-blue' } },
            { ...blue, button: { id: 'add-red' } },
          ],
          added,
        ),
      );
      await browser.goto(shopUrl);
      const result = await act(browser, { instruction }, { llm, cache });
      expect(result.cache).toBe('healed');
      expect(llm.callCount).toBe(2);
      expect(added).toEqual(['Blue mug', 'Blue mug']);
    });
  });

  it('heals a changed page with the model and replaces the entry: the next call hits', async () => {
    const { browser, added } = setUp([
      { ...blue, button: { id: 'add-1' } },
      { ...red, button: { id: 'add-2' } },
    ]);
    const cache = new ActionCache();
    const llm = picker('Blue mug');
    await act(browser, { instruction }, { llm, cache });

    // A redesign: a new control on top (another structure) and new ids.
    const banner: FakeElement = { tag: 'a', text: 'Free shipping', href: 'https://shop.example/shipping' };
    browser.setPage(
      shopUrl,
      shopPage(
        [
          { ...red, button: { id: 'buy-red' } },
          { ...blue, button: { id: 'buy-blue' } },
        ],
        added,
        [banner],
      ),
    );
    await browser.goto(shopUrl);
    const healed = await act(browser, { instruction }, { llm, cache });
    expect(healed.cache).toBe('healed');
    expect(added).toEqual(['Blue mug', 'Blue mug']);

    await browser.goto(shopUrl);
    const hit = await act(browser, { instruction }, { llm, cache });
    expect(hit.cache).toBe('hit');
    expect(llm.callCount).toBe(2);
    expect(added).toEqual(['Blue mug', 'Blue mug', 'Blue mug']);
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, heals: 1 });
  });

  it('keys by the instruction and the page address without query values', async () => {
    const added: string[] = [];
    const page = shopPage([blue, red], added);
    const browser = new FakeBrowserDriver({
      startUrl: `${shopUrl}?page=1#top`,
      pages: { [`${shopUrl}?page=1#top`]: page, [`${shopUrl}?page=2`]: page, 'https://shop.example/bowls': page },
    });
    const cache = new ActionCache();
    const llm = picker('Blue mug');
    await act(browser, { instruction }, { llm, cache });
    await browser.goto(`${shopUrl}?page=2`);
    expect((await act(browser, { instruction }, { llm, cache })).cache).toBe('hit');
    await browser.goto('https://shop.example/bowls');
    expect((await act(browser, { instruction }, { llm, cache })).cache).toBe('miss');
    expect((await act(browser, { instruction: 'add the red mug to the cart' }, { llm: picker('Red mug'), cache })).cache).toBe('miss');
    expect(added).toEqual(['Blue mug', 'Blue mug', 'Blue mug', 'Red mug']);
  });

  it('writes no entry when the model cannot act, or the action fails', async () => {
    const { browser } = setUp([red]);
    const cache = new ActionCache();
    const llm = picker('Blue mug');
    const refused = await act(browser, { instruction }, { llm, cache });
    expect(refused).toMatchObject({ action: 'done', cache: 'miss', error: 'The model did not act on the instruction: There is no Blue mug on this page.' });
    expect((await act(browser, { instruction }, { llm, cache })).cache).toBe('miss');

    const wrongIndex = new ScriptedLLM({ respond: () => scriptedActions([{ click_element: { index: 99 } }]) });
    const failed = await act(browser, { instruction: 'click the 99th element' }, { llm: wrongIndex, cache });
    expect(failed.error).toContain('index 99');
    expect((await act(browser, { instruction: 'click the 99th element' }, { llm: wrongIndex, cache })).cache).toBe('miss');
    expect(cache.stats()).toEqual({ hits: 0, misses: 4, heals: 0 });
  });

  it('stores secrets as placeholders, never their values, and types the value again on a hit', async () => {
    const loginUrl = 'https://shop.example/login';
    const password = 'correct-horse-battery';
    const browser = new FakeBrowserDriver({
      startUrl: loginUrl,
      pages: { [loginUrl]: { title: 'Log in', content: ['Password', { tag: 'input', attributes: { name: 'password', type: 'password' } }] } },
    });
    const written: string[] = [];
    const entries = new Map<string, ActionCacheEntry>();
    const store: ActionCacheStore = {
      get: (key) => entries.get(key),
      set: (key, entry) => {
        written.push(JSON.stringify(entry));
        entries.set(key, entry);
      },
      delete: (key) => void entries.delete(key),
    };
    const cache = new ActionCache({ store });
    const llm = new ScriptedLLM({ respond: () => scriptedActions([{ input_text: { index: 1, text: '<secret>password</secret>' } }]) });
    const options = { llm, cache, secrets: { password } };

    const first = await act(browser, { instruction: `type the password (it is ${password}) into the password field` }, options);
    expect(first.cache).toBe('miss');
    expect(first.params).toEqual({ index: 1, text: '<secret>password</secret>' });
    expect(browser.valueOf('password')).toBe(password);
    expect(llm.requests[0]?.lastUserText).not.toContain(password);
    expect(written).toHaveLength(1);
    expect(written[0]).not.toContain(password);
    expect(written[0]).toContain('<secret>password</secret>');
    expect(JSON.stringify(first)).not.toContain(password);

    await browser.goto(loginUrl);
    const second = await act(browser, { instruction: `type the password (it is ${password}) into the password field` }, options);
    expect(second.cache).toBe('hit');
    expect(browser.valueOf('password')).toBe(password);
    expect(llm.callCount).toBe(1);
  });

  it('goes on when the store fails: a miss, and the event says why', async () => {
    const { browser, added } = setUp([blue]);
    const events: ActionCacheEvent[] = [];
    const broken: ActionCacheStore = {
      get: () => Promise.reject(new Error('disk gone')),
      set: () => Promise.reject(new Error('disk full')),
      delete: () => undefined,
    };
    const cache = new ActionCache({ store: broken, onEvent: (event) => events.push(event) });
    const result = await act(browser, { instruction }, { llm: picker('Blue mug'), cache });
    expect(result.cache).toBe('miss');
    expect(added).toEqual(['Blue mug']);
    expect(events[0]?.storeError).toBe('the store could not write the entry: disk full');
  });

  it('ignores a malformed entry in the store: the model resolves the instruction again', async () => {
    const { browser, added } = setUp([blue]);
    const store: ActionCacheStore = { get: () => ({ version: 2, kind: 'act' }) as never, set: () => undefined, delete: () => undefined };
    const result = await act(browser, { instruction }, { llm: picker('Blue mug'), cache: new ActionCache({ store }) });
    expect(result.cache).toBe('miss');
    expect(added).toEqual(['Blue mug']);
  });

  it('says the cache is off for a named action, and without a cache', async () => {
    const { browser } = setUp([blue]);
    const cache = new ActionCache();
    expect((await act(browser, { action: 'scroll_to_top' }, { cache })).cache).toBe('off');
    expect((await act(browser, { instruction }, { llm: picker('Blue mug') })).cache).toBe('off');
    expect(cache.stats()).toEqual({ hits: 0, misses: 0, heals: 0 });
  });

  describe('refuses a misused call with a ConfigError, before the browser or the model', () => {
    const cases: [string, () => Promise<unknown>, string][] = [
      ['an instruction without a model', () => act(setUp([blue]).browser, { instruction }, { cache: new ActionCache() }), 'llm'],
      ['both an action and an instruction', () => act(setUp([blue]).browser, { instruction, action: 'click_element' }, { llm: picker('x') }), 'action'],
      ['neither', () => act(setUp([blue]).browser, {}, { llm: picker('x') }), 'action'],
      ['an instruction with params', () => act(setUp([blue]).browser, { instruction, params: { index: 1 } }, { llm: picker('x') }), 'params'],
      ['an empty instruction', () => act(setUp([blue]).browser, { instruction: '  ' }, { llm: picker('x') }), 'instruction'],
      ['a cache that is not an ActionCache', () => act(setUp([blue]).browser, { instruction }, { llm: picker('x'), cache: {} as never }), 'cache'],
      ['a bad secret', () => act(setUp([blue]).browser, { instruction }, { llm: picker('x'), secrets: { password: 'ab' } }), 'secrets.password'],
    ];
    for (const [what, call, field] of cases) {
      it(what, async () => {
        const error = await rejectionOf<ConfigError>(call());
        expect(ConfigError.isInstance(error)).toBe(true);
        expect(error.field).toBe(field);
      });
    }

    it('an ActionCache with bad options', () => {
      expect(() => new ActionCache({ store: { get: () => undefined } as never })).toThrow(
        'Option `store` of ActionCache must have get(), set() and delete(); it lacks set, delete.',
      );
      expect(() => new ActionCache({ stores: {} } as never)).toThrow('Unknown option `stores` of ActionCache. Check its spelling.');
      expect(() => new ActionCache({ onEvent: 'log' as never })).toThrow('Option `onEvent` of ActionCache must be a function.');
    });
  });
});
