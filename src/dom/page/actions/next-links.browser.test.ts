import { afterEach, describe, expect, it } from 'vitest';
import { nextLinks } from './next-links';
import { place } from './test-page';

afterEach(() => {
  document.head.querySelectorAll('link[data-test]').forEach((link) => link.remove());
  document.body.innerHTML = '';
});

describe('nextLinks', () => {
  it('reads <link rel="next"> in the head and rel="next" links, absolute, once each', () => {
    const link = document.createElement('link');
    link.rel = 'prev next';
    link.href = '/list?page=3';
    link.dataset.test = '';
    document.head.append(link);
    place(
      '<a rel="next" href="/list?page=3">Next</a> <a rel="nofollow" href="/other">Other</a> <a rel="NEXT" href="/more">More</a> <a rel="next" href="javascript:void 0">Run</a>',
    );
    const found = nextLinks();
    expect(typeof found.status).toBe('number');
    expect(found.next).toEqual([new URL('/list?page=3', document.baseURI).href, new URL('/more', document.baseURI).href]);
  });

  it('finds nothing on a page without one', () => {
    place('<a href="/list?page=2">2</a>');
    expect(nextLinks().next).toEqual([]);
  });
});
