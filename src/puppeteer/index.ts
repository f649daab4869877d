// The public face of `plannav/puppeteer`: the Puppeteer driver and its options. Node-only;
// `puppeteer-core` is an optional peer dependency of plannav, needed only by this entry point.

export { PuppeteerDriver } from './puppeteer-driver';
export type { PuppeteerPool } from './pool';
export type {
  ChromiumDriverOptions,
  ChromiumLaunchOptions,
  PuppeteerConnectOptions,
  PuppeteerDriverOptions,
  PuppeteerLaunchOptions,
  PuppeteerPoolOptions,
  SettleOptions,
} from './options';
