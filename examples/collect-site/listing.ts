// How the collection site lays its postings out over numbered pages, and which pages misbehave.
// Pure data, checked once when the site starts; the server reads it, it never changes afterwards.

import type { JobPosting } from './jobs';

/** What goes wrong with one page; the same page number misbehaves in every variant (links, load more, scroll). */
export type PageFault = 'broken' | 'slow' | 'empty';

/** One numbered page of the listing (in the load-more and scroll variants: one batch). */
export interface ListingPage {
  /** From 1. */
  readonly number: number;
  /** The postings it shows; none on an empty page. A broken page's postings are never served. */
  readonly items: readonly JobPosting[];
  /** What is wrong with it, if anything. A slow page that is also broken answers 500 after the delay. */
  readonly faults: readonly PageFault[];
}

/** The faults to lay out, as given to `startCollectSite`. */
export interface FaultPlan {
  readonly pageSize: number;
  readonly brokenPages: readonly number[];
  readonly slowPages: readonly number[];
  readonly emptyPages: readonly number[];
}

function checkPageNumbers(name: string, pages: readonly number[], last: number): void {
  for (const page of pages)
    if (!Number.isInteger(page) || page < 1 || page > last)
      throw new Error(`Option \`${name}\` must hold page numbers from 1 to ${last} (the listing's pages, empty ones included), got ${page}.`);
}

/**
 * Deals the postings out over pages of `pageSize`, with each empty page inserted where it is
 * numbered: the listing then has one page more per empty page, and every posting stays on the site.
 */
export function layOut(items: readonly JobPosting[], plan: FaultPlan): ListingPage[] {
  const empty = new Set(plan.emptyPages);
  const last = Math.ceil(items.length / plan.pageSize) + empty.size;
  checkPageNumbers('emptyPages', plan.emptyPages, last);
  checkPageNumbers('brokenPages', plan.brokenPages, last);
  checkPageNumbers('slowPages', plan.slowPages, last);
  const pages: ListingPage[] = [];
  let next = 0;
  for (let number = 1; number <= last; number++) {
    const faults: PageFault[] = [];
    if (plan.brokenPages.includes(number)) faults.push('broken');
    if (plan.slowPages.includes(number)) faults.push('slow');
    if (empty.has(number)) faults.push('empty');
    const take = empty.has(number) ? 0 : plan.pageSize;
    pages.push({ number, items: items.slice(next, next + take), faults });
    next += take;
  }
  return pages;
}
