// Storage state (Playwright's format) for both Chromium drivers: reading and checking a state given as
// an object or a file, writing one readable by its owner only, and, over plain CDP, the cookies and the
// localStorage of any origin through a hidden page. It never logs a cookie's or an item's value.

import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { StorageState, StorageStateCookie, StorageStateOrigin } from '../browser/storage-state';
import { ConfigError } from '../errors';
import { firstLine } from './call';

const cookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string(),
  expires: z.number(),
  httpOnly: z.boolean(),
  secure: z.boolean(),
  sameSite: z.enum(['Strict', 'Lax', 'None']),
});

const originSchema = z.object({
  origin: z.string().refine((value) => URL.canParse(value), 'must be an origin such as https://shop.example'),
  localStorage: z.array(z.object({ name: z.string(), value: z.string() })),
  indexedDB: z.array(z.unknown()).optional(),
});

const stateSchema = z.object({ cookies: z.array(cookieSchema), origins: z.array(originSchema) });

/** Where a bad state came from, for the message: the file, or the object given. */
function described(source: string | undefined): string {
  return source ? `The storage state file ${source}` : 'The `storageState` option';
}

/**
 * Checks that `value` is a storage state in Playwright's format. Extra fields (a cookie's
 * `partitionKey`) are kept as they are.
 * @throws `ConfigError` (field `storageState`) naming the first field at fault, never its value.
 */
export function checkStorageState(value: unknown, source?: string): StorageState {
  const checked = stateSchema.safeParse(value);
  if (checked.success) return value as StorageState;
  const issue = checked.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'the top level';
  // The message names the field only: a value may be a session cookie.
  throw new ConfigError(
    `${described(source)} is not a storage state: at \`${where}\` ${issue?.message ?? 'bad value'}. ` +
      'Expected Playwright\'s format, { "cookies": [{ name, value, domain, path, expires, httpOnly, secure, sameSite }], "origins": [{ origin, localStorage: [{ name, value }] }] }, ' +
      "as a driver's storageState() or Playwright's context.storageState() writes it.",
    { field: 'storageState' },
  );
}

/**
 * The storage state of the `storageState` launch option: the object itself, or the file it names.
 * @throws `ConfigError` (field `storageState`) when the file cannot be read, is not JSON, or is not a storage state.
 */
export async function loadStorageState(option: StorageState | string): Promise<StorageState> {
  if (typeof option !== 'string') return checkStorageState(option);
  const path = resolve(option);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'there is no such file' : firstLine(error);
    throw new ConfigError(
      `The storage state file ${path} could not be read (${why}). Save one first with a driver's storageState({ path }) (or \`plannav run --save-storage-state\`), or fix the path.`,
      { field: 'storageState', cause: error },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault, which may be a secret: say where only.
    throw new ConfigError(`The storage state file ${path} is not valid JSON. Save it again with a driver's storageState({ path }).`, {
      field: 'storageState',
    });
  }
  return checkStorageState(parsed, path);
}

/**
 * The checked storage state of a launch or a pool (`undefined` without one), read from its file
 * when it names one, before anything starts.
 * @throws `ConfigError` for a bad state, or for `storageState` with `userDataDir`.
 */
export async function launchStorageState(options: {
  readonly storageState?: StorageState | string | undefined;
  readonly userDataDir?: string | undefined;
}): Promise<StorageState | undefined> {
  if (options.storageState === undefined) return undefined;
  if (options.userDataDir !== undefined) {
    throw new ConfigError(
      'Give `storageState` or `userDataDir`, not both: a persistent profile keeps its own logins. Load a storage state into a fresh profile, or log in once in the persistent one.',
      { field: 'storageState' },
    );
  }
  return loadStorageState(options.storageState);
}

/**
 * Writes `state` to `path` as JSON readable by its owner only (mode 0600), replacing the file at
 * once (a temporary file renamed over it), so no reader sees half a file and an existing file's
 * looser mode does not stay.
 */
export async function writeStorageStateFile(path: string, state: StorageState): Promise<void> {
  const target = resolve(path);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600); // the umask may have narrowed it further, never widened: this fixes either way
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** The one copy of a state the driver returns and writes: `cookies` and `origins`, nothing else. */
export function storageStateOf(cookies: readonly StorageStateCookie[], origins: readonly StorageStateOrigin[]): StorageState {
  return { cookies: [...cookies], origins: [...origins] };
}

/** A CDP cookie (Network.Cookie), the fields the format keeps. */
export interface CdpCookie extends Omit<StorageStateCookie, 'sameSite'> {
  readonly session?: boolean;
  readonly sameSite?: 'Strict' | 'Lax' | 'None';
}

/** A CDP cookie in the format; a cookie without SameSite is `Lax`, as browsers treat it (and Playwright writes it). */
export function cookieFromCdp(cookie: CdpCookie): StorageStateCookie {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    expires: cookie.session || cookie.expires < 0 ? -1 : cookie.expires,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite ?? 'Lax',
  };
}

/**
 * A cookie of the format as CDP's `Storage.setCookies` takes it. A domain without a leading dot
 * makes a host-only cookie in CDP, as in the format; a session cookie has no `expires`.
 */
export function cookieToCdp(cookie: StorageStateCookie): Record<string, unknown> {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite,
    ...(cookie.expires > 0 ? { expires: cookie.expires } : {}),
  };
}

/** A CDP session as the hidden page needs it: Puppeteer's `CDPSession` has this shape. */
export interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: string, listener: (params: never) => void): unknown;
  off(event: string, listener: (params: never) => void): unknown;
}

