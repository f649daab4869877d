// The navigation actions: search, go_to_url and go_back, in the active tab. Every URL they load
// passes the task's URL policy first; a site that will not load is an answer, never a crash.

import { z } from 'zod';
import type { TabInfo } from '../../browser/types';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError, isFatalError, PlannavError, URLNotAllowedError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext, ActionResult } from '../types';
import { describeThrown } from '../../util/describe-thrown';

/** The search engines `search` knows. @public */
export type SearchEngine = 'duckduckgo' | 'google' | 'bing';

/**
 * The results page of `engine` for `query`, the query URL-encoded as one parameter (so `&`, `#`,
 * `+` and any script reach the engine as typed). Google asks for plain web results (`udm=14`).
 */
export function searchUrl(query: string, engine: SearchEngine = 'duckduckgo'): string {
  const encoded = encodeURIComponent(query);
  switch (engine) {
    case 'google':
      return `https://www.google.com/search?q=${encoded}&udm=14`;
    case 'bing':
      return `https://www.bing.com/search?q=${encoded}`;
    default:
      return `https://duckduckgo.com/?q=${encoded}`;
  }
}

/** A URL ready to load, and what was changed to make it one. */
export interface NormalizedUrl {
  readonly url: string;
  /** Said to the model when the URL was completed, such as `https://` added to a bare host. */
  readonly note: string;
}

const loopbackHost = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$|\.localhost(?::\d+)?$/i;

/**
 * Completes what the model wrote into a URL. A bare host (`example.com/path`, `localhost:3000`)
 * gets `https://`, or `http://` for loopback hosts (local servers rarely have certificates);
 * `//host` gets `https:`. `javascript:` URLs are refused (they would run code in the page).
 * @throws `ActionError` (recoverable) when the text is not a URL.
 */
export function normalizeUrl(action: string, input: string): NormalizedUrl {
  const text = input.trim();
  if (/^javascript:/i.test(text)) {
    throw new ActionError(action, 'javascript: URLs cannot be opened; act on the page through its elements instead.');
  }
  const hostWithPort = /^[^/:?#\s]+:\d+(?:[/?#]|$)/.test(text);
  const hasScheme = !hostWithPort && /^[a-z][a-z0-9+.-]*:/i.test(text);
  let candidate = text;
  let note = '';
  if (text.startsWith('//')) {
    candidate = `https:${text}`;
    note = `The URL had no scheme; loaded it over https: ${candidate}.`;
  } else if (!hasScheme) {
    const host = /^[^/?#]*/.exec(text)?.[0] ?? '';
    const bareName = !host.includes('.') && !loopbackHost.test(host) && !host.startsWith('[');
    if (!host || /\s/.test(text) || bareName) {
      throw new ActionError(action, `${JSON.stringify(input)} is not a URL. Give a full address such as https://example.com, or use search to look it up.`);
    }
    const scheme = loopbackHost.test(host) ? 'http' : 'https';
    candidate = `${scheme}://${text}`;
    note = `The URL had no scheme; loaded ${candidate}.`;
  }
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    throw new ActionError(action, `${JSON.stringify(input)} is not a valid URL. Give a full address such as https://example.com, or use search to look it up.`);
  }
  if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && !parsed.hostname) {
    throw new ActionError(action, `${JSON.stringify(input)} has no host. Give a full address such as https://example.com.`);
  }
  return { url: parsed.href, note };
}

/**
 * Refuses a `javascript:` URL the way the URL policy refuses a denied one (which it is: no policy
 * allows the scheme): the task hears of it as a `url-blocked` event and the action fails with a
 * recoverable `URLNotAllowedError`, so `onBlocked: 'end-task'` ends the task as for any other.
 * Does nothing for other text. (`normalizeUrl` refuses it too, for callers without a context.)
 */
export function refuseScriptUrl(context: ActionContext, input: string): void {
  const text = input.trim();
  if (/^javascript:/i.test(text)) context.assertUrlAllowed(text);
}

/** Chromium's network errors that mean the site could not be reached. */
const unreachable =
  /net::ERR_(NAME_NOT_RESOLVED|CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|CONNECTION_FAILED|CONNECTION_TIMED_OUT|ADDRESS_UNREACHABLE|ADDRESS_INVALID|INTERNET_DISCONNECTED|TIMED_OUT|EMPTY_RESPONSE|SSL_PROTOCOL_ERROR|CERT_[A-Z_]+|NAME_RESOLUTION_FAILED|NETWORK_CHANGED|TUNNEL_CONNECTION_FAILED|PROXY_CONNECTION_FAILED)/;

/**
 * The result for a load that failed: a policy refusal or a cancel is thrown on, an unreachable
 * site becomes the recoverable "site unavailable" error. `stopSequence`: the tab may now show an
 * error page, so the rest of the step's actions must not run against it.
 */
