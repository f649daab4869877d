// extract(): structured data from the current page with a zod schema, without the loop, through
// the extract_content action's reading (every frame as markdown, long pages in parts). Never navigates.

import { z } from 'zod';
import { createActionContext } from '../actions/action-context';
import { extractContentAction } from '../actions/builtin/extract-content';
import type { BrowserDriver, CallOptions } from '../browser/types';
import { ActionError, ChatModelOutputError, PlannavError } from '../errors';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { UrlPolicy } from '../security/url-policy';
import { BrowserSession } from '../session/index';
import { boundedCall } from '../util/bounded-call';
import { callOptionsShape, checkArgument, checkBrowser } from './options';

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
    retry: z
      .object({
        retries: z.number().int().nonnegative().optional(),
        minTimeout: z.number().int().nonnegative().optional(),
        maxTimeout: z.number().int().nonnegative().optional(),
        maxRetryTime: z.number().int().nonnegative().optional(),
      })
      .strict()
      .optional(),
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

  return boundedCall('extract()', checked, async (signal) => {
    const context = createActionContext({
      driver,
      state: undefined,
      signal,
      extractionLLM: llm,
      taskId: 'extract',
      step: 1,
      uploadPaths: [],
      urlPolicy: noNavigation,
      askHuman: () => Promise.resolve({ answer: undefined, timedOut: false }),
    });
    // A page another framework has just loaded may still be loading or about to redirect: read it once it has settled.
    await session.settle(signal);
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
    return result.data as z.output<S>;
  });
}
