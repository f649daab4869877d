// The auth helper of plannav/node: log in once (a task with secrets, a replayed recording, your own
// steps), keep the browser's storage state in a file, start later browsers from it, and log in again
// only when a check says the login is gone. It never reads a cookie's or an item's value itself.

import { access, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { BrowserDriver } from '../browser/types';
import { BrowserError, ConfigError } from '../errors';

/**
 * How {@link reuseLogin} starts a browser, checks the login and logs in.
 * @public
 */
export interface ReuseLoginOptions<D extends BrowserDriver> {
  /** The storage-state file: read when it exists, written (mode 0600) after each login. Keep it out of version control. */
  readonly file: string;
  /**
   * Starts a browser; `storageState` is the file's path when it exists, else undefined.
   * @example
   * ```ts
   * launch: (storageState) => PlaywrightDriver.launch({ storageState })
   * ```
   */
  readonly launch: (storageState: string | undefined) => Promise<D>;
  /**
   * Whether the browser is logged in: open a page only a logged-in user sees and look, with the
   * driver's own calls (no model needed). Called after the launch and after each login.
   */
  readonly isLoggedIn: (browser: D) => Promise<boolean>;
  /**
   * Logs in, in the browser given: an `Executor` task with `secrets` (the model sees their names
   * only), a `HistoryReplay` of a recorded login with the secrets as `variables`, or steps of your own.
   */
  readonly login: (browser: D) => Promise<void>;
}

/**
 * A browser that is logged in, from {@link reuseLogin}.
 * @public
 */
export interface LoginSession<D extends BrowserDriver> extends AsyncDisposable {
  /** The logged-in browser: yours to use; `close()` closes it. */
  readonly browser: D;
  /** How the login was had: the saved state still worked (`reused`), or `login` ran (`logged-in`). */
  readonly status: 'reused' | 'logged-in';
  /**
   * Checks the login again (before a later task) and, when `isLoggedIn` says it is gone, logs in
   * again in the same browser and saves the new state. Resolves with what it did.
   * @throws `BrowserError` when the login ran and the check still says logged out.
   */
  ensureLoggedIn(): Promise<'still' | 'logged-in'>;
  /** Closes the browser. */
  close(): Promise<void>;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a browser that is logged in, logging in only when needed: with the saved storage state
 * when `file` exists and the check passes; otherwise it runs `login`, checks again, and saves the
 * browser's storage state to `file` (mode 0600) for the next time. The returned session's
 * `ensureLoggedIn()` does the same check (and login) before later tasks.
 *
 * @remarks
 * The driver must have `storageState()` (PlaywrightDriver and PuppeteerDriver do). The state file
 * holds session secrets: plannav writes it readable by its owner only and never puts its values
 * in a history, an event or a log. A state file the launch rejects (not JSON, not a storage state)
 * is an error of the launch: delete the file to log in afresh.
 * @throws `ConfigError` when the driver cannot save a storage state; `BrowserError` when `login`
 * ran and `isLoggedIn` still says logged out; what `launch`, `login` or `isLoggedIn` throw. The
 * browser is closed on every failure.
 * @example
 * ```ts
 * import { Executor } from 'plannav';
 * import { reuseLogin } from 'plannav/node';
 * import { PlaywrightDriver } from 'plannav/playwright';
 *
 * await using session = await reuseLogin({
 *   file: '.auth/shop.json',
 *   launch: (storageState) => PlaywrightDriver.launch({ storageState }),
 *   isLoggedIn: async (browser) => {
 *     await browser.goto('https://shop.example/account');
 *     return !(await browser.currentUrl()).includes('/login');
 *   },
 *   login: async (browser) => {
 *     const task = 'Log in to https://shop.example with the user name shop_user and the password shop_password';
 *     await new Executor({ task, llm, browser, secrets: { shop_user: 'ada', shop_password: process.env.SHOP_PASSWORD ?? '' } }).execute();
 *   },
 * });
 * await new Executor({ task: 'Download the last statement', llm, browser: session.browser }).execute();
 * ```
 * @public
 */
export async function reuseLogin<D extends BrowserDriver>(options: ReuseLoginOptions<D>): Promise<LoginSession<D>> {
  for (const field of ['launch', 'isLoggedIn', 'login'] as const) {
    if (typeof options[field] !== 'function') throw new ConfigError(`Option \`${field}\` of reuseLogin must be a function.`, { field });
  }
  if (typeof options.file !== 'string' || !options.file.trim()) {
    throw new ConfigError('Option `file` of reuseLogin must be the path of the storage-state file (it need not exist yet).', { field: 'file' });
  }
  const file = resolve(options.file);
  const browser = await options.launch((await exists(file)) ? file : undefined);
  const logIn = async (): Promise<void> => {
    await options.login(browser);
    if (!(await options.isLoggedIn(browser))) {
      throw new BrowserError(
        `The login ran, and the browser is still not logged in (isLoggedIn says so): check the login's steps and secrets. ${file} was left as it was.`,
      );
    }
    await mkdir(dirname(file), { recursive: true });
    await browser.storageState?.({ path: file });
  };
  let status: LoginSession<D>['status'];
  try {
    if (!browser.storageState) {
      throw new ConfigError('reuseLogin needs a driver with storageState() (PlaywrightDriver, PuppeteerDriver) to save the login.', { field: 'launch' });
    }
    if (await options.isLoggedIn(browser)) status = 'reused';
    else {
      await logIn();
      status = 'logged-in';
    }
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
  const close = (): Promise<void> => browser.close();
  return {
    browser,
    status,
    ensureLoggedIn: async () => {
      if (await options.isLoggedIn(browser)) return 'still';
      await logIn();
      return 'logged-in';
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
