// Which sites a task involves: the hosts the user's own words name, the page the task started on,
// the hosts the user allowed, and those the agent reached before any page content was shown.
// Pure string work, no Node API; it decides nothing, the sensitive-action policy asks it.

import { isIpHost, normalizeHost, normalizePort, parseAbsoluteUrl } from './host';

/** Second-level labels under which a registrable domain takes three labels (`shop.co.uk`). */
const sharedSecondLevels = new Set(['co', 'com', 'org', 'net', 'gov', 'ac', 'edu', 'ne', 'or', 'go', 'ltd', 'plc', 'sch', 'nhs', 'gob', 'mil']);

/**
 * The site a URL belongs to, for telling whether two pages are "the same place" to a user: the
 * registrable domain (`www.shop.example` and `cdn.shop.example` are `shop.example`), or, for an IP
 * address and `localhost`, the host with its port (two servers on one machine are two sites).
 * Undefined for what is not an http(s) URL.
 */
export function siteOf(url: string): string | undefined {
  const parsed = parseAbsoluteUrl(url);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return undefined;
  return siteOfHost(parsed.hostname, normalizePort(parsed.protocol, parsed.port) || (parsed.protocol === 'https:' ? '443' : '80'));
}

function siteOfHost(rawHost: string, port: string): string | undefined {
  const host = normalizeHost(rawHost);
  if (!host) return undefined;
  if (isIpHost(host) || host === 'localhost' || host.endsWith('.localhost')) return `${host}:${port}`;
  const labels = host.split('.');
  if (labels.length <= 2) return host;
  const secondLevel = labels[labels.length - 2] as string;
  const topLevel = labels[labels.length - 1] as string;
  const take = topLevel.length === 2 && sharedSecondLevels.has(secondLevel) ? 3 : 2;
  return labels.slice(-take).join('.');
}

// A URL with a scheme, or a bare host (a dotted name with a letter top-level domain, an IPv4
// address, `localhost`), optionally with a port: what a person writes to name a site.
const urlInText = /\bhttps?:\/\/[^\s"'<>()[\]{}]+/gi;
const bareHostInText =
  /(?<![\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::(\d{1,5}))?(?![\w-]|\.[a-z0-9])/gi;

/** The sites a text names, as URLs or as bare hosts (`shop.example`, `127.0.0.1:8080`). */
export function sitesInText(text: string): string[] {
  const sites = new Set<string>();
  for (const match of text.matchAll(urlInText)) {
    const site = siteOf(match[0].replace(/[.,;:!?]+$/, ''));
    if (site) sites.add(site);
  }
  const withoutUrls = text.replace(urlInText, ' ');
  for (const match of withoutUrls.matchAll(bareHostInText)) {
    const host = match[1] as string;
    const port = match[2];
    // Without a port, a named host is reachable over http and https alike: both are the site.
    for (const url of port ? [`http://${host}:${port}/`] : [`http://${host}/`, `https://${host}/`]) {
      const site = siteOf(url);
      if (site) sites.add(site);
    }
  }
  return [...sites];
}

/**
 * A host entry the user gave (`shop.example`, `*.shop.example`, `https://shop.example/path/*`,
 * `127.0.0.1:8080`) as the sites it names; empty for what names none.
 */
export function sitesOfEntry(entry: string): string[] {
  const trimmed = entry.trim().replace(/^\*\./, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    const site = siteOf(trimmed.replace(/\*/g, 'x'));
    return site ? [site] : [];
  }
  return sitesInText(trimmed.replace(/[/?#].*$/, ''));
}

/**
 * The sites one task involves. It starts with the sites the task's words name and the hosts the
 * user allowed; the page the task starts on and pages the agent reaches before it has read any
 * page content join it, and so does every site a sensitive-action decision allowed.
 */
export class TaskScope {
  private readonly sites = new Set<string>();

  constructor(task: string, allowedEntries: readonly string[] = []) {
    for (const site of sitesInText(task)) this.sites.add(site);
    for (const entry of allowedEntries) for (const site of sitesOfEntry(entry)) this.sites.add(site);
  }

  /** Adds the site of `url` (an http(s) URL); does nothing for other URLs. */
  add(url: string): void {
    const site = siteOf(url);
    if (site) this.sites.add(site);
  }

  /**
   * Whether the task involves the site of `url`. URLs that are no http(s) pages (`about:blank`,
   * `data:`, `blob:`) load nothing from a host, so they count as involved; the URL policy rules them.
   */
  involves(url: string): boolean {
    const site = siteOf(url);
    return site === undefined || this.sites.has(site);
  }

  /** The sites involved so far, for messages and events. */
  list(): string[] {
    return [...this.sites];
  }
}
