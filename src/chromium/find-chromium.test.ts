import { describe, expect, it } from 'vitest';
import { ensureChromium, ensureHeadlessShell, HEADLESS_SHELL, linuxChromiumCandidates as scriptCandidates } from '../../scripts/ensure-deps.mjs';
import { findChromium, linuxChromiumCandidates } from './find-chromium';

describe('the Chromium candidates', () => {
  it('are the same in findChromium and in scripts/ensure-deps.mjs', () => {
    expect(scriptCandidates).toEqual(linuxChromiumCandidates);
    for (const path of linuxChromiumCandidates) expect(findChromium('linux', {}, (candidate) => candidate === path)).toBe(path);
  });
});

describe('ensure-deps ensureChromium', () => {
  const run = (environment: Parameters<typeof ensureChromium>[0]): { code: number; errors: string[]; aptCalls: string[][] } => {
    const errors: string[] = [];
    const aptCalls: string[][] = [];
    const code = ensureChromium({
      platform: 'linux',
      env: {},
      exists: () => false,
      isRoot: true,
      os: ['debian'],
      apt: (args) => {
        aptCalls.push(args);
        return args[0] !== 'install';
      },
      log: () => undefined,
      error: (message) => errors.push(message),
      ...environment,
    });
    return { code, errors, aptCalls };
  };

  it('passes when a browser is found', () => {
    expect(run({ exists: (path) => path === '/usr/bin/google-chrome' }).code).toBe(0);
    expect(run({ env: { PLANNAV_CHROMIUM_PATH: '/opt/x/chrome' }, exists: (path) => path === '/opt/x/chrome' }).code).toBe(0);
  });

  it('fails with a clear message when apt-get cannot install chromium', () => {
    const result = run({});
    expect(result.code).toBe(1);
    expect(result.aptCalls.map((args) => args[0])).toEqual(['update', 'install']);
    expect(result.errors[0]).toMatch(/no Chromium found .*apt-get could not install.*PLANNAV_CHROMIUM_PATH.*PLANNAV_SKIP_BROWSER=1/);
  });

  it('fails without trying to install when not root, not Debian, or on Ubuntu (a snap that does not work in containers)', () => {
    for (const environment of [{ isRoot: false }, { os: ['fedora'] }, { os: ['ubuntu', 'debian'] }]) {
      const result = run(environment);
      expect(result.code, JSON.stringify(environment)).toBe(1);
      expect(result.aptCalls).toEqual([]);
      expect(result.errors[0]).toMatch(/snap, which does not work in containers/);
    }
  });

  it('passes after installing, and skips the check with PLANNAV_SKIP_BROWSER=1', () => {
    let installed = false;
    expect(run({ exists: (path) => installed && path === '/usr/bin/chromium', apt: (args) => ((installed ||= args[0] === 'install'), true) }).code).toBe(0);
    expect(run({ env: { PLANNAV_SKIP_BROWSER: '1' } }).code).toBe(0);
  });
});

describe('ensure-deps ensureHeadlessShell (the browser of `npm test`)', () => {
  const run = (environment: Parameters<typeof ensureHeadlessShell>[0]): { there: boolean; logs: string[]; aptCalls: string[][] } => {
    const logs: string[] = [];
    const aptCalls: string[][] = [];
    const there = ensureHeadlessShell({
      platform: 'linux',
      env: {},
      exists: () => false,
      isRoot: true,
      os: ['debian'],
      apt: (args) => (aptCalls.push(args), false),
      log: (message) => logs.push(message),
      ...environment,
    });
    return { there, logs, aptCalls };
  };

  it('is there without apt when installed', () => {
    const result = run({ exists: (path) => path === HEADLESS_SHELL });
    expect(result).toEqual({ there: true, logs: [], aptCalls: [] });
  });

  it('installs the Debian package, updating the lists only when the first try fails', () => {
    let installed = false;
    let updated = false;
    const calls: string[][] = [];
    const result = run({
      exists: (path) => installed && path === HEADLESS_SHELL,
      apt: (args) => {
        calls.push(args);
        if (args[0] === 'update') updated = true;
        else if (updated) installed = true;
        return args[0] === 'update' || installed;
      },
    });
    expect(result.there).toBe(true);
    expect(calls.map((args) => args.join(' '))).toEqual([
      'install -y --no-install-recommends chromium-headless-shell',
      'update',
      'install -y --no-install-recommends chromium-headless-shell',
    ]);
  });

  it('never fails the set-up: without it, or with a browser of your own, the tests run on full Chromium', () => {
    const failed = run({});
    expect(failed.there).toBe(false);
    expect(failed.logs.at(-1)).toMatch(/could not install .*full Chromium/);
    for (const environment of [{ isRoot: false }, { os: ['ubuntu', 'debian'] }, { platform: 'darwin' as const }]) {
      const result = run(environment);
      expect(result.there, JSON.stringify(environment)).toBe(false);
      expect(result.aptCalls).toEqual([]);
    }
    for (const env of [{ PLANNAV_CHROMIUM_PATH: '/opt/x/chrome' }, { PLANNAV_SKIP_BROWSER: '1' }]) {
      const result = run({ env });
      expect(result).toEqual({ there: false, logs: [], aptCalls: [] });
    }
  });
});
