// The addresses a page names as its next page in markup: `<link rel="next">` in the head (no
// visible control) and `rel="next"` on links, and the HTTP status its document came with. Reads only.

/**
 * Every http(s) address of a `link`, `a` or `area` whose `rel` holds `next`, absolute, in document
 * order; and the HTTP status of the document (0 when the browser does not say), which tells an
 * error page reached by a click or a form from a page.
 */
export function nextLinks(): { readonly next: string[]; readonly status: number } {
  const next: string[] = [];
  for (const element of document.querySelectorAll('link[rel][href], a[rel][href], area[rel][href]')) {
    const rel = (element.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    const href = (element as HTMLLinkElement | HTMLAnchorElement).href;
    if (rel.includes('next') && /^https?:/i.test(href) && !next.includes(href)) next.push(href);
  }
  const entry: (PerformanceEntry & { readonly responseStatus?: number }) | undefined = performance.getEntriesByType('navigation')[0];
  return { next, status: typeof entry?.responseStatus === 'number' ? entry.responseStatus : 0 };
}
