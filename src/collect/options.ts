// The options of a collection run and their check at the boundary: a bad option is a ConfigError
// naming the field, before any browser or model is touched. No browser or model calls here.

import { z } from 'zod';
import type { Action } from '../actions/types';
import { browserDriverProblem } from '../browser/driver-check';
import type { BrowserDriver } from '../browser/types';
import { ConfigError } from '../errors';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { modelRetryOptionsSchema } from '../llm/retry';
import type { PriceTable } from '../llm/usage';
import type { SecretsOption } from '../security/secrets';
import type { UrlPolicyOptions } from '../security/url-policy';
import { isObjectSchema } from './page-extraction';
import type { PageRetryOptions } from './page-retry';
import type { CollectionStore } from './store';

/**
 * Following each record's own page to complete it.
 * @public
 */
export interface DetailPagesOptions<TRecord = unknown> {
  /**
   * The address of a record's own page, from the record as the listing showed it (fields may be missing).
   * @defaultValue the first field whose value is an http(s) address on the listing's host (or a path)
   * @example `(job) => job.link`
   */
  readonly url?: ((record: Partial<TRecord>) => string | undefined) | undefined;
  /**
   * How many records' own pages one extraction call reads (a slot loads them one after another,
   * then asks once; fewer when the queue has fewer ready, or their text passes `maxChunkChars`).
   * 1 reads each page alone.
   * @defaultValue 12
   */
  readonly perCall?: number | undefined;
}

/**
 * What a run that resumes from a checkpoint does with the pages the earlier run gave up.
 * @public
 */
export interface ResumeOptions {
  /** Queue the pages that failed all their attempts again. @defaultValue true */
  readonly retryFailed?: boolean | undefined;
  /** Queue the pages of batches given up after `maxFailures` failures in a row again. @defaultValue true */
  readonly retryAbandoned?: boolean | undefined;
}

/**
 * A pool of browsers for concurrent pages: `create()` is called lazily, at most `size` times; the
 * collection closes the browsers it created when it ends.
 * @public
 */
export interface BrowserPool {
  /** Makes one more browser. */
  create(): Promise<BrowserDriver>;
  /** The most browsers the pool makes. */
  readonly size: number;
}

/**
 * Politeness towards one host.
 * @public
 */
export interface PerHostLimit {
  /** The most pages of one host loaded at the same time. @defaultValue `concurrency` */
  readonly maxConcurrent?: number | undefined;
  /** Milliseconds between the starts of two pages of one host. @defaultValue 0 */
  readonly delayMs?: number | undefined;
}

/**
 * Options of {@link Collector}. `TRecord` is the output type of `schema`,
 * the zod schema of ONE record.
 * @public
 */
