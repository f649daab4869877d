// What makes a value a BrowserDriver, and, when a user passed a Playwright or Puppeteer object
// instead, what it is and which call makes a driver of it. Duck typing only: no library imported.

import type { BrowserDriver } from './types';

/** The members every BrowserDriver implements; the core has a default for each of the others. */
export const requiredDriverMembers = ['tabs', 'activeTab', 'openTab', 'switchTab', 'closeTab', 'goto', 'frames', 'evaluate', 'screenshot', 'close'] as const;

/** The required members `value` lacks (all of them when it is not an object). */
export function missingDriverMembers(value: unknown): (typeof requiredDriverMembers)[number][] {
  if (typeof value !== 'object' || value === null) return [...requiredDriverMembers];
  return requiredDriverMembers.filter((member) => typeof (value as Record<string, unknown>)[member] !== 'function');
}

/** Whether `value` is a BrowserDriver of this version, with every required member. */
export function isBrowserDriver(value: unknown): value is BrowserDriver {
  return typeof value === 'object' && value !== null && (value as BrowserDriver).specificationVersion === 'v1' && missingDriverMembers(value).length === 0;
}

const fromPlaywright = "(from 'plannav/playwright')";
const fromPuppeteer = "(from 'plannav/puppeteer')";

/**
 * When `value` is something users pass by mistake where a BrowserDriver belongs (a Page, a
 * BrowserContext or a Browser of Playwright or Puppeteer, Playwright's `chromium`, a driver class,
 * a promise of a driver), what it is and what to pass instead, to follow "must be a BrowserDriver,
 * not "; `undefined` for anything else.
 *
 * @remarks
 * The shapes: a page has `mainFrame()`, and `context()` in Playwright but `browserContext()` in
 * Puppeteer; only Playwright's context has `addInitScript()`, only Puppeteer's `overridePermissions()`;
 * a Playwright browser has `newContext()` and `browserType()`, a Puppeteer one `defaultBrowserContext()`.
 */
export function foreignBrowserObject(value: unknown): string | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  const has = (member: string): boolean => typeof (value as Record<string, unknown>)[member] === 'function';
  if (typeof value === 'function') {
    const name = (value as { name?: unknown }).name;
    if (has('launch') && has('attach') && typeof name === 'string' && /Driver$/.test(name))
      return `the class ${name} itself: pass a driver it makes, such as \`await ${name}.launch()\``;
    return undefined;
  }
  if (has('then')) return 'a Promise: await it first, as in `browser: await PlaywrightDriver.launch()`';
  if (has('mainFrame') && has('context')) return `a Playwright Page: pass \`await PlaywrightDriver.attach(page)\` ${fromPlaywright}`;
  if (has('mainFrame') && has('browserContext')) return `a Puppeteer Page: pass \`await PuppeteerDriver.attach(page)\` ${fromPuppeteer}`;
  if (has('newPage') && has('addInitScript')) return `a Playwright BrowserContext: pass \`await PlaywrightDriver.attach(context)\` ${fromPlaywright}`;
  if (has('newContext') && has('browserType'))
    return `a Playwright Browser: pass \`await PlaywrightDriver.attach(await browser.newContext())\`, or let plannav start one with \`await PlaywrightDriver.launch()\` ${fromPlaywright}`;
  if (has('launchPersistentContext')) return `Playwright's chromium launcher: pass \`await PlaywrightDriver.launch()\` ${fromPlaywright}`;
  if (has('newPage') && has('defaultBrowserContext')) return `a Puppeteer Browser: pass \`await PuppeteerDriver.attach(browser)\` ${fromPuppeteer}`;
  if (has('newPage') && has('overridePermissions')) return `a Puppeteer BrowserContext: pass \`await PuppeteerDriver.attach(context)\` ${fromPuppeteer}`;
  return undefined;
}

/**
 * Why `value` is not a BrowserDriver, as the end of a sentence about the option that holds it
 * ("must be a BrowserDriver, not a Playwright Page: pass …"); `undefined` when it is one.
 */
export function browserDriverProblem(value: unknown): string | undefined {
  const foreign = foreignBrowserObject(value);
  if (foreign !== undefined) return `must be a BrowserDriver, not ${foreign}`;
  if (typeof value !== 'object' || value === null || (value as BrowserDriver).specificationVersion !== 'v1')
    return 'must be a BrowserDriver (specificationVersion "v1"), such as a PlaywrightDriver';
  const missing = missingDriverMembers(value);
  if (missing.length > 0) return `must be a BrowserDriver: it has no ${missing.map((member) => `${member}()`).join(', ')}`;
  return undefined;
}
