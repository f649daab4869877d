// A record's own page, as a listing shows it: the link among its fields that is its alone. Shared
// by the Collector and the BullMQ coordinator.

import type { UrlDecision } from '../browser/types';
import { describeThrown } from '../util/describe-thrown';
import { normalizePageUrl } from './frontier';
import type { QueuedPage } from './store';

/** The addresses of a page of `page`'s site (not `page` itself) that `record`'s fields hold, by field name. */
function siteLinksOf(record: unknown, page: string): [string, string][] {
  if (typeof record !== 'object' || record === null) return [];
  const host = new URL(page).host;
  const links: [string, string][] = [];
  for (const [name, value] of Object.entries(record as Record<string, unknown>)) {
    if (typeof value !== 'string' || !/^(https?:\/\/|\/)/i.test(value.trim()) || !URL.canParse(value.trim(), page)) continue;
    const url = new URL(value.trim(), page);
    if (url.host === host && url.href !== new URL(page).href) links.push([name, url.href]);
  }
  return links;
}

/**
 * The record's own page: among its fields that link to a page of the site, one whose value no other
 * record of the page shares (a seller's or category's page is many records'), a field named like a
 * link (`link`, `url`, `href`, `page`) first.
 */
export function ownPageOf(record: unknown, page: string, others: readonly { readonly data: unknown }[]): string | undefined {
  const counts = new Map<string, number>();
  for (const other of others) for (const [, url] of siteLinksOf(other.data, page)) counts.set(url, (counts.get(url) ?? 0) + 1);
  const unique = siteLinksOf(record, page).filter(([, url]) => (counts.get(url) ?? 0) <= 1);
  return (unique.find(([name]) => /link|url|href|page/i.test(name)) ?? unique[0])?.[1];
}

/**
 * The address of a record's own page: the `details.url` option's answer (a throw is a warning and
 * reads as none), else {@link ownPageOf}.
 */
export function ownPageAddress(
  details: boolean | { readonly url?: ((record: never) => string | undefined) | undefined } | undefined,
  record: unknown,
  pageUrl: string,
  rejected: readonly { readonly data: unknown }[],
  warn: (code: string, message: string) => void,
): string | undefined {
  if (typeof details === 'object' && details.url) {
    try {
      return (details.url as (record: unknown) => string | undefined)(record);
    } catch (error) {
      warn('DETAILS_URL_FAILED', `details.url threw: ${describeThrown(error)}`);
      return undefined;
    }
  }
  return ownPageOf(record, pageUrl, rejected);
}

/** A record the schema rejected on a listing page: to be completed on its own page (`own`), or kept as rejected with `reason`. */
export interface RejectedOnListing {
  readonly data: unknown;
  readonly reason: string;
  readonly own?: QueuedPage | undefined;
}

/**
 * What becomes of the records a listing page's schema rejected: with `details`, each whose own page
 * is found (and allowed: by the URL policy, and of the listing's site when `sameSite`) is to be read
 * there; the others stay rejected, with why their own page may not be loaded when it was found.
 */
export function sortRejected(
  page: QueuedPage,
  rejected: readonly { readonly data: unknown; readonly reason: string }[],
  options: {
    readonly details: Parameters<typeof ownPageAddress>[0];
    readonly urlPolicy: { check(url: string): UrlDecision };
    readonly sameSite: boolean;
    readonly partial: (data: unknown) => Readonly<Record<string, unknown>>;
    readonly warn: (code: string, message: string) => void;
  },
): RejectedOnListing[] {
  return rejected.map((item) => {
    const address = options.details ? ownPageAddress(options.details, item.data, page.url, rejected, options.warn) : undefined;
    if (address === undefined || !URL.canParse(address, page.url)) return { data: item.data, reason: item.reason };
    const url = normalizePageUrl(new URL(address, page.url).href);
    const decision =
      !options.sameSite || new URL(url).host === new URL(page.url).host
        ? options.urlPolicy.check(url)
        : { allowed: false, reason: 'it is on another site than its listing' };
    if (!decision.allowed) return { data: item.data, reason: `${item.reason}; its own page ${url} may not be loaded: ${decision.reason}` };
    const own: QueuedPage = {
      url,
      batch: `details:${new URL(url).host}`,
      depth: page.depth + 1,
      kind: 'detail',
      partial: options.partial(item.data),
      listedOn: page.url,
    };
    return { data: item.data, reason: item.reason, own };
  });
}
