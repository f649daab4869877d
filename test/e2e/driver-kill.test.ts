// A launched browser that is killed (SIGKILL, as a crash or an OOM kill would) leaves nothing in
// the temp folder: neither its profile nor Chromium's own org.chromium.Chromium.* folder (issue 11 #9).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';

/** The browser processes (not their helpers) whose profile is under `scratch`. */
function browserPids(scratch: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        return args.some((arg) => arg.startsWith(`--user-data-dir=${scratch}`)) && !args.some((arg) => arg.startsWith('--type='));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Polls until `scratch` is empty, for at most `ms`; returns what is left. */
async function emptied(scratch: string, ms: number): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = readdirSync(scratch);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each([
  ['PlaywrightDriver', () => PlaywrightDriver.launch()],
  ['PuppeteerDriver', () => PuppeteerDriver.launch()],
] as const)('%s', (_name, launch) => {
  it('a killed browser leaves nothing in the temp folder', { timeout: 60_000 }, async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'plannav-kill-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const driver = await launch();
      const pids = browserPids(scratch);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      expect(await emptied(scratch, 10_000)).toEqual([]);
      await driver.close().catch(() => undefined);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
    }
  });
});
