// A record's own page, as a listing shows it: the link among its fields that is its alone. Shared
// by the Collector and the BullMQ coordinator.

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
