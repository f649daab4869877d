// The addresses a page names as its next page in markup: `<link rel="next">` in the head (no
// visible control) and `rel="next"` on links. Reads only; for the collection's pagination.

/** Every http(s) address of a `link`, `a` or `area` whose `rel` holds `next`, absolute, in document order. */
export function nextLinks(): { readonly next: string[] } {
  const next: string[] = [];
  for (const element of document.querySelectorAll('link[rel][href], a[rel][href], area[rel][href]')) {
    const rel = (element.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    const href = (element as HTMLLinkElement | HTMLAnchorElement).href;
    if (rel.includes('next') && /^https?:/i.test(href) && !next.includes(href)) next.push(href);
  }
  return { next };
}
