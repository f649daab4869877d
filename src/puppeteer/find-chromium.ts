// The Chromium search the drivers share lives in src/chromium/find-chromium.ts; this path stays for
// the e2e tests that import it from here. It must not grow code of its own.
export { chromiumCandidates, findChromium, linuxChromiumCandidates } from '../chromium/find-chromium';
