import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { HangingDriver } from '../../test/helpers/hanging-driver';
import { rejectionOf } from '../../test/helpers/rejection';
import { ActionError, ChatModelError, ChatModelOutputError, ConfigError, RequestCancelledError, TimeoutError } from '../errors';
import type { LLMClient } from '../llm/types';
import { FakeBrowserDriver, type FakeBrowserDriverOptions } from '../testing/fake-browser-driver';
import { ScriptedLLM } from '../testing/scripted-llm';
import { ActionCache, type ActionCacheEvent } from '../cache/action-cache';
import type { ActionCacheEntry, ActionCacheStore } from '../cache/cache-entry';
import { extract } from './extract';

const mugs = 'https://shop.example/mugs';
const options: FakeBrowserDriverOptions = {
  startUrl: mugs,
  pages: { [mugs]: { title: 'Mugs', content: ['Blue mug: $4', 'Red mug: $6', { tag: 'a', text: 'Next page', href: 'https://shop.example/mugs?page=2' }] } },
};

const products = z.object({ products: z.array(z.object({ name: z.string(), price: z.number() })) });

afterEach(() => {
  vi.useRealTimers();
});

describe('extract', () => {
  it('returns the model\u2019s answer typed and validated by the schema, from the page as markdown', async () => {
    const llm = new ScriptedLLM({
      responses: [
        {
          object: {
            products: [
              { name: 'Blue mug', price: 4 },
              { name: 'Red mug', price: 6 },
            ],
          },
        },
      ],
    });
    const data = await extract(new FakeBrowserDriver(options), { llm, instruction: 'every mug with its price', schema: products });

    expectTypeOf(data).toEqualTypeOf<{ products: { name: string; price: number }[] }>();
    expect(data).toEqual({
      products: [
        { name: 'Blue mug', price: 4 },
        { name: 'Red mug', price: 6 },
      ],
    });
    const request = llm.requests[0];
    expect(request?.lastUserText).toBe(
      'Goal: every mug with its price\n\n<untrusted_content>\nPage: Mugs (https://shop.example/mugs)\n\n# Mugs\n\nBlue mug: $4\n\nRed mug: $6\n\nNext page\n</untrusted_content>\n\nReply with one JSON object that follows the required schema.',
    );
    // The model is asked for exactly the schema's shape.
    expect(request?.output?.schema).toMatchObject({ type: 'object', required: ['products'] });
  });

  it('returns the output of a schema that transforms', async () => {
    const llm = new ScriptedLLM({ responses: [{ object: { data: '$4' } }] });
    const price = z.string().transform((text) => Number(text.replace('$', '')));
    const data = await extract(new FakeBrowserDriver(options), { llm, instruction: 'the blue mug\u2019s price', schema: price });
    expectTypeOf(data).toEqualTypeOf<number>();
    expect(data).toBe(4);
  });

  it('returns a string without a schema', async () => {
    const llm = new ScriptedLLM({ responses: [{ object: { data: 'Two mugs: blue for $4 and red for $6.' } }] });
    const data = await extract(new FakeBrowserDriver(options), { llm, instruction: 'the mugs' });
    expectTypeOf(data).toEqualTypeOf<string>();
    expect(data).toBe('Two mugs: blue for $4 and red for $6.');
  });

  it('keeps link URLs when asked', async () => {
    const llm = new ScriptedLLM({ responses: [{ object: { data: 'https://shop.example/mugs?page=2' } }] });
    await extract(new FakeBrowserDriver(options), { llm, instruction: 'the next page link', includeLinks: true });
    expect(llm.requests[0]?.lastUserText).toContain('[Next page](https://shop.example/mugs?page=2)');
  });

  it('rejects an answer that does not match the schema, after one repair round, with a ChatModelOutputError', async () => {
    const wrong = { products: [{ name: 'Blue mug', price: '$4' }] };
    const llm = new ScriptedLLM({ responses: [{ object: wrong }, { object: wrong }] });
    const error = await rejectionOf<ChatModelOutputError>(extract(new FakeBrowserDriver(options), { llm, instruction: 'the mugs', schema: products }));

    expect(ChatModelOutputError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'extract(): the answer of scripted-model does not match the schema, also after one repair round. The scripted-model model returned unusable output. Your reply did not match the required format:\n- products.0.price: Invalid input: expected number, received string',
    );
    expect(error.text).toBe(JSON.stringify(wrong));
    expect(llm.requests).toHaveLength(2);
  });

  it('rejects with the model\u2019s own error when the call fails', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'status', status: 500, message: 'overloaded' }] });
    const error = await rejectionOf<ChatModelError>(extract(new FakeBrowserDriver(options), { llm, instruction: 'the mugs' }, { retry: { retries: 0 } }));
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect(error.statusCode).toBe(500);
  });

  it('rejects a page without readable text with an ActionError', async () => {
    const llm = new ScriptedLLM();
    const error = await rejectionOf<ActionError>(extract(new FakeBrowserDriver(), { llm, instruction: 'the mugs' }));
    expect(ActionError.isInstance(error)).toBe(true);
    expect(error.message).toBe('extract() found nothing to read: The page about:blank has no readable text. Load a page with content first.');
    expect(llm.requests).toHaveLength(0);
  });

  it('rejects a bad argument with a ConfigError naming it, before touching the browser', async () => {
    const browser = new FakeBrowserDriver(options);
    const llm = new ScriptedLLM();
    const empty = await rejectionOf<ConfigError>(extract(browser, { llm, instruction: '  ' }));
    expect(empty.field).toBe('instruction');
    expect(empty.message).toBe('Field `instruction` of the request of extract() must say what to extract; got "  ".');

    const notZod = await rejectionOf<ConfigError>(extract(browser, { llm, instruction: 'x', schema: { type: 'object' } as never }));
    expect(notZod.message).toBe('Field `schema` of the request of extract() must be a zod schema; got object.');

    const noModel = await rejectionOf<ConfigError>(extract(browser, { instruction: 'x' } as never));
    expect(noModel.message).toBe(
      'Field `llm` of the request of extract() must be an LLMClient (specificationVersion "v1" and a generate() method); it is missing.',
    );

    const chunk = await rejectionOf<ConfigError>(extract(browser, { llm, instruction: 'x' }, { maxChunkChars: 10 }));
    expect(chunk.message).toBe('Option `maxChunkChars` of extract() must be at least 1000; got 10.');
    expect(browser.calls).toEqual([]);
  });

  describe('cancel and timeout', () => {
    it('rejects at once when the signal aborts during the model call, and aborts it', async () => {
      const signals: AbortSignal[] = [];
      // A model that never answers and ignores its signal.
      const llm: LLMClient = {
        specificationVersion: 'v1',
        provider: 'stuck',
        model: 'stuck-model',
        generate: (request) => {
          if (request.signal) signals.push(request.signal);
          return new Promise(() => undefined);
        },
      };
      const controller = new AbortController();
      const call = rejectionOf<RequestCancelledError>(extract(new FakeBrowserDriver(options), { llm, instruction: 'the mugs' }, { signal: controller.signal }));
      await vi.waitFor(() => expect(signals).toHaveLength(1));
      controller.abort();

      const error = await call;
      expect(RequestCancelledError.isInstance(error)).toBe(true);
      expect(error.message).toBe('extract() was cancelled.');
      expect(signals[0]?.aborted).toBe(true);
    });

    it('rejects at once when the signal aborts while the page is read', async () => {
      const browser = new HangingDriver('frames', options);
      const controller = new AbortController();
      const call = rejectionOf(extract(browser, { llm: new ScriptedLLM(), instruction: 'the mugs' }, { signal: controller.signal }));
      await vi.waitFor(() => expect(browser.hungSignals).toHaveLength(1));
      controller.abort();
      expect(RequestCancelledError.isInstance(await call)).toBe(true);
      expect(browser.hungSignals[0]?.aborted).toBe(true);
    });

    it('fails with a TimeoutError when the model takes too long, and leaves no timer behind', async () => {
      vi.useFakeTimers();
      const llm = new ScriptedLLM({ responses: [{ fail: 'hang' }] });
      const call = rejectionOf<TimeoutError>(extract(new FakeBrowserDriver(options), { llm, instruction: 'the mugs' }, { timeout: 3000 }));
      await vi.advanceTimersByTimeAsync(3000);

      const error = await call;
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect(error.timeoutMs).toBe(3000);
      expect(error.message).toBe('extract() did not finish within its timeout of 3000 ms. Give it a longer `timeout`, or none.');
      expect(llm.requests[0]?.signal?.aborted).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});

describe('extract with an ActionCache', () => {
  /** A model that reads the prices from the page text it is sent, so its answer shows what it read. */
  const priceReader = (): ScriptedLLM =>
    new ScriptedLLM({
      respond: ({ lastUserText }) => ({
        object: { products: [...lastUserText.matchAll(/(\w+ mug): \$(\d+)/g)].map(([, name, price]) => ({ name, price: Number(price) })) },
      }),
    });

  it('answers from the cache, with no model call, while the page text is the same; other text or another instruction is a miss', async () => {
    const browser = new FakeBrowserDriver(options);
    const events: ActionCacheEvent[] = [];
    const cache = new ActionCache({ onEvent: (event) => events.push(event) });
    const llm = priceReader();
    const request = { llm, instruction: 'every mug with its price', schema: products };

    const first = await extract(browser, request, { cache });
    expect(first.products).toEqual([
      { name: 'Blue mug', price: 4 },
      { name: 'Red mug', price: 6 },
    ]);
    expect(llm.callCount).toBe(1);
    await browser.goto(mugs);
    expect(await extract(browser, { ...request, instruction: 'Every  mug with its price' }, { cache })).toEqual(first);
    expect(llm.callCount).toBe(1);

    browser.updateContent(['Blue mug: $9', 'Red mug: $6']);
    expect((await extract(browser, request, { cache })).products[0]).toEqual({ name: 'Blue mug', price: 9 });
    expect(llm.callCount).toBe(2);
    await extract(browser, { ...request, instruction: 'the cheapest mug' }, { cache });
    expect(llm.callCount).toBe(3);
    // The same instruction with another schema is another entry.
    const namer = new ScriptedLLM({ respond: () => ({ object: { names: ['Blue mug', 'Red mug'] } }) });
    await extract(browser, { ...request, llm: namer, schema: z.object({ names: z.array(z.string()) }) }, { cache });
    expect(namer.callCount).toBe(1);

    expect(cache.stats()).toEqual({ hits: 1, misses: 4, heals: 0 });
    expect(events.slice(0, 2).map((event) => [event.type, event.call, event.usage.calls])).toEqual([
      ['cache-miss', 'extract', 1],
      ['cache-hit', 'extract', 0],
    ]);
  });

  it('extracts again when the schema no longer accepts the cached answer', async () => {
    const browser = new FakeBrowserDriver(options);
    const entries = new Map<string, ActionCacheEntry>();
    const store: ActionCacheStore = { get: (key) => entries.get(key), set: (key, entry) => void entries.set(key, entry), delete: () => undefined };
    const cache = new ActionCache({ store });
    const llm = priceReader();
    await extract(browser, { llm, instruction: 'every mug with its price', schema: products }, { cache });
    for (const [key, entry] of entries) entries.set(key, { ...entry, data: { products: 'not a list' } });
    const again = await extract(browser, { llm, instruction: 'every mug with its price', schema: products }, { cache });
    expect(again.products).toHaveLength(2);
    expect(llm.callCount).toBe(2);
    expect(cache.stats()).toEqual({ hits: 0, misses: 2, heals: 0 });
  });

  it('refuses a cache that is not an ActionCache', async () => {
    const error = await rejectionOf<ConfigError>(
      extract(new FakeBrowserDriver(options), { llm: priceReader(), instruction: 'x' }, { cache: new Map() as never }),
    );
    expect(error.field).toBe('cache');
  });
});
