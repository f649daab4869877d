// The public entry points of plannav, in ONE place: tsup builds them, api-report checks them, tests import them.
// To add one: append it here and add its "exports" block to package.json; its API report follows.

/**
 * @typedef {object} Entry
 * @property {string} name     output base name: tsup writes dist/<name>.js, .cjs, .d.ts, .d.cts
 * @property {string} subpath  key in package.json "exports" ('.' or './<name>')
 * @property {string} src      source file of the entry point
 */

/** @type {Entry[]} */
export const entries = [
  { name: 'index', subpath: '.', src: 'src/index.ts' },
  { name: 'testing', subpath: './testing', src: 'src/testing/index.ts' },
  { name: 'playwright', subpath: './playwright', src: 'src/playwright/index.ts' },
  { name: 'openai', subpath: './openai', src: 'src/openai/index.ts' },
  { name: 'anthropic', subpath: './anthropic', src: 'src/anthropic/index.ts' },
  { name: 'gemini', subpath: './gemini', src: 'src/gemini/index.ts' },
  { name: 'ai-sdk', subpath: './ai-sdk', src: 'src/ai-sdk/index.ts' },
  { name: 'models', subpath: './models', src: 'src/models/index.ts' },
  { name: 'puppeteer', subpath: './puppeteer', src: 'src/puppeteer/index.ts' },
];

/**
 * ESM-only runtime dependencies (and their own dependencies): the CJS build bundles them so that
 * `require('plannav')` works on every Node 20.x; the ESM build keeps them external.
 */
export const bundledInCjs = ['p-retry', 'is-network-error', '@mdream/js'];

/** The import specifier of an entry, e.g. 'plannav' or 'plannav/testing'. */
export const specifierOf = (/** @type {Entry} */ entry) => `plannav${entry.subpath.slice(1)}`;

/** The API report written for an entry: etc/plannav.api.md, etc/plannav-testing.api.md, ... */
export const apiReportOf = (/** @type {Entry} */ entry) =>
  entry.name === 'index' ? 'etc/plannav.api.md' : `etc/plannav-${entry.name}.api.md`;
