// The pool both Chromium drivers give for concurrent pages: one Chromium, launched on the first
// create(), a browser context per driver, closed with its last driver. It knows no library: each driver says how to launch and open.

import { BrowserDisconnectedError, ConfigError } from '../errors';
import type { EgressProxy, TunnelGate } from './egress-proxy';

/** A browser a pool launched, as the pool needs it. */
export interface SharedBrowser<TBrowser> {
  readonly browser: TBrowser;
  /** The proxy its WebSockets go through; undefined when the launch routes its traffic itself. */
  readonly proxy: EgressProxy | undefined;
  /** Calls `listener` once the browser is gone, however it went (closed, crashed, killed). */
  onGone(listener: () => void): void;
  /** Ends the browser and removes what its launch made (proxy, profile). Never rejects. */
  close(): Promise<void>;
}

/** What a pool's driver holds of the shared browser, and gives back on close. */
export interface PoolLease {
  /** The driver's own gate of the shared proxy, for its request guard; undefined without a proxy. */
  readonly tunnels: TunnelGate | undefined;
  /** Tells the pool the driver is closed; the last one closes the browser. Idempotent. */
  release(): Promise<void>;
}

/** How a pool launches its browser and opens one driver in it, given by each driver. */
export interface PoolBackend<TBrowser, TDriver> {
  /** The driver class's name, for the messages: `PlaywrightDriver`. */
  readonly name: string;
  launch(): Promise<SharedBrowser<TBrowser>>;
  /** Opens a driver over a context of its own in `shared`; its close() must call `lease.release()`. */
  open(shared: SharedBrowser<TBrowser>, lease: PoolLease): Promise<TDriver>;
}

/**
 * Checks a pool's `size`.
 * @throws `ConfigError` unless it is a positive integer.
 */
export function checkPoolSize(size: unknown, name: string): number {
  if (size === undefined) return defaultPoolSize;
  if (typeof size === 'number' && Number.isInteger(size) && size > 0) return size;
  throw new ConfigError(`Option \`size\` of ${name}.pool() must be a positive integer (the most drivers open at once), got ${JSON.stringify(size)}.`, {
    field: 'size',
  });
}

/** The pool's `size` when none is given. */
export const defaultPoolSize = 4;

/**
 * Drivers over one shared browser. `create()` calls that overlap share one launch; a browser that
 * is gone (killed, crashed) fails its drivers and is launched anew by the next `create()`.
 */
export class SharedBrowserPool<TBrowser, TDriver extends { close(): Promise<void> }> {
  /** The most drivers open (or being opened) at once. */
  readonly size: number;
  private readonly backend: PoolBackend<TBrowser, TDriver>;
  /** The browser of the drivers open now, launched or launching; undefined while there is none. */
  private current: Promise<SharedBrowser<TBrowser>> | undefined;
  private readonly drivers = new Set<TDriver>();
  /** Drivers open or being opened: the browser closes when this comes back to 0. */
  private holders = 0;
  private readonly opening = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(size: number, backend: PoolBackend<TBrowser, TDriver>) {
    this.size = size;
    this.backend = backend;
  }

  /**
   * Opens a driver over a new context of the shared browser, launching the browser first when
   * none runs.
   * @throws `ConfigError` when `size` drivers are open already; `BrowserDisconnectedError` once the
   * pool is closed; `BrowserError` when the browser cannot be launched.
   */
  create(): Promise<TDriver> {
    if (this.closing) return Promise.reject(new BrowserDisconnectedError(`The browser pool is closed: make a new one with ${this.backend.name}.pool().`));
    if (this.holders >= this.size) {
      return Promise.reject(
        new ConfigError(`The browser pool has ${this.size} drivers open, its \`size\`: close one first, or give the pool a larger \`size\`.`, {
          field: 'size',
        }),
      );
    }
    this.holders++;
    const opening = this.open();
    this.opening.add(opening);
    void opening.then(
      () => this.opening.delete(opening),
      () => this.opening.delete(opening),
    );
    return opening;
  }

  /** Closes every driver still open, then the browser. Idempotent; `create()` rejects from then on. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.opening]);
      await Promise.allSettled([...this.drivers].map((driver) => driver.close()));
      await this.shutDown();
    })();
    return this.closing;
  }

  /** Same as `close()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async open(): Promise<TDriver> {
    let driver: TDriver | undefined;
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      if (driver) this.drivers.delete(driver);
      if (--this.holders === 0) await this.shutDown();
    };
    let shared: SharedBrowser<TBrowser>;
    try {
      shared = await (this.current ??= this.launch());
    } catch (error) {
      await release();
      throw error;
    }
    try {
      driver = await this.backend.open(shared, { tunnels: shared.proxy?.gate(), release });
    } catch (error) {
      await release();
      throw error;
    }
    if (!released) this.drivers.add(driver);
    if (this.closing) {
      // The pool was closed while this driver opened: it is not handed out.
      await driver.close().catch(() => undefined);
      throw new BrowserDisconnectedError(`The browser pool is closed: make a new one with ${this.backend.name}.pool().`);
    }
    return driver;
  }

  /** Launches the browser; once it is gone (or failed to start), the next create() launches another. */
  private launch(): Promise<SharedBrowser<TBrowser>> {
    const launching: Promise<SharedBrowser<TBrowser>> = this.backend.launch().then(
      (shared) => {
        shared.onGone(() => {
          if (this.current === launching) this.current = undefined;
        });
        return shared;
      },
      (error: unknown) => {
        if (this.current === launching) this.current = undefined;
        throw error;
      },
    );
    return launching;
  }

  /** Closes the browser of the drivers that were open, if it still runs. */
  private async shutDown(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    const shared = await current?.catch(() => undefined);
    await shared?.close();
  }
}