export interface CollectOptions<TRecord = unknown> {
  /** The model of every role that has no model of its own. */
  readonly llm: LLMClient;
  /** The model of the progress checks. @defaultValue `llm` */
  readonly plannerLLM?: LLMClient | undefined;
  /** The model that reads the pages for records. @defaultValue `llm` */
  readonly extractionLLM?: LLMClient | undefined;
  /** The model that surveys each page (next pages, what blocks it) and runs the short interaction tasks. @defaultValue `llm` */
  readonly navigatorLLM?: LLMClient | undefined;
  /** The browser: it loads one page at a time. For concurrent pages give `browsers`. */
  readonly browser?: BrowserDriver | undefined;
  /**
   * Browsers for concurrent pages: an array of drivers, or a {@link BrowserPool}. Each browser
   * loads one page at a time. Give `browser` or `browsers`, not both.
   */
  readonly browsers?: readonly BrowserDriver[] | BrowserPool | undefined;
  /**
   * Start URLs: each is the first page of a listing, and the model finds the next ones
   * (pagination links, a "load more" button, infinite scroll).
   * @example `'https://jobs.example/list?page=1'`
   */
  readonly start?: string | readonly string[] | undefined;
  /** A known list of URLs to collect, each read as one page (their links are followed too). */
  readonly urls?: readonly string[] | undefined;
  /**
   * What to collect, in plain words.
   * @example `'every job posting: title, company, salary, link'`
   */
  readonly instruction: string;
  /**
   * The zod schema of one record. Each record the model finds is validated alone: an invalid one
   * is dropped and counted, never fatal. Describe fields with `.describe()`: the model reads it.
   * @example `z.object({ title: z.string(), company: z.string(), salary: z.string().nullable(), link: z.string() })`
   */
  readonly schema: z.ZodType<TRecord>;
  /**
   * The de-duplication key of a record: a record whose key was seen is dropped and counted.
   * @defaultValue the record's JSON (identical records are one)
   * @example `(job) => job.link`
   */
  readonly key?: ((record: TRecord) => string) | undefined;
  /** The most pages read (started), failed ones included. @defaultValue no limit */
  readonly maxPages?: number | undefined;
  /** The most records kept; the run ends when it has them. @defaultValue no limit */
  readonly maxRecords?: number | undefined;
  /** A progress check every this many finished pages. @defaultValue 10 */
  readonly checkEvery?: number | undefined;
  /** Consecutive failed pages of one batch that abandon the batch's queued pages. @defaultValue 3 */
  readonly maxFailures?: number | undefined;
  /** Pages read at the same time, at most one per browser. @defaultValue 1 */
  readonly concurrency?: number | undefined;
  /** Politeness per host. @defaultValue no limit beyond `concurrency`, no delay */
  readonly perHost?: PerHostLimit | undefined;
  /** The hosts and URLs the browser may load; a URL it denies is never enqueued. @defaultValue every http(s) URL */
  readonly urlPolicy?: UrlPolicyOptions | undefined;
  /** Secrets for the interaction tasks (a login form): the models never see their values, and records are redacted. */
  readonly secrets?: SecretsOption | undefined;
  /** Actions added to the built-in ones for the interaction tasks. @defaultValue `[]` */
  readonly actions?: readonly Action[] | undefined;
  /** The most Navigator steps of the short task that gets a page ready (a cookie wall, a "show all" button). @defaultValue 5 */
  readonly interactionSteps?: number | undefined;
  /** The most "load more" clicks or scrolls on one page. @defaultValue 20 */
  readonly maxLoadMore?: number | undefined;
  /** Milliseconds one page may take, model calls included; past them the page failed. @defaultValue 120000 */
  readonly pageTimeout?: number | undefined;
  /** Cancels the run: it ends `cancelled`. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the whole run may take: it then ends `timed-out`. @defaultValue no limit */
  readonly timeout?: number | undefined;
  /**
   * Where records, page outcomes and the checkpoint go. A run given a store that holds a checkpoint
   * resumes it: finished pages are not read again and stored records are not written again.
   * @defaultValue an in-memory store ({@link memoryCollectionStore})
   */
  readonly store?: CollectionStore | undefined;
  /** How transient model failures are retried. @defaultValue 3 retries with backoff */
  readonly modelRetry?: ModelRetryOptions | undefined;
  /** Prices per model id, for the cost in the summary. */
  readonly prices?: PriceTable | undefined;
  /** The most characters of page text per extraction call; longer pages are read in parts. @defaultValue 30000 */
  readonly maxChunkChars?: number | undefined;
  /**
   * How pages that fail for a reason that may pass (5xx, 429 with `Retry-After`, a timeout, a
   * network error, a crashed page, an error page) are tried again. Only a page that fails all its
   * attempts is failed and counts towards `maxFailures`.
   * @defaultValue 3 attempts, 1 s backoff doubling up to 30 s
   */
  readonly retry?: PageRetryOptions | undefined;
  /** What a resumed run does with failed and abandoned pages. @defaultValue both are queued again */
  readonly resume?: ResumeOptions | undefined;
  /**
   * Complete records from their own pages: a record that lacks a field of the schema on the listing
   * is read again from its own page (politely, resumably, once per address), and kept when it is
   * then whole; else it goes to the rejects with the reason. Needs an object schema.
   * @defaultValue off: a record that fails its schema is rejected
   */
  readonly details?: boolean | DetailPagesOptions<TRecord> | undefined;
}

const llmClient = z.custom<LLMClient>(
  (value) =>
    typeof value === 'object' && value !== null && (value as LLMClient).specificationVersion === 'v1' && typeof (value as LLMClient).generate === 'function',
  { error: 'must be an LLMClient (specificationVersion "v1" and a generate() method)' },
);
const browserDriver = z.custom<BrowserDriver>().superRefine((value, context) => {
  const problem = browserDriverProblem(value);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});
const browserPool = z.custom<BrowserPool>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BrowserPool).create === 'function' &&
    Number.isInteger((value as BrowserPool).size) &&
    (value as BrowserPool).size > 0,
  { error: 'must be an array of BrowserDrivers or { create(), size } with a positive integer size' },
);
const positiveInteger = z.number({ error: 'must be a number' }).int('must be an integer').positive('must be a positive integer');
const nonNegative = z.number({ error: 'must be a number' }).nonnegative('must be 0 or more');
const httpUrl = z
  .string({ error: 'must be a string' })
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an absolute http(s) URL');
const store = z.custom<CollectionStore>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as CollectionStore).load === 'function' &&
    typeof (value as CollectionStore).commit === 'function',
  { error: 'must be a CollectionStore (load() and commit())' },
);

