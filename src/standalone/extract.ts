// extract(): structured data from the current page with a zod schema, without the loop, through
// the extract_content action's reading (every frame as markdown, long pages in parts), or from the
// action cache when the same page text was read for the same instruction and schema. Never navigates.

import { z } from 'zod';
import { createActionContext } from '../actions/action-context';
import { extractContentAction, readPage } from '../actions/builtin/extract-content';
import type { ActionContext } from '../actions/types';
import type { BrowserDriver, CallOptions } from '../browser/types';
import { ActionCache, cacheAccess, type ActionCacheAccess } from '../cache/action-cache';
import type { ActionCacheEntry } from '../cache/cache-entry';
import { hashText, urlSignature } from '../cache/page-signature';
import { ActionError, ChatModelOutputError, PlannavError } from '../errors';
import type { ModelRetryOptions } from '../llm/generate-object';
import { toModelJsonSchema } from '../llm/json-schema';
import type { LLMClient } from '../llm/types';
import type { TokenUsage } from '../llm/usage';
import { UrlPolicy } from '../security/url-policy';
import { BrowserSession } from '../session/index';
import { boundedCall } from '../util/bounded-call';
import { callOptionsShape, checkArgument, checkBrowser, modelRetrySchema } from './options';
import { countingClient } from './usage-counter';

/**
 * What {@link extract} reads from the page, and with which model.
 * @public
 */
export interface ExtractRequest<S extends z.ZodType = z.ZodString> {
  /** The model that reads the page. */
  readonly llm: LLMClient;
  /**
   * What to extract, specific and complete.
   * @example `'every product on the page with its name and price'`
   */
  readonly instruction: string;
  /**
   * The shape of the result: the model's answer is validated against it (with one repair round)
   * and returned as `z.output<typeof schema>`. Describe fields with `.describe()`: the model reads it.
   * @defaultValue `z.string()`: a text answer
   * @example `z.object({ products: z.array(z.object({ name: z.string(), price: z.number() })) })`
   */
  readonly schema?: S | undefined;
  /**
   * Keep the URLs of links and images in the page text the model reads (more tokens).
   * @defaultValue false
   */
  readonly includeLinks?: boolean | undefined;
}

/**
 * Options of {@link extract}.
 * @public
 */
export interface ExtractOptions extends CallOptions {
  /**
   * Aborts the call: it rejects at once with a `RequestCancelledError`, and the page read or the
   * model call in flight is aborted.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds the call may take, page read and model calls together; past them it rejects
   * with a `TimeoutError`.
   * @defaultValue no timeout
   */
  readonly timeout?: number | undefined;
  /**
   * The most characters of page text sent to the model in one call; a longer page is read in
   * parts and the parts' answers merged by one more call.
   * @defaultValue 30000
   */
  readonly maxChunkChars?: number | undefined;
  /**
   * The most parts read; the rest of a longer page is not read.
   * @defaultValue 5
   */
  readonly maxChunks?: number | undefined;
  /** How transient model failures (429, 5xx, timeouts) are retried. @defaultValue 3 retries with backoff */
  readonly retry?: ModelRetryOptions | undefined;
  /**
   * Where answers are kept (see {@link ActionCache}), by instruction, schema, `includeLinks` and the
   * page's address without query values: a call on a page whose text is the same as when the answer
   * was extracted returns it with no model call; any change of the text is a miss, and the answer
   * is extracted again and replaces the entry. The cache's `stats()` and `onEvent` say which it was.
   * An answer the schema no longer accepts is extracted again.
   * @defaultValue no cache
   * @example `await extract(browser, { llm, instruction: 'the order total', schema }, { cache })`
   */
  readonly cache?: ActionCache | undefined;
}

const requestSchema = z
  .object({
    llm: z.custom<LLMClient>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        (value as LLMClient).specificationVersion === 'v1' &&
        typeof (value as LLMClient).generate === 'function',
      { error: 'must be an LLMClient (specificationVersion "v1" and a generate() method)' },
    ),
    instruction: z.string({ error: 'must be a string' }).trim().min(1, 'must say what to extract'),
    schema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' }).optional(),
    includeLinks: z.boolean({ error: 'must be a boolean' }).default(false),
  })
  .strict();

