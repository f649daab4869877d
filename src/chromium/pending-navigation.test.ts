import { describe, expect, it } from 'vitest';
import { stopStuckLoad, type NavigationRequest, type StuckLoadTab } from './pending-navigation';

function request(url: string): NavigationRequest {
  return { isNavigationRequest: () => true, frame: () => 'main', url: () => url };
}

/**
 * A tab whose stop is sent after `beforeSend` has run (what happens while the CDP session opens),
 * and which records whether Page.stopLoading went out.
 */
function tab(
  pendingAtGiveUp: NavigationRequest | undefined,
  beforeSend: (state: { current: NavigationRequest | undefined }) => void,
): StuckLoadTab & { sent: number } {
  const state = { current: pendingAtGiveUp };
  const result = {
    sent: 0,
    pending: pendingAtGiveUp
      ? {
          get current() {
            return state.current;
          },
          async stop(send: () => Promise<unknown>) {
            const url = state.current?.url();
            await send();
            return url;
          },
        }
      : undefined,
    url: () => 'http://127.0.0.1/now',
    async stopLoading(stillWanted: () => boolean) {
      beforeSend(state);
      if (stillWanted()) result.sent++;
    },
  };
  return result;
}

describe('stopStuckLoad: only the load given up on is stopped', () => {
  it('stops the document the tab still waits for when the caller gave up', async () => {
    const slow = tab(request('http://127.0.0.1/slow'), () => undefined);
    const note = await stopStuckLoad(slow, () => 1, false);
    expect(slow.sent).toBe(1);
    expect(note).toBe('The tab was still waiting for http://127.0.0.1/slow, so its loading was stopped; it shows http://127.0.0.1/now.');
  });

  it('leaves alone a navigation that began after the caller gave up (the user library’s own goto, the page’s next document)', async () => {
    const raced = tab(request('http://127.0.0.1/given-up'), (state) => {
      state.current = request('http://127.0.0.1/users-own-goto');
    });
    await stopStuckLoad(raced, () => 1, false);
    expect(raced.sent).toBe(0);
  });

  it('stops nothing after a read given up on while the tab waited for no document', async () => {
    const idle = tab(undefined, () => undefined);
    expect(await stopStuckLoad(idle, () => 1, false)).toBeUndefined();
    expect(idle.sent).toBe(0);
  });

  it('stops whatever the tab loads after a call that started a load not reported yet, unless the driver started another since', async () => {
    const own = tab(undefined, () => undefined);
    await stopStuckLoad(own, () => 1, true);
    expect(own.sent).toBe(1);
    let loads = 1;
    const next = tab(undefined, () => (loads = 2));
    await stopStuckLoad(next, () => loads, true);
    expect(next.sent).toBe(0);
  });
});
