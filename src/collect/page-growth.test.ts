import { describe, expect, it } from 'vitest';
import { addedPart } from './page-growth';

/** A posting as the page runtime writes it: a heading link, then company, place and salary. */
const posting = (id: number, salary = `$${40 + id},000`): string =>
  `<li><h2><a href="https://jobs.example/job/${id}">Posting ${id}</a></h2><p>Company ${id}</p><p>Remote</p><p>${salary}</p></li>`;
const page = (ids: readonly number[], salary?: (id: number) => string): string =>
  `<h1>Jobs</h1><ol>${ids.map((id) => posting(id, salary?.(id))).join('')}</ol><p>Showing the newest first</p>`;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('addedPart', () => {
  it('is the postings a "load more" added before the footer, each whole, and none of the earlier ones', () => {
    const part = addedPart(page(range(1, 20)), page(range(1, 40)));
    expect(part).toBeDefined();
    for (const id of range(21, 40)) expect(part).toContain(posting(id));
    expect(part).not.toContain('Posting 20<');
    expect(part).not.toContain('Posting 1<');
  });

  it("holds the first and the last new posting whole when their blocks equal the old last posting's", () => {
    // Every salary the same: the diff may pair the old last posting's blocks with the new last one's.
    const part =
      addedPart(
        page(range(1, 3), () => '$50,000'),
        page(range(1, 5), () => '$50,000'),
      ) ?? '';
    expect(part).toContain(posting(4, '$50,000'));
    expect(part).toContain(posting(5, '$50,000').replace('</li>', ''));
  });

  it('is undefined when the list was re-rendered in another order or replaced, so the page is read whole', () => {
    expect(addedPart(page(range(1, 20)), page(range(1, 40).reverse()))).toBeUndefined();
    expect(addedPart(page(range(1, 20)), page(range(21, 40)))).toBeUndefined();
  });

  it('is empty when the page added nothing', () => {
    expect(addedPart(page(range(1, 20)), page(range(1, 20)))).toBe('');
  });
});
