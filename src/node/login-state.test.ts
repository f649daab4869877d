// The auth helper without a browser: a stand-in driver whose "site" remembers a login through the
// storage-state file, so each path (reuse, first login, stale state, a login that fails) can fail.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageState } from '../browser/storage-state';
import type { BrowserDriver } from '../browser/types';
import { BrowserError, ConfigError } from '../errors';
import { reuseLogin } from './login-state';

/** A browser that is logged in when it holds the site's current session. */
interface StandIn {
  session: string | undefined;
  closed: boolean;
  readonly storageState?: (options?: { path?: string }) => Promise<StorageState>;
  close(): Promise<void>;
}

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'plannav-login-state-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The site: its current valid session, and the stand-in browsers launched on it. */
function site(options: { loginWorks?: boolean; canSave?: boolean } = {}) {
  const launched: StandIn[] = [];
  const site = { valid: 'session-1', logins: 0, launched };
  const launch = async (storageState: string | undefined): Promise<StandIn & BrowserDriver> => {
    const session = storageState ? (JSON.parse(readFileSync(storageState, 'utf8')) as StorageState).cookies[0]?.value : undefined;
    const browser: StandIn = {
      session,
      closed: false,
      ...(options.canSave === false
        ? {}
        : {
            storageState: async (saveOptions) => {
              const state: StorageState = {
                cookies: [
                  { name: 'sid', value: browser.session ?? '', domain: 'shop.example', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' },
                ],
                origins: [],
              };
              if (saveOptions?.path) writeFileSync(saveOptions.path, JSON.stringify(state));
              return state;
            },
          }),
      close: async () => {
        browser.closed = true;
      },
    };
    launched.push(browser);
    return browser as StandIn & BrowserDriver;
  };
  return {
    site,
    options: (file: string) => ({
      file,
      launch,
      isLoggedIn: async (browser: StandIn) => browser.session === site.valid,
      login: async (browser: StandIn) => {
        site.logins++;
        if (options.loginWorks !== false) browser.session = site.valid;
      },
    }),
  };
}

describe('reuseLogin', () => {
  it('logs in once and saves the state, then reuses it without logging in', async () => {
    const file = join(folder, 'nested', 'first.json');
    const { site: shop, options } = site();
    const first = await reuseLogin(options(file));
    expect(first.status).toBe('logged-in');
    expect(shop.logins).toBe(1);
    expect(existsSync(file)).toBe(true);
    await first.close();

    await using second = await reuseLogin(options(file));
    expect(second.status).toBe('reused');
    expect(shop.logins).toBe(1);
    expect(second.browser.closed).toBe(false);
  });

  it('logs in again when the saved state is no longer logged in, and saves the new one', async () => {
    const file = join(folder, 'stale.json');
    const { site: shop, options } = site();
    await (await reuseLogin(options(file))).close();
    shop.valid = 'session-2'; // the site ended the old session
    await using session = await reuseLogin(options(file));
    expect(session.status).toBe('logged-in');
    expect(shop.logins).toBe(2);
    expect(readFileSync(file, 'utf8')).toContain('session-2');

    // Before a later task: still logged in, then logged out and in again.
    expect(await session.ensureLoggedIn()).toBe('still');
    shop.valid = 'session-3';
    expect(await session.ensureLoggedIn()).toBe('logged-in');
    expect(readFileSync(file, 'utf8')).toContain('session-3');
  });

  it('fails, closing the browser and leaving the file alone, when the login does not log in', async () => {
    const file = join(folder, 'failing.json');
    const { site: shop, options } = site({ loginWorks: false });
    const error = await reuseLogin(options(file)).catch((caught: unknown) => caught);
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/still not logged in/);
    expect(shop.launched.every((browser) => browser.closed)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('needs a driver that can save its storage state, and says so', async () => {
    const { site: shop, options } = site({ canSave: false });
    const error = await reuseLogin(options(join(folder, 'never.json'))).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/storageState\(\)/);
    expect(shop.logins).toBe(0);
    expect(shop.launched[0]?.closed).toBe(true);
  });
});
