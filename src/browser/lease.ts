// One task at a time per browser: a BrowserDriver has one active tab and one page state, so two
// tasks on it would act on each other's pages. A lease marks the driver as in use.

import { ConfigError } from '../errors';

/** Who holds a driver: shown in the error the next one gets. */
export interface DriverHolder {
  /** Such as `an Executor task` or `act()`. */
  readonly what: string;
  /** The holder's task id, when it has one. */
  readonly taskId?: string | undefined;
}

/**
 * The leases of every copy of plannav in this process, keyed by driver object: two installs of
 * the package (a bundler realm, a duplicated dependency) must see each other's leases too.
 */
const leases: WeakMap<object, DriverHolder> = ((globalThis as Record<symbol, unknown>)[Symbol.for('plannav.driver-leases')] ??= new WeakMap()) as WeakMap<
  object,
  DriverHolder
>;

/**
 * Marks `driver` as in use by `holder` and returns the function that releases it (calling it
 * twice is harmless).
 * @throws `ConfigError` (field `browser`) when another task or call holds the driver.
 */
export function leaseDriver(driver: object, holder: DriverHolder): () => void {
  const current = leases.get(driver);
  if (current) {
    const who = current.taskId ? `${current.what} (task ${current.taskId})` : current.what;
    throw new ConfigError(
      `This browser driver is in use by ${who}. A BrowserDriver runs one task at a time, since it has one active tab and page state: ` +
        'wait for that task to end, or give each concurrent task its own driver (such as one PlaywrightDriver.launch() or PuppeteerDriver per task).',
      { field: 'browser' },
    );
  }
  leases.set(driver, holder);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (leases.get(driver) === holder) leases.delete(driver);
  };
}
