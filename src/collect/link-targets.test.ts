import { describe, expect, it } from 'vitest';
import type { PageState } from '../browser/page-state';
import { FakeBrowserDriver, type FakePage } from '../testing/index';
import { pageSlot } from './page-step';

const longPath = `/list?${'filter=x&'.repeat(250)}page=2`;

const page: FakePage = {
  title: 'List page 1',
  content: [
    // Links whose text names them: the model's view shows none of these hrefs.
    { tag: 'a', text: 'Next page', href: '/list?page=2', attributes: { href: '/list?page=2' } },
    { tag: 'a', text: 'Older posts', href: 'https://site.test/archive?before=2026-01-01', attributes: { href: 'https://site.test/archive?before=2026-01-01' } },
    { tag: 'a', text: 'Write to us', attributes: { href: 'mailto:team@site.test' } },
    { tag: 'a', text: 'Filtered next page', attributes: { href: longPath } },
    { tag: 'button', text: 'Load more' },
  ],
};

async function capture(): Promise<{ state: PageState; targetOf: (text: string) => string | undefined }> {
  const browser = new FakeBrowserDriver({ pages: { 'https://site.test/list?page=1': page } });
  const slot = pageSlot(browser, false);
  await slot.driver.goto('https://site.test/list?page=1');
  const state = await slot.reader.capture({ screenshot: false });
  const targetOf = (text: string): string | undefined => {
    const index = new RegExp(`\\[(\\d+)\\]<[a-z]+[^>]*>${text} />`).exec(state.elementsText)?.[1];
    const element = index === undefined ? undefined : state.elements.get(Number(index));
    if (!element) throw new Error(`No element "${text}" in the view:\n${state.elementsText}`);
    return slot.links.targetOf(element);
  };
  return { state, targetOf };
}

describe('LinkTargets', () => {
  it('gives the whole address of a link the view shows without its href, resolved against its frame', async () => {
    const { state, targetOf } = await capture();
    expect(state.elementsText).not.toContain('page=2');
    expect(targetOf('Next page')).toBe('https://site.test/list?page=2');
    expect(targetOf('Older posts')).toBe('https://site.test/archive?before=2026-01-01');
  });

  it('gives nothing for an element that is no link to a web page, nor for an href the page cut', async () => {
    const { targetOf } = await capture();
    expect(targetOf('Write to us')).toBeUndefined();
    expect(targetOf('Load more')).toBeUndefined();
    expect(targetOf('Filtered next page')).toBeUndefined();
  });
});
