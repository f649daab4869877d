// The public face of `plannav/playwright`: the Playwright driver and its options. Node-only;
// `playwright-core` is an optional peer dependency of plannav, needed only by this entry point.

export { PlaywrightDriver } from './playwright-driver';
export type { PlaywrightPool } from './pool';
export type {
  ChromiumDriverOptions,
  ChromiumLaunchOptions,
  PlaywrightConnectOptions,
  PlaywrightDriverOptions,
  PlaywrightLaunchOptions,
  PlaywrightPoolOptions,
  SettleOptions,
} from './options';
