// The collection site's HTML: a home page, the four listing variants (numbered pages, "Next" links
// only, "Load more", infinite scroll), the batches the last two fetch, a detail page per posting,
// the cookie wall and the error pages. Server-rendered strings with a little inline CSS; no state lives here.

import { infiniteScrollScript, loadMoreScript } from './client-scripts';
import type { JobPosting } from './jobs';
import type { ListingPage } from './listing';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const style = `
  body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
  header { display: flex; gap: 24px; padding: 12px 24px; background: #264653; }
  header a { color: #fff; text-decoration: none; font-weight: 600; }
  main { padding: 16px 24px; max-width: 820px; }
  ol.jobs { list-style: none; padding: 0; }
  /* Tall enough that one batch fills more than a viewport: the scroll variant waits for a scroll. */
  li.job { min-height: 96px; padding: 12px 0; border-bottom: 1px solid #ddd; }
  li.job h2 { margin: 0 0 4px; font-size: 18px; }
  li.job p { margin: 2px 0; }
  nav.pagination { display: flex; gap: 12px; padding: 16px 0; }
  #scroll-sentinel, #load-more-area { padding: 24px 0; }
  #cookie-wall { position: fixed; inset: 0; display: flex; align-items: center; justify-content: center;
    background: rgba(0, 0, 0, 0.6); }
  #cookie-wall > div { max-width: 420px; padding: 24px; background: #fff; border-radius: 8px; }
`;

/** A whole page; with `wall`, the content is left out and the cookie wall takes its place. */
function frame(title: string, content: string, wall: { readonly returnTo: string } | undefined): string {
  const body = wall
    ? `<main><h1>${escapeHtml(title)}</h1><p>Accept the cookies to see this page.</p></main>
  <div id="cookie-wall" role="dialog" aria-modal="true" aria-labelledby="cookie-wall-title"><div>
    <h2 id="cookie-wall-title">Cookies on Jobs Board</h2>
    <p>We use cookies to remember your choices. Accept them to see the job listings.</p>
    <form method="post" action="/consent">
      <input type="hidden" name="return" value="${escapeHtml(wall.returnTo)}">
      <button type="submit" id="accept-cookies">Accept</button>
    </form>
  </div></div>`
    : `<main>${content}</main>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Jobs Board</title><style>${style}</style></head>
<body>
  <header><a href="/">Jobs Board</a><a href="/jobs">All jobs</a><a href="/more">Load more</a><a href="/scroll">Scroll</a></header>
  ${body}
</body>
</html>`;
}

/** One posting as every listing variant shows it; a batch is a run of these. */
export function jobItem(job: JobPosting): string {
  const path = new URL(job.detailUrl).pathname;
  return `<li class="job" id="${escapeHtml(job.id)}" data-job-id="${escapeHtml(job.id)}">
  <h2 class="job-title"><a href="${escapeHtml(path)}">${escapeHtml(job.title)}</a></h2>
  <p class="company">${escapeHtml(job.company)}</p>
  <p class="location">${escapeHtml(job.location)}</p>
  <p class="salary">${escapeHtml(job.salary)}</p>
</li>`;
}

/** A batch for the load-more and scroll variants: just the list items, to append (nothing for an empty batch). */
export const batchFragment = (page: ListingPage): string => page.items.map(jobItem).join('\n');

const jobList = (page: ListingPage): string =>
  page.items.length === 0
    ? `<ol class="jobs" id="job-list"></ol><p class="no-results">No jobs on this page.</p>`
    : `<ol class="jobs" id="job-list">${batchFragment(page)}</ol>`;

const pageLink = (number: number, current: number): string =>
  number === current ? `<a aria-current="page" href="/jobs?page=${number}"><strong>${number}</strong></a>` : `<a href="/jobs?page=${number}">${number}</a>`;

/** Numbered links as job boards show them: the first, the last, two either side of this page, gaps as "…". */
function pagination(current: number, last: number): string {
  const shown = [...new Set([1, current - 2, current - 1, current, current + 1, current + 2, last])]
    .filter((number) => number >= 1 && number <= last)
    .sort((a, b) => a - b);
  const parts: string[] = [];
  if (current > 1) parts.push(`<a rel="prev" href="/jobs?page=${current - 1}">Previous</a>`);
  shown.forEach((number, index) => {
    if (index > 0 && number - (shown[index - 1] ?? number) > 1) parts.push('<span>…</span>');
    parts.push(pageLink(number, current));
  });
  if (current < last) parts.push(`<a rel="next" href="/jobs?page=${current + 1}">Next</a>`);
  return `<nav class="pagination" aria-label="Pagination">${parts.join(' ')}</nav>`;
}

