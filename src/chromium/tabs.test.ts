import { describe, expect, it } from 'vitest';
import { TabTracker, type TrackedPage } from './tabs';

/** A page whose title reads answer only when the test says, in any order. */
class FakePage implements TrackedPage {
  readonly pending: ((title: string) => void)[] = [];
  on(): void {}
  off(): void {}
  mainFrame(): unknown {
    return 'main';
  }
  isClosed(): boolean {
    return false;
  }
  title(): Promise<string> {
    return new Promise((resolve) => this.pending.push(resolve));
  }
  url(): string {
    return 'http://127.0.0.1/page';
  }
}

function tracked(): { tracker: TabTracker<FakePage>; page: FakePage } {
  const tracker = new TabTracker<FakePage>({ watch: () => () => undefined, forgotten: () => undefined });
  const page = new FakePage();
  tracker.adopt(page, true);
  return { tracker, page };
}

describe('TabTracker titles', () => {
  it('keeps the title of the read started last when an older read ends after it', async () => {
    const { tracker, page } = tracked();
    const atCommit = tracker.refreshTitle(page);
    const atLoad = tracker.refreshTitle(page);
    page.pending[1]?.('LANDING page');
    await atLoad;
    // The read made at the commit, before the title was parsed, answers last.
    page.pending[0]?.('');
    await atCommit;
    expect((await tracker.info(page)).title).toBe('LANDING page');
  });

  it('reads the title of the document shown now when asked for a fresh one', async () => {
    const { tracker, page } = tracked();
    const first = tracker.refreshTitle(page);
    page.pending[0]?.('HOP page');
    await first;
    const info = tracker.info(page, 'fresh');
    await Promise.resolve();
    page.pending[1]?.('LANDING page');
    expect((await info).title).toBe('LANDING page');
  });

  it('keeps the last title read when the page does not answer within a second', async () => {
    const { tracker, page } = tracked();
    const first = tracker.refreshTitle(page);
    page.pending[0]?.('HOP page');
    await first;
    expect((await tracker.info(page, 'fresh')).title).toBe('HOP page');
  });
});