const optionsSchema = z
  .object({
    llm: llmClient,
    plannerLLM: llmClient.optional(),
    extractionLLM: llmClient.optional(),
    navigatorLLM: llmClient.optional(),
    browser: browserDriver.optional(),
    browsers: z.union([z.array(browserDriver).min(1, 'must hold at least one browser'), browserPool]).optional(),
    start: z.union([httpUrl, z.array(httpUrl)]).optional(),
    urls: z.array(httpUrl).optional(),
    instruction: z.string({ error: 'must be a string' }).trim().min(1, 'must say what to collect'),
    schema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' }),
    key: z.custom<(record: unknown) => string>((value) => typeof value === 'function', { error: 'must be a function' }).optional(),
    maxPages: positiveInteger.optional(),
    maxRecords: positiveInteger.optional(),
    checkEvery: positiveInteger.default(10),
    maxFailures: positiveInteger.default(3),
    concurrency: positiveInteger.default(1),
    perHost: z.object({ maxConcurrent: positiveInteger.optional(), delayMs: nonNegative.optional() }).strict().optional(),
    urlPolicy: z
      .object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
      .strict()
      .default({}),
    secrets: z.unknown().optional(),
    actions: z
      .array(z.custom<Action>((value) => typeof value === 'object' && value !== null && typeof (value as Action).handler === 'function', 'must be an action'))
      .default([]),
    interactionSteps: z.number({ error: 'must be a number' }).int('must be an integer').nonnegative('must be 0 or more').default(5),
    maxLoadMore: z.number({ error: 'must be a number' }).int('must be an integer').nonnegative('must be 0 or more').default(20),
    pageTimeout: positiveInteger.default(120_000),
    signal: z.custom<AbortSignal>((value) => typeof value === 'object' && value !== null && 'aborted' in value, { error: 'must be an AbortSignal' }).optional(),
    timeout: positiveInteger.optional(),
    store: store.optional(),
    modelRetry: modelRetryOptionsSchema.default({}),
    prices: z.record(z.string(), z.unknown()).optional(),
    maxChunkChars: z.number().int().min(1000, 'must be at least 1000').optional(),
    retry: z
      .object({
        attempts: positiveInteger.optional(),
        minDelayMs: nonNegative.optional(),
        maxDelayMs: nonNegative.optional(),
        factor: z.number({ error: 'must be a number' }).min(1, 'must be at least 1').optional(),
      })
      .strict()
      .default({}),
    resume: z.object({ retryFailed: z.boolean().optional(), retryAbandoned: z.boolean().optional() }).strict().default({}),
    details: z
      .union([
        z.boolean(),
        z
          .object({
            url: z.custom<(record: unknown) => string | undefined>((value) => typeof value === 'function', { error: 'must be a function' }).optional(),
            perCall: z.number().int().min(1, 'must be at least 1').max(50, 'must be at most 50').optional(),
          })
          .strict(),
      ])
      .optional(),
  })
  .strict();

/** The options after defaults. */
export type ResolvedCollectOptions = Omit<z.output<typeof optionsSchema>, 'prices'> & { readonly prices: PriceTable | undefined };

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  return current;
}

/**
 * Checks the options and fills in the defaults.
 * @throws `ConfigError` naming the first invalid field.
 */
export function resolveCollectOptions<TRecord>(input: CollectOptions<TRecord>): ResolvedCollectOptions {
  const parsed = optionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    if (issue.code === 'unrecognized_keys') {
      const field = [...issue.path, issue.keys[0] ?? ''].join('.');
      throw new ConfigError(`Unknown option \`${field}\` of the collection. Check its spelling.`, { field });
    }
    const field = issue.path.join('.');
    const value = valueAt(input, issue.path);
    const got = value === undefined ? 'it is missing' : `got ${describeValue(value)}`;
    throw new ConfigError(`Option \`${field}\` of the collection ${issue.message}; ${got}.`, { field });
  }
  const options = parsed.data;
  if (options.browser === undefined && options.browsers === undefined) {
    throw new ConfigError('The collection needs a browser: give `browser` (one driver) or `browsers` (several, for concurrency).', { field: 'browser' });
  }
  if (options.browser !== undefined && options.browsers !== undefined) {
    throw new ConfigError('Give `browser` or `browsers`, not both.', { field: 'browsers' });
  }
  const starts = options.start === undefined ? [] : typeof options.start === 'string' ? [options.start] : options.start;
  if (starts.length === 0 && (options.urls ?? []).length === 0) {
    throw new ConfigError('The collection needs somewhere to start: give `start` (listing URLs) or `urls` (a known list).', { field: 'start' });
  }
  if (options.details && !isObjectSchema(input.schema)) {
    throw new ConfigError('Option `details` needs an object schema (z.object({...})): the fields a listing lacks are read from the record\u2019s own page.', {
      field: 'details',
    });
  }
  return { ...options, prices: options.prices as PriceTable | undefined };
}
