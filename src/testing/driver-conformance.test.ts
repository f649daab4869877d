import { describe, expect, it } from 'vitest';
import { configErrorOf, rejectionOf } from '../../test/helpers/rejection';
import type { BrowserDriver, TabInfo } from '../browser/types';
import { ConformanceError } from './conformance';
import { driverConformance, type DriverConformanceOptions } from './driver-conformance';
import { jpegSize } from './driver-conformance-lifecycle';

/** Never called: building the cases starts nothing. */
const createDriver = (): BrowserDriver => {
  throw new Error('not called');
};

describe('driverConformance', () => {
  it('rejects a missing createDriver, a bad caseTimeout and unknown options with a ConfigError naming the field', () => {
    const attempt = (options: unknown) => configErrorOf(() => driverConformance(options as DriverConformanceOptions));
    expect(attempt({}).message).toBe('Option `createDriver` of driverConformance must be a function that returns your BrowserDriver; it is missing.');
    expect(attempt({ createDriver, caseTimeout: 0 })).toMatchObject({
      field: 'caseTimeout',
      message: 'Option `caseTimeout` of driverConformance must be positive; got 0.',
    });
    expect(attempt({ createDriver, caseTimeout: 'long' }).message).toBe(
      'Option `caseTimeout` of driverConformance must be a number of milliseconds; got "long".',
    );
    expect(attempt({ createDriver, timeout: 5 })).toMatchObject({
      field: 'timeout',
      message: expect.stringMatching(/^Unknown option `timeout` of driverConformance/),
    });
  });

  it('names every case `group › check`, once each, over the contract groups, without starting anything', () => {
    const names = driverConformance({ createDriver }).map((conformanceCase) => conformanceCase.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+ › \S/);
    expect([...new Set(names.map((name) => name.split(' › ')[0]))]).toEqual([
      'driver',
      'tabs',
      'goto',
      'frames',
      'evaluate',
      'snapshot',
      'elements',
      'gestures',
      'dialogs',
      'screenshot',
      'settle',
      'cancellation',
      'timeouts',
      'close',
    ]);
  });
});

/** A driver whose every member resolves at once, except those given; enough for the harness's checks of the driver itself. */
function stubDriver(members: Partial<BrowserDriver>, closed: { count: number }): BrowserDriver {
  const tab: TabInfo = { id: 'tab-1', url: 'about:blank', title: '' };
  return {
    specificationVersion: 'v1',
    tabs: async () => [tab],
    activeTab: async () => tab,
    openTab: async () => tab,
    switchTab: async () => tab,
    closeTab: async () => undefined,
    goto: async () => undefined,
    frames: async () => [{ id: 'frame-1', url: 'about:blank' }],
    evaluate: async () => undefined as never,
    screenshot: async () => new Uint8Array(),
    close: async () => {
      closed.count++;
    },
    [Symbol.asyncDispose]: async () => undefined,
    ...members,
  };
}

describe('driverConformance cases', () => {
  const named = (createDriver: DriverConformanceOptions['createDriver'], caseTimeout: number) => {
    const found = driverConformance({ createDriver, caseTimeout }).find((candidate) => candidate.name === 'driver › implements BrowserDriver v1');
    if (!found) throw new Error('no such case');
    return found;
  };

  it('fails a case whose call never settles within caseTimeout, saying what it waited for, and closes the driver', async () => {
    const closed = { count: 0 };
    const hanging = stubDriver({ activeTab: () => new Promise<TabInfo>(() => undefined) }, closed);
    const error = await rejectionOf<ConformanceError>(named(() => hanging, 300).run());
    expect(ConformanceError.isInstance(error)).toBe(true);
    expect(error.contract).toBe('every driver call ends: with a value, an error, a timeout or a cancel');
    expect(error.received).toBe('still waiting for activeTab() after 300 ms');
    expect(closed.count).toBe(1);
  });

  it('closes a driver that createDriver returns after the case gave up on it', async () => {
    const closed = { count: 0 };
    const late = new Promise<BrowserDriver>((resolve) => setTimeout(() => resolve(stubDriver({}, closed)), 400));
    const error = await rejectionOf<ConformanceError>(named(() => late, 100).run());
    expect(error.received).toBe('still waiting for createDriver() to return after 100 ms');
    await late;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed.count).toBe(1);
  });

  it('fails a passed check whose driver does not close', async () => {
    const error = await rejectionOf<ConformanceError>(
      named(() => stubDriver({ close: () => Promise.reject(new Error('the browser is gone')) }, { count: 0 }), 2000).run(),
    );
    expect(error.contract).toBe('close() releases what the driver created, and resolves');
    expect(error.received).toMatch(/^a rejection after \d+ ms: Error: the browser is gone$/);
  });
});

describe('jpegSize', () => {
  it('reads the size from the frame header after other segments, and gives up on bytes that are not a JPEG', () => {
    // SOI, an APP0 segment of 4 bytes, then SOF0: length 17, precision 8, height 0x0258 (600), width 0x0320 (800).
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03]);
    expect(jpegSize(jpeg)).toEqual({ width: 800, height: 600 });
    expect(jpegSize(Uint8Array.from([0xff, 0xd8, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]))).toBeUndefined();
    expect(jpegSize(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04]))).toBeUndefined();
  });
});
