import { describe, expect, it } from 'vitest';
import type { PageState } from '../browser/page-state';
import { ProgressMonitor } from './progress-monitor';

const page = (url: string, elementsText = '[1]<button>Next />'): PageState => ({ url, activeTabId: 't1', elementsText }) as unknown as PageState;
const click = (index: number) => [{ click_element: { index } }];

describe('ProgressMonitor', () => {
  it('notices the same actions three steps in a row, once, then watches afresh', () => {
    const monitor = new ProgressMonitor();
    expect(monitor.record(page('https://a.test/1'), click(1))).toBeUndefined();
    expect(monitor.record(page('https://a.test/2'), click(1))).toBeUndefined();
    expect(monitor.record(page('https://a.test/3'), click(1))).toMatchObject({ code: 'REPEATED_ACTIONS', message: expect.stringContaining('(click_element)') });
    expect(monitor.record(page('https://a.test/4'), click(1))).toBeUndefined();
  });

  it('notices a page that stays the same for four steps whatever the actions', () => {
    const monitor = new ProgressMonitor();
    const same = page('https://a.test/', '[1]<button>Load more />');
    expect([1, 2, 3].map((index) => monitor.record(same, click(index)))).toEqual([undefined, undefined, undefined]);
    expect(monitor.record(same, click(4))).toMatchObject({ code: 'PAGE_UNCHANGED', message: expect.stringContaining('has not changed for 3 steps') });
  });

  it('stays quiet while the page or the actions change', () => {
    const monitor = new ProgressMonitor();
    for (let step = 0; step < 20; step++) expect(monitor.record(page(`https://a.test/${step % 2}`, `[1]<a>${step} />`), click(step % 2))).toBeUndefined();
  });
});