const optionsSchema = z
  .object({
    ...callOptionsShape,
    maxChunkChars: z
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(1000, 'must be at least 1000')
      .max(1_000_000, 'must be at most 1000000')
      .optional(),
    maxChunks: z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').optional(),
    retry: modelRetrySchema,
    cache: z.custom<ActionCache>((value) => value instanceof ActionCache, { error: 'must be an ActionCache made with `new ActionCache()`' }).optional(),
  })
  .strict();

const textAnswer = z
  .string()
  .describe('What the page says for the instruction, complete, with names, numbers and URLs exactly as written; or that the page does not say it.');

/** No page is loaded by extract(): the policy is never asked, but the context needs one. */
const noNavigation = new UrlPolicy({});

/**
 * The error extract() rejects with for a failure the action wrapped for the Navigator: the model's
 * own error, with an unusable answer re-told for the caller.
 */
function callerError(error: unknown, llm: LLMClient): unknown {
  if (!ActionError.isInstance(error) || !PlannavError.isInstance(error.cause)) return error;
  const cause = error.cause;
  if (ChatModelOutputError.isInstance(cause)) {
    return new ChatModelOutputError(`extract(): the answer of ${llm.model} does not match the schema, also after one repair round. ${cause.message}`, {
      cause,
      text: cause.text,
      requestId: cause.requestId,
    });
  }
  return cause;
}

/** Reads again at most this many times a page that moved on while it was read empty. */
const maxRereads = 50;

/**
 * Extracts structured data from the active tab with a model and a zod schema, on any
 * {@link BrowserDriver}, without the loop. The page (every visible frame, also what is scrolled out
 * of view) is read as markdown the way the `extract_content` action reads it, inside
 * untrusted-content tags; long pages go in parts of `maxChunkChars`, whose answers are merged.
 * The page is read once it has settled, and from one document: when a navigation replaces the
 * document while it is read (a redirect, a page that changes its `location`), it is read again in
 * the new one, within `timeout`.
 *
 * @example
 * ```ts
 * const { products } = await extract(browser, {
 *   llm,
 *   instruction: 'every product with its name and price',
 *   schema: z.object({ products: z.array(z.object({ name: z.string(), price: z.number() })) }),
 * }, { timeout: 60_000 });
 * ```
 * @returns The model's answer, validated by `schema`: `z.output<typeof schema>` (a string without a schema).
 * @throws `ChatModelOutputError` when the model's answer does not match the schema after one
 * repair round; another `ChatModelError` when the model call fails (after retries);
 * `ActionError` when the page has no readable text; `ConfigError` for a bad argument;
 * `RequestCancelledError` when `signal` aborts; `TimeoutError` when `timeout` runs out;
 * `BrowserError` when the page cannot be read.
 * @public
 */
export async function extract<S extends z.ZodType = z.ZodString>(
  browser: BrowserDriver,
  request: ExtractRequest<S>,
  options: ExtractOptions = {},
): Promise<z.output<S>> {
  checkBrowser(browser, 'extract()');
  const checkedRequest = checkArgument(requestSchema, request, 'the request of extract()', 'Field');
  const checked = checkArgument(optionsSchema, options, 'extract()');
  const action = extractContentAction({
    name: 'extract',
    schema: checkedRequest.schema ?? textAnswer,
    maxChunkChars: checked.maxChunkChars,
    maxChunks: checked.maxChunks,
    retry: checked.retry,
  });
  const params = action.schema.parse({ goal: checkedRequest.instruction, include_links: checkedRequest.includeLinks });
  const session = new BrowserSession(browser);
  const { driver } = session;
  const llm = checkedRequest.llm;

  const model = countingClient(llm);
  const schema = checkedRequest.schema ?? textAnswer;

  return boundedCall('extract()', checked, async (signal) => {
    const context = createActionContext({
      driver,
      state: undefined,
      signal,
      extractionLLM: model.client,
      taskId: 'extract',
      step: 1,
      uploadPaths: [],
      urlPolicy: noNavigation,
      askHuman: () => Promise.resolve({ answer: undefined, timedOut: false }),
    });
    // A page another framework has just loaded may still be loading or about to redirect: read it once it has settled.
    await session.settle(signal);
    const lookup = checked.cache
      ? await lookUp(cacheAccess(checked.cache), context, {
          instruction: checkedRequest.instruction,
          schema,
          includeLinks: checkedRequest.includeLinks,
          url: await driver.currentUrl({ signal }),
        })
      : undefined;
    if (lookup?.hit) {
      lookup.store.report({
        type: 'cache-hit',
        call: 'extract',
        instruction: lookup.instruction,
        url: lookup.url,
        key: lookup.key,
        usage: model.usage(),
        storeError: lookup.storeError,
      });
      return lookup.hit.data as z.output<S>;
    }
    const read = () =>
      action.handler(params, context).catch((error: unknown) => {
        throw callerError(error, llm);
      });
    let readFrom = await driver.currentUrl({ signal });
    let result = await read();
    // A page without readable text that has moved on meanwhile (a redirect, a chain of loads) was
    // read between two documents: read the next one once it has settled, while the call's time
    // allows. Bounded: the timeout aborts the signal, and a page that stays put ends it at once.
    for (let hop = 0; hop < maxRereads && (typeof result === 'string' || !('data' in result)); hop++) {
      const now = await driver.currentUrl({ signal });
      if (now === readFrom) break;
      await session.settle(signal);
      readFrom = await driver.currentUrl({ signal });
      result = await read();
    }
    // Every answer comes with `data`; only a page without readable text comes without.
    if (typeof result === 'string' || !('data' in result)) {
      const said = typeof result === 'string' ? result : (result.extractedContent ?? 'The page has no readable text.');
      throw new ActionError('extract', `extract() found nothing to read: ${said} Load a page with content first.`);
    }
    if (lookup) await remember(lookup, context, checkedRequest.includeLinks, result.data, model.usage());
    return result.data as z.output<S>;
  });
}

