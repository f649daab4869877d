// The driver conformance kit of plannav/testing, run against PuppeteerDriver in real headless
// Chromium: every case must pass, as it does for PlaywrightDriver.
//
// One browser for the file; each case connects a driver of its own to it (`PuppeteerDriver.connect`
// opens a fresh browser context and closes it again), so a case starts in a clean context without
// launching Chromium again. test/e2e/puppeteer-driver.test.ts covers launch().
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, it } from 'vitest';
import { findChromium } from '../../src/chromium/find-chromium';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { registerConformance } from '../../src/testing/conformance';
import { driverConformance } from '../../src/testing/driver-conformance';

const caseTimeout = 45_000;
let browser: Browser;

beforeAll(async () => {
  browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}, 60_000);

afterAll(async () => {
  await browser.close();
});

registerConformance(
  driverConformance({ createDriver: () => PuppeteerDriver.connect({ browserWSEndpoint: browser.wsEndpoint(), settle: { maxWaitMs: 2000 } }), caseTimeout }),
  (name, run) => it(name, run, caseTimeout + 15_000),
);
