// The driver conformance kit of plannav/testing, run against PuppeteerDriver in real headless
// Chromium: every case must pass, as it does for PlaywrightDriver.
import { it } from 'vitest';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { registerConformance } from '../../src/testing/conformance';
import { driverConformance } from '../../src/testing/driver-conformance';

/** Each case starts a browser; under a loaded machine that alone can take seconds. */
const caseTimeout = 45_000;

registerConformance(driverConformance({ createDriver: () => PuppeteerDriver.launch({ settle: { maxWaitMs: 2000 } }), caseTimeout }), (name, run) =>
  it(name, run, caseTimeout + 15_000),
);