/** How to reach the browser: its browser-level session, and the session of a target it attached to. */
export interface CdpBrowser {
  readonly browserSession: CdpSession;
  /** The session of an attached target, by the id `Target.attachToTarget` returned. */
  sessionById(sessionId: string): CdpSession | undefined;
  /** The browser context whose storage is meant; undefined for the default one. */
  readonly browserContextId: string | undefined;
}

/** The origins worth reading: web origins only (`http:`, `https:`), each once. */
export function webOrigins(urls: Iterable<string>): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    if (!URL.canParse(url)) continue;
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') origins.add(parsed.origin);
  }
  return [...origins];
}

/** How long one origin of the hidden page may take to load its empty document and answer. */
const originStepMs = 10_000;

/** Rejects after `ms` unless `work` settles first. */
async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `body` on a page for each origin: a hidden target of the browser context (no tab in any
 * list, no page event of the library), whose every request is answered with an empty document by
 * the page's own interception, so no request leaves the browser and no page script runs. Storage
 * is per origin, so what a script there reads or writes is the origin's own.
 */
export async function onEachOrigin<T>(browser: CdpBrowser, origins: readonly string[], body: (page: CdpSession, origin: string) => Promise<T>): Promise<T[]> {
  if (origins.length === 0) return [];
  const { browserSession } = browser;
  const created = (await browserSession.send('Target.createTarget', {
    url: 'about:blank',
    hidden: true,
    background: true,
    ...(browser.browserContextId ? { browserContextId: browser.browserContextId } : {}),
  })) as { targetId: string };
  try {
    const { sessionId } = (await browserSession.send('Target.attachToTarget', { targetId: created.targetId, flatten: true })) as { sessionId: string };
    const page = browser.sessionById(sessionId);
    if (!page) throw new Error('the hidden page has no session');
    const onPaused = (event: { requestId: string }): void => {
      void page
        .send('Fetch.fulfillRequest', {
          requestId: event.requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'Content-Type', value: 'text/html' }],
          body: Buffer.from('<html></html>').toString('base64'),
        })
        .catch(() => undefined);
    };
    page.on('Fetch.requestPaused', onPaused);
    await page.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] });
    await page.send('Page.enable');
    const results: T[] = [];
    for (const origin of origins) {
      let onLoad: (() => void) | undefined;
      const loaded = new Promise<void>((done) => (onLoad = done));
      page.on('Page.loadEventFired', onLoad as (params: never) => void);
      try {
        await bounded(
          (async () => {
            const navigation = (await page.send('Page.navigate', { url: `${origin}/` })) as { errorText?: string };
            if (navigation.errorText) throw new Error(`${origin} did not load: ${navigation.errorText}`);
            await loaded;
          })(),
          originStepMs,
          `The page for ${origin}`,
        );
      } finally {
        page.off('Page.loadEventFired', onLoad as (params: never) => void);
      }
      results.push(await bounded(body(page, origin), originStepMs, `The storage of ${origin}`));
    }
    return results;
  } finally {
    await browserSession.send('Target.closeTarget', { targetId: created.targetId }).catch(() => undefined);
  }
}

/** Evaluates `expression` in the hidden page and returns its JSON value. */
async function evaluateJson<T>(page: CdpSession, expression: string): Promise<T> {
  const answer = (await page.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as {
    result: { value?: unknown };
    exceptionDetails?: { text?: string; exception?: { description?: string } };
  };
  if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text ?? 'the page script failed');
  return answer.result.value as T;
}

/** The localStorage of each origin (origins with none left out), read through the hidden page. */
export async function readLocalStorage(browser: CdpBrowser, origins: readonly string[]): Promise<StorageStateOrigin[]> {
  const read = await onEachOrigin(browser, origins, async (page, origin) => {
    const items = await evaluateJson<{ name: string; value: string }[]>(
      page,
      '(() => { const items = []; for (let i = 0; i < localStorage.length; i++) { const name = localStorage.key(i); items.push({ name, value: localStorage.getItem(name) ?? "" }); } return items; })()',
    );
    return { origin, localStorage: items };
  });
  return read.filter((origin) => origin.localStorage.length > 0);
}

/** Writes each origin's localStorage items (others of the origin stay) through the hidden page. */
export async function writeLocalStorage(browser: CdpBrowser, origins: readonly StorageStateOrigin[]): Promise<void> {
  const byOrigin = new Map<string, { name: string; value: string }[]>();
  for (const origin of origins) {
    if (origin.localStorage.length === 0) continue;
    const key = new URL(origin.origin).origin;
    byOrigin.set(key, [...(byOrigin.get(key) ?? []), ...origin.localStorage]);
  }
  await onEachOrigin(browser, [...byOrigin.keys()], async (page, origin) => {
    const items = JSON.stringify(byOrigin.get(origin) ?? []);
    await evaluateJson(page, `(() => { for (const { name, value } of ${items}) localStorage.setItem(name, value); return true; })()`);
  });
}

/** Every cookie of the browser context, through `Storage.getCookies`. */
export async function readCookies(browser: CdpBrowser): Promise<StorageStateCookie[]> {
  const answer = (await browser.browserSession.send('Storage.getCookies', browser.browserContextId ? { browserContextId: browser.browserContextId } : {})) as {
    cookies: CdpCookie[];
  };
  return answer.cookies.map(cookieFromCdp);
}

/** Adds the cookies to the browser context, through `Storage.setCookies`. */
export async function writeCookies(browser: CdpBrowser, cookies: readonly StorageStateCookie[]): Promise<void> {
  if (cookies.length === 0) return;
  await browser.browserSession.send('Storage.setCookies', {
    cookies: cookies.map(cookieToCdp),
    ...(browser.browserContextId ? { browserContextId: browser.browserContextId } : {}),
  });
}
