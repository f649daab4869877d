// Which URLs the browser may load: allow and deny lists of hosts and exact URLs, decided on the
// parsed URL, never on the raw string. Pure: no browser, no I/O, no `node:` imports.

import type { UrlPolicyRule, UrlPolicyRules } from '../browser/types';
import type { UrlDecision } from '../browser/types';
import { ConfigError } from '../errors';
import { formatHostRule, hasScheme, hostRuleMatches, isWebUrl, normalizeHost, parseAbsoluteUrl, parseHostRule, type HostRule } from './host';

/**
 * The allow and deny lists of a {@link UrlPolicy}.
 *
 * @remarks
 * Each entry is one of:
 *
 * - a host, such as `example.com`, `127.0.0.1` or `[::1]`: the host and all its subdomains, over
 *   http or https, on any port. A port written after the host (`example.com:8080`) is ignored:
 *   the entry means the same as `example.com`. IP addresses match only themselves.
 * - a host after `*.`, such as `*.example.com`: only the subdomains, not `example.com` itself.
 * - a URL with its scheme, such as `https://example.com/account?tab=1`: that exact URL (scheme,
 *   host, port, path and query), whatever its fragment and user info. It contains no wildcard.
 *   Paths are compared as the URL parser writes them (`/a/../b` is `/b`, but `%6C` stays
 *   encoded), so a denied URL keeps the agent from one known link, such as a logout link; to
 *   keep it off a server, deny the host.
 *
 * Hosts are compared in normal form, so `EXAMPLE.com.`, `bücher.de` (as `xn--bcher-kva.de`),
 * `0x7f.1` (as `127.0.0.1`) and `[::ffff:127.0.0.1]` (as `127.0.0.1`) are what the browser will
 * contact. Names are never resolved: `localhost` is not `127.0.0.1`. Only `http:` and `https:`
 * entries exist; other schemes are always denied, and `*` alone is refused.
 *
 * @example
 * ```ts
 * const policy = new UrlPolicy({ allow: ['shop.example', 'https://docs.example/terms'], deny: ['admin.shop.example'] });
 * ```
 * @public
 */
export interface UrlPolicyOptions {
  /**
   * The only hosts and URLs the browser may load; when empty or absent, every http(s) URL that
   * is not denied is allowed.
   * @defaultValue `[]`
   */
  readonly allow?: readonly string[] | undefined;
  /**
   * Hosts and URLs the browser may never load. Deny beats allow.
   * @defaultValue `[]`
   */
  readonly deny?: readonly string[] | undefined;
}

export type { UrlPolicyRule, UrlPolicyRules } from '../browser/types';

type Rule = { readonly kind: 'host'; readonly text: string; readonly host: HostRule } | { readonly kind: 'url'; readonly text: string; readonly key: string };

type ListName = 'allow' | 'deny';

const schemeHint = 'write a host ("example.com") or an http(s) URL ("https://example.com/page")';

/**
 * Decides which URLs the browser may load, from an allow list and a deny list.
 *
 * @remarks
 * The rules, in order:
 *
 * 1. The input is parsed as an absolute URL, with no base; anything that does not parse
 *    (relative, empty, malformed) is denied. The decision follows the parsed URL, so
 *    `http://allowed.example@evil.example/` is judged by its real host `evil.example`.
 * 2. `about:blank` (with any query or fragment) is allowed; every other scheme (`javascript:`,
 *    `data:`, `file:`, `blob:`, `view-source:`, `chrome:`, other `about:` pages, `ws:`, `ftp:`,
 *    …) is denied, even when both lists are empty.
 * 3. An http(s) URL matching a deny entry is denied.
 * 4. With an empty allow list, every other http(s) URL is allowed; otherwise only URLs matching
 *    an allow entry are.
 *
 * See {@link UrlPolicyOptions} for how entries match.
 *
 * What it controls is up to who asks. The Executor's `urlPolicy` checks, by default
 * (`scope: 'navigation'`), every navigation: the URLs the model asks for and, through a driver's
 * `setNavigationGuard`, every document a tab or frame loads (links, forms, scripts, redirect hops,
 * popups, frames, prefetches). With `scope: 'all-requests'` it also checks every other request of
 * every frame, worker and service worker (`fetch`, XHR, images, beacons, pings) and, by host,
 * WebSocket handshakes (loopback and link-local hosts aside) in a browser a bundled driver launched; not a dedicated or shared worker
 * already running when the guard is installed. Never checked: DNS prefetch and `preconnect` (names resolved and connections opened
 * without a request), requests of browser extensions, and anything outside the browser.
 *
 * @example
 * ```ts
 * const policy = new UrlPolicy({ allow: ['example.com'] });
 * policy.check('https://www.example.com/a'); // { allowed: true, reason: 'host www.example.com is on the allow list (entry "example.com")' }
 * policy.check('https://example.com.evil.net/'); // { allowed: false, reason: 'host example.com.evil.net is not on the allow list' }
 * ```
 * @public
 */
export class UrlPolicy {
  /** The allow list in normal form (ports dropped, hosts normalised), for logs. */
  readonly allow: readonly string[];
  /** The deny list in normal form, for logs. */
  readonly deny: readonly string[];
  /** Whether the policy restricts http(s) URLs at all: `true` when either list has an entry. */
  readonly restrictive: boolean;
  private readonly allowRules: readonly Rule[];
  private readonly denyRules: readonly Rule[];

