// The page-change probe in a real page: which actions change the page under a step's remaining
// actions (another URL, a new document, interactive elements the model has not seen) and which do not.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PageState } from '../../src/browser/page-state';
import { describePageChange, readBaseline, type PageBaseline } from '../../src/dom/page-changes';
import { capture, indexWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;
let state: PageState;
let before: PageBaseline;

beforeAll(async () => {
  fixture = await startBrowser();
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  state = await capture(fixture, 'page-changes.html');
  before = await readBaseline(fixture.driver, {});
});

async function changeAfterClicking(label: string): Promise<string | undefined> {
  await fixture.driver.click(state.elements.get(indexWith(state.elementsText, label))!);
  const frames = [...new Set([...state.elements.values()].map((element) => element.frameId))];
  return (await describePageChange(fixture.driver, before, frames, {})).change;
}

describe('describePageChange in Chromium', () => {
  it('sees elements that appear when a hidden menu opens', async () => {
    expect(await changeAfterClicking('Open menu')).toBe('2 new element(s) appeared');
  });

  it('sees a created element and one in a shadow root', async () => {
    expect(await changeAfterClicking('Add button')).toBe('1 new element(s) appeared');
    state = await capture(fixture, undefined);
    expect(await changeAfterClicking('Add shadow button')).toBe('1 new element(s) appeared');
  });

  it('ignores elements outside the viewport and elements that went away', async () => {
    expect(await changeAfterClicking('Add far button')).toBeUndefined();
    expect(await changeAfterClicking('Hide search')).toBeUndefined();
  });

  it('ignores what the snapshot would not index either: disabled controls and one-pixel links', async () => {
    expect(await changeAfterClicking('Add inert things')).toBeUndefined();
  });

  it('does not count typing as a change, but a new fragment is one (hash routes show other views)', async () => {
    await fixture.driver.fill(state.elements.get(indexWith(state.elementsText, 'Search'))!, 'mugs');
    const frames = [...new Set([...state.elements.values()].map((element) => element.frameId))];
    expect((await describePageChange(fixture.driver, before, frames, {})).change).toBeUndefined();
    expect(await changeAfterClicking('Jump')).toBe(`the URL changed to ${fixture.server.url('page-changes.html#section')}`);
  });

  it('sees another URL and a new document at the same URL', async () => {
    expect(await changeAfterClicking('Next page')).toBe(`the URL changed to ${fixture.server.url('page-changes.html?next')}`);
    state = await capture(fixture, 'page-changes.html');
    before = await readBaseline(fixture.driver, {});
    expect(await changeAfterClicking('Post to self')).toBe('the page loaded a new document');
  });
});
