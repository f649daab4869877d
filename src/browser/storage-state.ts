// The storage state of a browser (cookies, localStorage, IndexedDB) in Playwright's file format, so a
// file saved by plannav and one saved by Playwright are interchangeable. Types only; no implementation.

import type { CallOptions } from './types';

/**
 * A cookie of a {@link StorageState}, as Playwright writes it.
 * @public
 */
export interface StorageStateCookie {
  readonly name: string;
  /** The cookie's value: a secret (a session id). Never logged, never given to the model. */
  readonly value: string;
  /** The cookie's domain: a host (`shop.example`) for a host-only cookie, `.shop.example` for one its subdomains get too. */
  readonly domain: string;
  readonly path: string;
  /** When it expires, in seconds since the epoch; -1 for a session cookie. */
  readonly expires: number;
  readonly httpOnly: boolean;
  readonly secure: boolean;
  readonly sameSite: 'Strict' | 'Lax' | 'None';
}

/**
 * What one origin keeps in the browser: its localStorage and, where the driver can read it, its IndexedDB.
 * @public
 */
export interface StorageStateOrigin {
  /** The origin, such as `https://shop.example`. */
  readonly origin: string;
  readonly localStorage: { name: string; value: string }[];
  /** The origin's IndexedDB databases in Playwright's format; only PlaywrightDriver saves and loads them. */
  readonly indexedDB?: unknown[] | undefined;
}

/**
 * A browser's storage state: what keeps a user logged in. Save it with a driver's `storageState()`,
 * load it with the `storageState` launch option of `PlaywrightDriver` or `PuppeteerDriver`.
 *
 * @remarks
 * The file is Playwright's storage-state format: `context.storageState({ path })` of Playwright
 * writes files the drivers load, and Playwright's `newContext({ storageState })` loads the drivers'.
 * It holds secrets (session cookies): the drivers write it readable by its owner only (mode 0600),
 * and plannav never puts its values in a history, an event or a log.
 * The arrays are plain (not readonly) as in Playwright's own type, so a state passes to
 * Playwright's `newContext({ storageState })` as it is.
 * @public
 */
export interface StorageState {
  readonly cookies: StorageStateCookie[];
  readonly origins: StorageStateOrigin[];
}

/**
 * Options of a driver's `storageState()`.
 * @public
 */
export interface StorageStateOptions extends CallOptions {
  /** Also write the state to this file (JSON, readable by its owner only: mode 0600), replacing what it held. */
  readonly path?: string | undefined;
}
