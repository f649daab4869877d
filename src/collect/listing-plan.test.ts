import { describe, expect, it } from 'vitest';
import type { PageState } from '../browser/page-state';
import { FakeBrowserDriver, type FakePage } from '../testing/index';
import type { LinkTargets } from './link-targets';
import { addressShape, findControl, learnPlan, matchesControl, pageLinksOf, templateOf } from './listing-plan';
import { pageSlot } from './page-step';

describe('templateOf', () => {
  it('is one template for the pages of one listing: digits of the path as #, query parameters by name only', () => {
    expect(templateOf('https://site.test/list?page=2')).toBe('site.test/list?page');
    expect(templateOf('https://site.test/list?page=7')).toBe(templateOf('https://site.test/list?page=2'));
    expect(templateOf('https://site.test/category/7/books?sort=asc&page=2')).toBe('site.test/category/#/books?page&sort');
    expect(templateOf('https://site.test/category/12/books?page=3&sort=desc')).toBe(templateOf('https://site.test/category/7/books?sort=asc&page=2'));
    expect(templateOf('https://site.test/list/2')).toBe('site.test/list/#');
  });

  it('tells other templates apart: another path, another host, other parameters', () => {
    const list = templateOf('https://site.test/list?page=2');
    expect(templateOf('https://site.test/list')).not.toBe(list);
    expect(templateOf('https://site.test/category/7/books')).not.toBe(templateOf('https://site.test/list'));
    expect(templateOf('https://other.test/list?page=2')).not.toBe(list);
    expect(templateOf('https://site.test/list?page=2&q=mugs')).not.toBe(list);
    // A fragment is no part of the template.
    expect(templateOf('https://site.test/list#plannav-step=2')).toBe(templateOf('https://site.test/list'));
  });
});

describe('addressShape', () => {
  it('is the address with every run of digits as #, values kept', () => {
    expect(addressShape('https://site.test/list?page=12')).toBe('site.test/list?page=#');
    expect(addressShape('https://site.test/list?page=3')).toBe(addressShape('https://site.test/list?page=12'));
    expect(addressShape('https://site.test/list/3?sort=price')).toBe('site.test/list/#?sort=price');
    expect(addressShape('https://site.test/list/3?sort=name')).not.toBe(addressShape('https://site.test/list/3?sort=price'));
    expect(addressShape('https://site.test/item/42')).not.toBe(addressShape('https://site.test/list?page=42'));
  });
});

describe('matchesControl', () => {
  it('matches the same tag and text, whitespace and case aside', () => {
    expect(matchesControl({ tag: 'a', text: 'Next' }, { tag: 'a', text: '  next ', attributes: {} })).toBe(true);
    expect(matchesControl({ tag: 'button', text: 'Load  more' }, { tag: 'button', text: 'load more' })).toBe(true);
    expect(matchesControl({ tag: 'a', text: 'Next' }, { tag: 'button', text: 'Next' })).toBe(false);
    expect(matchesControl({ tag: 'a', text: 'Next' }, { tag: 'a', text: 'Previous' })).toBe(false);
  });

  it('a control named by its attributes matches by them, whatever its text; type and role alone do not name it', () => {
    const arrow = { tag: 'a', text: '›', attributes: { 'aria-label': 'Next page' } };
    expect(matchesControl(arrow, { tag: 'a', text: '»', attributes: { 'aria-label': 'next page' } })).toBe(true);
    expect(matchesControl(arrow, { tag: 'a', text: '›', attributes: { 'aria-label': 'Previous page' } })).toBe(false);
    expect(matchesControl(arrow, { tag: 'a', text: '›' })).toBe(false);
    const submit = { tag: 'button', text: 'Next', attributes: { type: 'button' } };
    expect(matchesControl(submit, { tag: 'button', text: 'Next', attributes: { type: 'button' } })).toBe(true);
    expect(matchesControl(submit, { tag: 'button', text: 'Back', attributes: { type: 'button' } })).toBe(false);
    expect(matchesControl({ tag: 'link', attributes: { rel: 'next' } }, { tag: 'link', text: '', attributes: { rel: 'next' } })).toBe(true);
  });
});