/** What every listing page needs to know besides its own page. */
export interface ListingFrame {
  readonly totalPages: number;
  readonly totalItems: number;
  /** Set while the visitor has not accepted the cookies: the path to come back to. */
  readonly wall: { readonly returnTo: string } | undefined;
}

/** `/jobs?page=N`: one page of postings, numbered links and a "Next" link. */
export function numberedListingPage(page: ListingPage, listing: ListingFrame): string {
  const content = `<h1>Jobs</h1>
<p class="summary">Page ${page.number} of ${listing.totalPages} · ${listing.totalItems} jobs in all</p>
${jobList(page)}
${pagination(page.number, listing.totalPages)}`;
  return frame(`Jobs, page ${page.number}`, content, listing.wall);
}

/**
 * `/next?page=N`: one page of postings and only "Previous page" and "Next page" links, as blogs and
 * small shops paginate. Their text names them, so the model's view shows no href for them.
 */
export function nextLinkListingPage(page: ListingPage, listing: ListingFrame): string {
  const links: string[] = [];
  if (page.number > 1) links.push(`<a rel="prev" href="/next?page=${page.number - 1}">Previous page</a>`);
  if (page.number < listing.totalPages) links.push(`<a rel="next" href="/next?page=${page.number + 1}">Next page</a>`);
  const content = `<h1>Jobs</h1>
<p class="summary">${listing.totalItems} jobs in all</p>
${jobList(page)}
<nav class="pagination" aria-label="Pagination">${links.join(' ')}</nav>`;
  return frame(`Jobs, page ${page.number}`, content, listing.wall);
}

/** `/more`: the first batch and a "Load more" button that fetches the next. */
export function loadMorePage(first: ListingPage, listing: ListingFrame): string {
  const more =
    listing.totalPages > 1
      ? `<button type="button" id="load-more" data-next-page="2">Load more</button><p id="load-status" role="status"></p>`
      : `<p id="load-status" role="status">That's all the jobs.</p>`;
  const content = `<h1>Jobs</h1>
<p class="summary">${listing.totalItems} jobs in all</p>
<ol class="jobs" id="job-list">${batchFragment(first)}</ol>
<div id="load-more-area">${more}</div>
<script>${loadMoreScript}</script>`;
  return frame('Jobs', content, listing.wall);
}

/** `/scroll`: the first batch; the next loads when the page is scrolled near its bottom. */
export function infiniteScrollPage(first: ListingPage, listing: ListingFrame): string {
  const sentinel =
    listing.totalPages > 1
      ? `<div id="scroll-sentinel" role="status" data-next-page="2">Scroll down for more jobs.</div>`
      : `<div id="scroll-sentinel" role="status">That's all the jobs.</div>`;
  const content = `<h1>Jobs</h1>
<p class="summary">${listing.totalItems} jobs in all</p>
<ol class="jobs" id="job-list">${batchFragment(first)}</ol>
${sentinel}
<script>${infiniteScrollScript}</script>`;
  return frame('Jobs', content, listing.wall);
}

/** `/job/<id>`: one posting with a short description. */
export function detailPage(job: JobPosting, wall: ListingFrame['wall']): string {
  const content = `<h1>${escapeHtml(job.title)}</h1>
<dl>
  <dt>Company</dt><dd class="company">${escapeHtml(job.company)}</dd>
  <dt>Location</dt><dd class="location">${escapeHtml(job.location)}</dd>
  <dt>Salary</dt><dd class="salary">${escapeHtml(job.salary)}</dd>
</dl>
<p>${escapeHtml(job.company)} is hiring a ${escapeHtml(job.title)} in ${escapeHtml(job.location)}. Posting ${escapeHtml(job.id)}.</p>
<p><a href="/jobs">Back to all jobs</a></p>`;
  return frame(job.title, content, wall);
}

/** `/`: where the three variants are. */
export function homePage(wall: ListingFrame['wall']): string {
  const content = `<h1>Jobs Board</h1>
<ul>
  <li><a href="/jobs">All jobs, page by page</a></li>
  <li><a href="/more">All jobs with a "Load more" button</a></li>
  <li><a href="/scroll">All jobs with infinite scroll</a></li>
</ul>`;
  return frame('Home', content, wall);
}

/** The page of a 500: what a broken page of the listing answers. */
export const serverErrorPage = (): string =>
  frame('Server error', '<h1>Something went wrong</h1><p>The server could not show this page (error 500). Try again later.</p>', undefined);

export const notFoundPage = (): string => frame('Not found', '<h1>Page not found</h1><p><a href="/">Back to the home page</a></p>', undefined);
