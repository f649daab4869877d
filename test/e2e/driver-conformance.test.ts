// The driver conformance kit in real headless Chromium: PlaywrightDriver and the shortest driver of
// examples/custom-driver.ts pass every case, and drivers broken on purpose fail with a message that
// names the broken contract.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { CustomDriver } from '../../examples/custom-driver';
import type { BrowserDriver, FrameInfo, PageScript } from '../../src/browser/types';
import { PlaywrightDriver } from '../../src/playwright/index';
import { ConformanceError, registerConformance, type ConformanceCase } from '../../src/testing/conformance';
import { driverConformance, type DriverConformanceOptions } from '../../src/testing/driver-conformance';
import { rejectionOf } from '../helpers/rejection';
import { pageChromium } from '../helpers/page-chromium';

/** Each case starts a driver; under a loaded machine that alone can take seconds. */
const caseTimeout = 45_000;
const registerCases = (cases: readonly ConformanceCase[]): void => registerConformance(cases, (name, run) => it(name, run, caseTimeout + 15_000));

let browser: Browser | undefined;

/** A CustomDriver in a fresh context of the one browser this file launches (contexts are cheap). */
async function customDriver(): Promise<CustomDriver> {
  browser ??= await chromium.launch({ executablePath: pageChromium(), args: ['--no-sandbox', '--disable-gpu'] });
  return CustomDriver.create(await browser.newContext({ viewport: { width: 1280, height: 900 } }));
}

afterAll(async () => {
  await browser?.close();
});

describe('PlaywrightDriver', () => {
  // Attached to a fresh context of the file's one browser per case: launching a browser per case
  // would take most of the file's time. test/e2e/playwright-driver.test.ts covers launch().
  const createDriver = async (): Promise<PlaywrightDriver> => {
    browser ??= await chromium.launch({ executablePath: pageChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    return PlaywrightDriver.attach(await browser.newContext({ viewport: { width: 1280, height: 900 } }), { settle: { maxWaitMs: 2000 } });
  };
  registerCases(driverConformance({ createDriver, caseTimeout }));
});

describe('examples/custom-driver.ts', () => {
  registerCases(driverConformance({ createDriver: customDriver, caseTimeout }));
});

/** `driver` with some members replaced; the others are the driver's own, bound to it. */
function withOverrides(driver: BrowserDriver, overrides: Partial<BrowserDriver>): BrowserDriver {
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) return (overrides as Record<PropertyKey, unknown>)[property];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function caseNamed(createDriver: DriverConformanceOptions['createDriver'], name: string): ConformanceCase {
  const found = driverConformance({ createDriver, caseTimeout }).find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no case named ${name}`);
  return found;
}

/** Runs the case with a broken driver and returns its failure, checked for the parts every failure has. */
async function brokenContract(name: string, breakDriver: (driver: BrowserDriver) => Partial<BrowserDriver>): Promise<ConformanceError> {
  const error = await rejectionOf<Error>(
    caseNamed(async () => {
      const driver = await customDriver();
      return withOverrides(driver, breakDriver(driver));
    }, name).run(),
  );
  expect(ConformanceError.isInstance(error), String(error)).toBe(true);
  const failure = error as ConformanceError;
  expect(failure.check).toBe(name);
  expect(failure.message).toContain(`Conformance check failed: ${name}`);
  for (const line of ['Contract: ', 'Expected: ', 'Received: ', 'Fix: ']) expect(failure.message).toContain(line);
  return failure;
}

describe('a broken driver', () => {
  it('whose evaluate does not await promises fails the evaluate contract', { timeout: caseTimeout }, async () => {
    const failure = await brokenContract('evaluate › awaits a script that returns a promise', (driver) => ({
      // Serialises what the script returns at once, as a driver without awaitPromise does: a promise becomes {}.
      evaluate: <TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg) =>
        driver.evaluate(
          frameId,
          { id: script.id, source: `(argument) => { const value = (${script.source})(argument); return value instanceof Promise ? {} : value; }` },
          arg,
        ),
    }));
    expect(failure.message).toMatch(/Contract: evaluate\(\) runs .* a promise is awaited/);
    expect(failure.received).toBe('{}');
    expect(failure.fix).toMatch(/awaitPromise/);
  });

  it('whose switchTab accepts an unknown id fails the switchTab contract', { timeout: caseTimeout }, async () => {
    const failure = await brokenContract('tabs › switching to an unknown id is a BrowserError naming the open tabs', (driver) => ({
      switchTab: async (tabId: string) => (await driver.tabs()).find((tab) => tab.id === tabId) ?? driver.activeTab(),
    }));
    expect(failure.message).toMatch(/Contract: switchTab with an id that is not an open tab rejects with a BrowserError naming the open tabs/);
    expect(failure.received).toMatch(/^a value after \d+ ms: \{"id":"tab-/);
  });

  it('whose frames() reports the border box fails the frames contract', { timeout: caseTimeout }, async () => {
    const failure = await brokenContract('frames › lists the top frame first, then same- and cross-origin children with their parent and offset', (driver) => ({
      frames: async (options) =>
        (await driver.frames(options)).map((frame): FrameInfo =>
          frame.offset ? { ...frame, offset: { x: frame.offset.x - 6, y: frame.offset.y - 6 } } : frame,
        ),
    }));
    expect(failure.contract).toMatch(/^frames\(\) lists the frames of the active tab, top frame first/);
    expect(failure.fix).toMatch(/clientLeft/);
  });

  it('whose goto ignores the abort signal fails the cancellation contract', { timeout: caseTimeout }, async () => {
    const failure = await brokenContract('cancellation › an abort ends a goto to a server that never answers within 1 s', (driver) => ({
      goto: (url, options) => driver.goto(url, { timeout: options?.timeout }),
    }));
    expect(failure.contract).toMatch(/rejects promptly when the signal aborts/);
    expect(failure.received).toMatch(/^no answer after \d+ ms$/);
  });

  it('that is not a BrowserDriver fails before any check runs', { timeout: caseTimeout }, async () => {
    const error = await rejectionOf<ConformanceError>(
      caseNamed(async () => ({ specificationVersion: 'v0' }) as unknown as BrowserDriver, 'driver › implements BrowserDriver v1').run(),
    );
    expect(ConformanceError.isInstance(error)).toBe(true);
    expect(error.contract).toMatch(/^createDriver returns a BrowserDriver/);
    expect(error.received).toContain('specificationVersion is "v0"');
    expect(error.received).toContain('evaluate is not a function');
  });
});