async function capture(
  page: FakePage,
  url = 'https://site.test/list?page=1',
): Promise<{ state: PageState; links: LinkTargets; index: (text: string) => number }> {
  const browser = new FakeBrowserDriver({ pages: { [url]: page } });
  const slot = pageSlot(browser, false);
  await slot.driver.goto(url);
  const state = await slot.reader.capture({ screenshot: false });
  const index = (text: string): number => {
    const found = [...state.elementsText.matchAll(new RegExp(`\\[(\\d+)\\]<[a-z]+[^>]*>${text} />`, 'g'))].map((match) => Number(match[1]));
    if (found.length === 0) throw new Error(`No element "${text}" in the view:\n${state.elementsText}`);
    return found.at(-1) as number;
  };
  return { state, links: slot.links, index };
}

const link = (text: string, href: string) => ({ tag: 'a', text, href, attributes: { href } });

describe('findControl', () => {
  it('finds the element a locator describes on a page, the last of several, and nothing when it is not there', async () => {
    const { state, links, index } = await capture({
      title: 'List page 1',
      content: [link('Next', '/list?page=2'), 'Item 1', { tag: 'button', text: 'Load more' }, link('Next', '/list?page=2')],
    });
    const next = findControl({ tag: 'a', text: 'Next' }, state, links);
    expect(next?.index).toBe(index('Next'));
    expect(next?.index).toBe(Math.max(...[...state.elements.entries()].filter(([, element]) => links.factsOf(element)?.text === 'Next').map(([at]) => at)));
    expect(findControl({ tag: 'button', text: 'load more' }, state, links)?.index).toBe(index('Load more'));
    expect(findControl({ tag: 'a', text: 'Previous' }, state, links)).toBeUndefined();
    expect(findControl({ tag: 'button', text: 'Next' }, state, links)).toBeUndefined();
  });
});

describe('learnPlan and pageLinksOf', () => {
  it('learns the next control (a link or a script button) and the shape of numbered page links, and finds them on another page of the template', async () => {
    const first = await capture({
      title: 'List page 1',
      content: [
        'Item 1',
        link('2', '/list?page=2'),
        link('3', '/list?page=3'),
        link('About', '/about'),
        link('Next', '/list?page=2'),
        { tag: 'button', text: 'Load more' },
      ],
    });
    const plan = learnPlan(
      {
        pageError: '',
        blockedBy: '',
        blockedByIndex: null,
        nextIndex: first.index('Next'),
        pageIndices: [first.index('2'), first.index('3')],
        nextPages: [],
        pageSelectIndex: null,
        loadMoreIndex: first.index('Load more'),
        infiniteScroll: false,
        listingIndices: [],
      },
      first.state,
      first.links,
    );
    expect(plan).toMatchObject({
      next: { kind: 'link', control: { tag: 'a', text: 'Next' } },
      pageLinkShape: 'site.test/list?page=#',
      loadMore: { tag: 'button', text: 'Load more' },
      infiniteScroll: false,
    });
    expect(plan.pageSelect).toBeUndefined();

    const other = await capture(
      {
        title: 'List page 4',
        content: ['Item 4', link('3', '/list?page=3'), link('5', '/list?page=5'), link('About', '/about'), link('Next', '/list?page=5')],
      },
      'https://site.test/list?page=4',
    );
    expect(pageLinksOf(plan, other.state, other.links)).toEqual([
      'https://site.test/list?page=3',
      'https://site.test/list?page=5',
      'https://site.test/list?page=5',
    ]);
    expect(findControl((plan.next as NonNullable<typeof plan.next>).control, other.state, other.links)?.index).toBe(other.index('Next'));

    const script = await capture({ title: 'List', content: ['Item 1', { tag: 'button', text: 'Next' }] }, 'https://site.test/list');
    const scripted = learnPlan(
      {
        pageError: '',
        blockedBy: '',
        blockedByIndex: null,
        nextIndex: script.index('Next'),
        pageIndices: [],
        nextPages: [],
        pageSelectIndex: null,
        loadMoreIndex: null,
        infiniteScroll: false,
        listingIndices: [],
      },
      script.state,
      script.links,
    );
    expect(scripted.next).toMatchObject({ kind: 'click', control: { tag: 'button', text: 'Next' } });
    expect(scripted.pageLinkShape).toBeUndefined();
    expect(pageLinksOf(scripted, script.state, script.links)).toEqual([]);
  });
});
