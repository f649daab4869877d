// The storage-state file and its checks without a browser: Playwright's format in and out, a bad
// file or shape as a ConfigError naming the field (never a value), files written readable by their
// owner only, and cookies between the format and CDP.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageState } from '../browser/storage-state';
import { ConfigError } from '../errors';
import { checkStorageState, cookieFromCdp, cookieToCdp, launchStorageState, loadStorageState, webOrigins, writeStorageStateFile } from './storage-state';

const secret = 'sid-do-not-print-7f3a';
const state: StorageState = {
  cookies: [{ name: 'sid', value: secret, domain: 'shop.example', path: '/', expires: 1_900_000_000, httpOnly: true, secure: true, sameSite: 'Lax' }],
  origins: [{ origin: 'https://shop.example', localStorage: [{ name: 'token', value: secret }] }],
};

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'plannav-storage-state-unit-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The ConfigError `run` rejects with. */
async function configError(run: () => Promise<unknown>): Promise<ConfigError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ConfigError.isInstance(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('checking a storage state', () => {
  it('takes Playwright\u2019s format, extra fields such as a partition key included', () => {
    const withExtra = { ...state, cookies: [{ ...state.cookies[0], partitionKey: 'https://shop.example' }] };
    expect(checkStorageState(withExtra)).toBe(withExtra);
  });

  it.each([
    [{ cookies: 'sid=1', origins: [] }, /at `cookies`/],
    [{ cookies: [{ ...state.cookies[0], sameSite: 'lax' }], origins: [] }, /at `cookies\.0\.sameSite`/],
    [{ cookies: [{ name: 'sid', value: secret }], origins: [] }, /at `cookies\.0\.domain`/],
    [{ cookies: [], origins: [{ origin: 'shop', localStorage: [] }] }, /at `origins\.0\.origin` must be an origin/],
    [[], /at `the top level`|at the top level/],
  ])('names the field at fault, never a value: %#', (value, message) => {
    let caught: unknown;
    try {
      checkStorageState(value);
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as ConfigError).field).toBe('storageState');
    expect((caught as ConfigError).message).toMatch(message);
    expect((caught as ConfigError).message).not.toContain(secret);
  });
});

describe('loading a storage state file', () => {
  it('reads a file written by writeStorageStateFile as it was', async () => {
    const path = join(folder, 'round-trip.json');
    await writeStorageStateFile(path, state);
    expect(await loadStorageState(path)).toEqual(state);
  });

  it('says when the file is missing, naming it and how to make one', async () => {
    const error = await configError(() => loadStorageState(join(folder, 'missing.json')));
    expect(error.message).toMatch(/missing\.json could not be read \(there is no such file\)/);
    expect(error.message).toMatch(/storageState\(\{ path \}\)/);
  });

  it('says when the file is not JSON without quoting it (it may hold a secret)', async () => {
    const path = join(folder, 'broken.json');
    writeFileSync(path, `{ "cookies": [{ "value": "${secret}" `);
    const error = await configError(() => loadStorageState(path));
    expect(error.message).toMatch(/broken\.json is not valid JSON/);
    expect(error.message).not.toContain(secret);
  });

  it('says which field of a file is wrong', async () => {
    const path = join(folder, 'shape.json');
    writeFileSync(path, JSON.stringify({ cookies: [], origins: {} }));
    const error = await configError(() => loadStorageState(path));
    expect(error.message).toMatch(/shape\.json is not a storage state: at `origins`/);
  });

  it('refuses a storage state with a persistent profile, before reading anything', async () => {
    const error = await configError(() => launchStorageState({ storageState: join(folder, 'missing.json'), userDataDir: folder }));
    expect(error.message).toMatch(/`storageState` or `userDataDir`, not both/);
    expect(await launchStorageState({})).toBeUndefined();
  });
});

describe('writing a storage state file', () => {
  it('replaces the file, readable by its owner only, and leaves no temporary file', async () => {
    const path = join(folder, 'mode.json');
    writeFileSync(path, 'old');
    chmodSync(path, 0o644);
    await writeStorageStateFile(path, state);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(state);
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('cookies between the format and CDP', () => {
  it('turns a CDP session cookie into expires -1, and a cookie without SameSite into Lax', () => {
    expect(cookieFromCdp({ name: 'a', value: 'b', domain: '.shop.example', path: '/', expires: -1, httpOnly: false, secure: false, session: true })).toEqual({
      name: 'a',
      value: 'b',
      domain: '.shop.example',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    });
  });

  it('gives CDP no expiry for a session cookie, and keeps the domain as written (no dot: host-only)', () => {
    expect(cookieToCdp({ ...state.cookies[0]!, expires: -1 })).not.toHaveProperty('expires');
    expect(cookieToCdp(state.cookies[0]!)).toMatchObject({ domain: 'shop.example', expires: 1_900_000_000, sameSite: 'Lax', httpOnly: true });
  });

  it('reads web origins only, each once', () => {
    expect(webOrigins(['https://a.example/x?y', 'https://a.example/z', 'about:blank', 'chrome://newtab/', 'http://127.0.0.1:8080/p', 'not a url'])).toEqual([
      'https://a.example',
      'http://127.0.0.1:8080',
    ]);
  });
});