/** A cache lookup of extract(): the entry's key and the page's text hash, and the answer when it is a hit. */
interface ExtractLookup {
  readonly store: ActionCacheAccess;
  readonly key: string;
  readonly url: string;
  readonly instruction: string;
  /** The hash of the page's text when it was looked up. */
  readonly content: string;
  /** The hash of the page's whole address. */
  readonly pageHash: string;
  readonly previous: ActionCacheEntry | undefined;
  readonly storeError: string | undefined;
  /** The cached answer, checked by the schema: a hit. */
  readonly hit?: { readonly data: unknown } | undefined;
}

/** The hash of the page's text as extract_content reads it (every frame, as markdown). */
async function contentHash(context: ActionContext, includeLinks: boolean): Promise<string> {
  const page = await readPage(context, includeLinks);
  return hashText(page.markdown);
}

/** Looks the call up: a hit when an entry holds an answer read from the same text, which the schema still accepts. */
async function lookUp(
  store: ActionCacheAccess,
  context: ActionContext,
  request: { readonly instruction: string; readonly schema: z.ZodType; readonly includeLinks: boolean; readonly url: string },
): Promise<ExtractLookup> {
  const url = urlSignature(request.url);
  const instruction = request.instruction.replace(/\s+/g, ' ').trim();
  const shape = JSON.stringify(toModelJsonSchema(request.schema));
  const key = await hashText(JSON.stringify(['extract', 1, instruction.toLowerCase(), shape, request.includeLinks, url]));
  const content = await contentHash(context, request.includeLinks);
  const read = await store.read(key, 'extract');
  const pageHash = await hashText(request.url.replace(/#.*$/s, ''));
  const base = { store, key, url, instruction, content, pageHash, previous: read.entry, storeError: read.error };
  if (!read.entry || read.entry.signature !== content) return base;
  const parsed = request.schema.safeParse(read.entry.data);
  return parsed.success ? { ...base, hit: { data: parsed.data } } : base;
}

/**
 * Writes the answer under the lookup's key, when the page's text is still what was looked up (a
 * page that changed during the extraction would pair its old text with a new answer), and reports the miss.
 */
async function remember(lookup: ExtractLookup, context: ActionContext, includeLinks: boolean, data: unknown, usage: TokenUsage): Promise<void> {
  let storeError = lookup.storeError;
  if (data !== undefined && (await contentHash(context, includeLinks)) === lookup.content) {
    const now = Date.now();
    const entry: ActionCacheEntry = {
      version: 1,
      kind: 'extract',
      instruction: lookup.instruction,
      url: lookup.url,
      pageHash: lookup.pageHash,
      signature: lookup.content,
      createdAt: lookup.previous?.createdAt ?? now,
      updatedAt: now,
      data,
    };
    storeError = (await lookup.store.write(lookup.key, entry)) ?? storeError;
  }
  // Another text than the entry's is another page: a miss, as is no entry.
  lookup.store.report({ type: 'cache-miss', call: 'extract', instruction: lookup.instruction, url: lookup.url, key: lookup.key, usage, storeError });
}