export function loadFailure(url: string, error: unknown): ActionResult {
  if (isFatalError(error) || URLNotAllowedError.isInstance(error)) throw error;
  const message = describeThrown(error);
  const network = /net::ERR_[A-Z_]+/.exec(message)?.[0];
  let reason: string;
  if (network === 'net::ERR_BLOCKED_BY_CLIENT') reason = 'the browser blocked it (the URL policy or a content blocker)';
  else if (network && unreachable.test(network)) reason = `site unavailable (${network})`;
  else if (network) reason = `the browser could not load it (${network})`;
  else if (/timeout|timed out/i.test(message)) reason = 'site unavailable (it did not answer in time)';
  else if (PlannavError.isInstance(error)) return { error: message, includeInMemory: true, stopSequence: true };
  else reason = message.split('\n')[0] ?? message;
  return {
    error: `Could not load ${url}: ${reason}. Check the address, try again later, or try another site.`,
    includeInMemory: true,
    stopSequence: true,
  };
}

/** `title (url)` of a tab, for results. */
export function describeTab(tab: TabInfo): string {
  return tab.title ? `${JSON.stringify(tab.title)} (${tab.url})` : tab.url;
}

/** Loads a URL the policy allows in the active tab and says where the tab ended up. */
async function load(context: ActionContext, url: string, done: (tab: TabInfo) => string): Promise<ActionResult> {
  context.assertUrlAllowed(url);
  try {
    await context.driver.goto(url, { signal: context.signal });
  } catch (error) {
    return loadFailure(url, error);
  }
  const tab = await context.driver.activeTab({ signal: context.signal });
  return { extractedContent: done(tab), includeInMemory: true, stopSequence: true };
}

/** Searches the web with DuckDuckGo, Google or Bing in the active tab. */
export const searchAction = defineAction({
  name: 'search',
  description: 'Search the web in the current tab and show the results page.',
  schema: z.object({
    query: z.string().min(1).max(2000).describe('What to search for, as you would type it'),
    engine: z.enum(['duckduckgo', 'google', 'bing']).default('duckduckgo').describe('The search engine'),
  }),
  handler: async ({ query, engine }, context) => {
    const url = searchUrl(query, engine);
    const name = engine === 'duckduckgo' ? 'DuckDuckGo' : engine === 'google' ? 'Google' : 'Bing';
    return load(context, url, () => `Searched ${name} for ${JSON.stringify(query)}.`);
  },
});

/** Loads a URL in the active tab. */
export const goToUrlAction = defineAction({
  name: 'go_to_url',
  description: 'Load a URL in the current tab.',
  schema: z.object({ url: z.string().min(1).max(8000).describe('The full URL, such as https://example.com/page') }),
  handler: async ({ url }, context) => {
    refuseScriptUrl(context, url);
    const normalized = normalizeUrl('go_to_url', url);
    return load(context, normalized.url, (tab) => {
      const prefix = normalized.note ? `${normalized.note} ` : '';
      if (tab.url !== normalized.url) return `${prefix}Loaded ${normalized.url}; the tab now shows ${describeTab(tab)}.`;
      return `${prefix}Loaded ${describeTab(tab)}.`;
    });
  },
});

/** Goes back to the previous page of the active tab. */
export const goBackAction = defineAction({
  name: 'go_back',
  description: "Go back to the previous page in the current tab's history.",
  schema: z.object({}),
  handler: async (_params, context) => {
    const options = { signal: context.signal };
    const before = await context.driver.activeTab(options);
    let canGoBack: boolean | null = null;
    try {
      const frames = await context.driver.frames(options);
      const top = frames.find((frame) => frame.parentId === undefined);
      if (top) {
        const answer: unknown = await callRuntime(context.driver, top.id, 'canGoBack', undefined, options);
        canGoBack = typeof answer === 'boolean' ? answer : null;
      }
    } catch (error) {
      if (isFatalError(error)) throw error;
      // An error page or a driver that runs no scripts: try, and compare the URLs after.
    }
    if (canGoBack === false) {
      return { extractedContent: `There is no earlier page in this tab's history to go back to; it stays on ${before.url}.`, includeInMemory: true };
    }
    try {
      await context.driver.goBack(options);
    } catch (error) {
      return loadFailure('the previous page', error);
    }
    const after = await context.driver.activeTab(options);
    if (canGoBack === null && after.url === before.url) {
      return { extractedContent: `The tab stayed on ${before.url}: there may be no earlier page in its history.`, includeInMemory: true, stopSequence: true };
    }
    return { extractedContent: `Went back to ${describeTab(after)}.`, includeInMemory: true, stopSequence: true };
  },
});
