// The driver conformance kit: the contract checks plannav's own drivers pass, for anyone who writes a
// BrowserDriver, as runner-agnostic cases. It validates its options and assembles the checks; the
// checks live beside it (navigation, frames, elements, lifecycle), the fixture pages too.

import { z } from 'zod';
import type { BrowserDriver } from '../browser/types';
import { ConfigError } from '../errors';
import type { ConformanceCase } from './conformance';
import { actionChecks } from './driver-conformance-actions';
import { elementChecks } from './driver-conformance-elements';
import { frameChecks } from './driver-conformance-frames';
import { toDriverCase } from './driver-conformance-harness';
import { lifecycleChecks } from './driver-conformance-lifecycle';
import { navigationChecks } from './driver-conformance-navigation';

/** Options of {@link driverConformance}. @public */
export interface DriverConformanceOptions {
  /**
   * Starts the driver under test. Called once per case, at its start; the case closes the driver
   * when it ends, whatever happened. The driver must have an active tab (a blank one is fine).
   *
   * @example
   * ```ts
   * createDriver: () => PlaywrightDriver.launch({ settle: { maxWaitMs: 2000 } })
   * ```
   */
  readonly createDriver: () => BrowserDriver | Promise<BrowserDriver>;
  /**
   * Milliseconds one case may take, from `createDriver` to `close`, before it fails as hanging.
   * Most cases take a second or two besides starting the browser. Keep it below your test
   * runner's own timeout for the test (vitest and jest default to 5000 ms: raise theirs), so
   * the kit's message is the one you see.
   * @defaultValue 30000
   */
  readonly caseTimeout?: number | undefined;
}

const optionsSchema = z
  .object({
    createDriver: z.custom<DriverConformanceOptions['createDriver']>((value) => typeof value === 'function', {
      error: 'must be a function that returns your BrowserDriver',
    }),
    caseTimeout: z.number({ error: 'must be a number of milliseconds' }).int('must be an integer').positive('must be positive').optional(),
  })
  .strict();

function resolveOptions(options: DriverConformanceOptions): z.output<typeof optionsSchema> {
  const parsed = optionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    const field = issue.keys[0] ?? '';
    throw new ConfigError(`Unknown option \`${field}\` of driverConformance. Check its spelling against DriverConformanceOptions.`, { field });
  }
  const field = issue.path.join('.');
  const value = typeof options === 'object' && options !== null ? (options as unknown as Record<string, unknown>)[field] : undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- String() is the last resort for a value JSON cannot write
  const got = value === undefined ? 'it is missing' : `got ${typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value))}`;
  throw new ConfigError(`Option \`${field}\` of driverConformance ${issue.message}; ${got}.`, { field });
}

/**
 * The conformance checks of a `BrowserDriver`, one {@link ConformanceCase} per contract: tabs
 * (ids, switching, closing, popups becoming active), goto (its wait, failed loads), frames (order,
 * parents, content-box offsets, hidden frames, stable ids), evaluate (JSON in and out, promises,
 * gone frames), the snapshot the core takes through them (a cross-origin iframe included), the
 * element methods (click, a covered click, fill, selectOption, press, scroll, refs that no longer
 * hold), the gestures where the driver has them (hover, doubleClick, a right click,
 * dragAndDrop, mouseClick, reload, dialogs and handleDialog), the screenshot, settling on a busy page, cancellation, timeouts (a goto that times out
 * leaves the tab readable) and close (later calls reject with `BrowserDisconnectedError`).
 *
 * @remarks
 * Each case serves its own fixture pages from a server on 127.0.0.1 (a free port), with
 * `localhost` on the same port as a second origin for cross-origin frames; nothing reaches the
 * network. It calls `createDriver()`, runs its check, then calls `close()` on the driver and
 * stops the server, pass or fail. The cases need Node's `http` module (Node 20+, or Bun and
 * Deno's Node compatibility) and a browser that may load pages from 127.0.0.1 and localhost.
 *
 * Element methods are checked through `resolveDriver(driver)`, as the Executor uses them: the
 * driver's own where it has them, the core's defaults (through `evaluate` and the page runtime)
 * where it leaves them out. A failed case rejects with a {@link ConformanceError} naming the
 * contract, what was expected, what came back and how to fix it. The result is an array: filter
 * it by `name` to run some checks only.
 *
 * @example
 * vitest (or jest); each case starts a browser, so give the tests more than the default 5 s:
 * ```ts
 * import { it } from 'vitest';
 * import { driverConformance, registerConformance } from 'plannav/testing';
 * import { MyDriver } from './my-driver';
 *
 * registerConformance(driverConformance({ createDriver: () => MyDriver.launch() }), (name, run) => it(name, run, 60_000));
 * ```
 *
 * @example
 * `node:test` (no timeout by default; the kit bounds each case itself):
 * ```ts
 * import { test } from 'node:test';
 * import { driverConformance, registerConformance } from 'plannav/testing';
 *
 * registerConformance(driverConformance({ createDriver: () => MyDriver.launch() }), test);
 * ```
 * @throws `ConfigError` when an option is invalid.
 * @public
 */
export function driverConformance(options: DriverConformanceOptions): ConformanceCase[] {
  const resolved = resolveOptions(options);
  const caseTimeout = resolved.caseTimeout ?? 30_000;
  return [...navigationChecks, ...frameChecks, ...elementChecks, ...actionChecks, ...lifecycleChecks].map((check) =>
    toDriverCase(check, resolved.createDriver, caseTimeout),
  );
}