  /**
   * Creates a policy from its lists.
   * @throws `ConfigError` (field `urlPolicy.allow` or `urlPolicy.deny`) naming an entry that is
   * empty, has a scheme other than http(s), or is neither a host nor a URL, and how to write it.
   */
  constructor(options: UrlPolicyOptions = {}) {
    this.allowRules = parseList('allow', options.allow);
    this.denyRules = parseList('deny', options.deny);
    this.allow = Object.freeze(this.allowRules.map((rule) => rule.text));
    this.deny = Object.freeze(this.denyRules.map((rule) => rule.text));
    this.restrictive = this.allowRules.length > 0 || this.denyRules.length > 0;
  }

  /** The compiled lists as plain data, for a checker that cannot call `check` (such as a driver's WebSocket guard inside pages), with the same verdicts. */
  toRules(): UrlPolicyRules {
    const data = (rule: Rule): UrlPolicyRule =>
      rule.kind === 'host' ? { kind: 'host', host: rule.host.host, subdomainsOnly: rule.host.subdomainsOnly } : { kind: 'url', key: rule.key };
    return { allow: this.allowRules.map(data), deny: this.denyRules.map(data) };
  }

  /** The verdict on `url`, with a short reason the model and a log reader understand. */
  check(url: string): UrlDecision {
    const parsed = typeof url === 'string' ? parseAbsoluteUrl(url) : undefined;
    if (parsed === undefined) return { allowed: false, reason: 'not an absolute URL' };
    if (parsed.protocol === 'about:' && parsed.pathname === 'blank') return { allowed: true, reason: 'about:blank is always allowed' };
    if (!isWebUrl(parsed)) {
      const exception = parsed.protocol === 'about:' ? ' (only about:blank is)' : '';
      return { allowed: false, reason: `scheme ${parsed.protocol} is never allowed${exception}` };
    }
    const host = normalizeHost(parsed.hostname);
    if (host === undefined) return { allowed: false, reason: `host ${parsed.hostname} is not a valid host` };
    const key = urlKey(parsed, host);
    const denied = this.denyRules.find((rule) => ruleMatches(rule, host, key));
    if (denied) return { allowed: false, reason: `${subject(denied, host)} is on the deny list (entry "${denied.text}")` };
    if (this.allowRules.length === 0) {
      return { allowed: true, reason: this.restrictive ? `host ${host} is not on the deny list` : 'no URL policy' };
    }
    const allowed = this.allowRules.find((rule) => ruleMatches(rule, host, key));
    if (allowed) return { allowed: true, reason: `${subject(allowed, host)} is on the allow list (entry "${allowed.text}")` };
    return { allowed: false, reason: `host ${host} is not on the allow list` };
  }
}

function subject(rule: Rule, host: string): string {
  return rule.kind === 'host' ? `host ${host}` : 'URL';
}

function ruleMatches(rule: Rule, host: string, key: string): boolean {
  return rule.kind === 'host' ? hostRuleMatches(rule.host, host) : rule.key === key;
}

/** What an exact-URL entry compares: scheme, host and port in normal form, path and query. */
function urlKey(url: URL, host: string): string {
  const port = url.port === '' ? '' : `:${url.port}`;
  return `${url.protocol}//${host}${port}${url.pathname}${url.search}`;
}

function parseList(list: ListName, entries: readonly string[] | undefined): Rule[] {
  const field = `urlPolicy.${list}`;
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw new ConfigError(`Option \`${field}\` must be an array of strings, such as ["example.com"].`, { field });
  const rules = new Map<string, Rule>();
  for (const entry of entries as readonly unknown[]) {
    if (typeof entry !== 'string') {
      throw new ConfigError(`Option \`${field}\` must hold only strings, got ${typeof entry}.`, { field });
    }
    const rule = parseEntry(list, entry.trim());
    if (typeof rule === 'string') throw new ConfigError(`Option \`${field}\`: entry ${JSON.stringify(entry)} ${rule}.`, { field });
    rules.set(rule.text, rule);
  }
  return [...rules.values()];
}

function parseEntry(list: ListName, entry: string): Rule | string {
  if (entry === '') return `is empty; ${schemeHint}`;
  if (entry === '*') {
    return list === 'allow'
      ? 'is not needed: an empty allow list already allows every http(s) URL that is not denied'
      : 'would deny every URL, whatever the allow list says (deny beats allow); list the sites to allow in `urlPolicy.allow` instead';
  }
  if (!hasScheme(entry)) {
    const host = parseHostRule(entry);
    return typeof host === 'string' ? host : { kind: 'host', text: formatHostRule(host), host };
  }
  const url = parseAbsoluteUrl(entry);
  if (url === undefined) return `is not a valid URL; ${schemeHint}`;
  if (!isWebUrl(url)) {
    return `has the scheme ${url.protocol}, but only http(s) URLs and hosts can be listed (other schemes are always denied, except about:blank); ${schemeHint}`;
  }
  if (entry.includes('*')) {
    return `has a "*", but a URL entry matches one exact URL; to cover the whole site, write its host ("${url.hostname}")`;
  }
  const host = normalizeHost(url.hostname);
  if (host === undefined) return `is not a valid URL; ${schemeHint}`;
  const key = urlKey(url, host);
  return { kind: 'url', text: key, key };
}
