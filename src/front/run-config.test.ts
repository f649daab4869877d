// The run set-up's checks without a browser: bad options, a missing key, the secrets file and the
// output schema, each a typed error that says what to fix and never shows a secret's value.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../index';
import { checkRunConfig, MissingApiKeyError } from './run-config';
import { openRunSession } from './run-session';
import { outputSchemaFromJson } from './output-schema';
import { readSecretsFile } from './secrets-file';
import { runConfigFromFlags } from './flags';
import { withStorageState } from './run-files';
import type { BrowserDriver } from '../index';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-front-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** The ConfigError `run` throws (synchronously or not). */
async function configError(run: () => unknown): Promise<ConfigError> {
  try {
    await run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('checkRunConfig', () => {
  it.each([
    [{}, 'model', /No model given/],
    [{ model: 'gpt-4.1' }, 'model', /provider:model/],
    [{ demo: true, maxSteps: 0 }, 'maxSteps', /positive integer; got 0/],
    [{ demo: true, scope: 'everything' }, 'scope', /"navigation" or "all-requests"/],
    [{ demo: true, cdpUrl: 'http://127.0.0.1:9222', wsEndpoint: 'ws://127.0.0.1:1/x' }, 'cdpUrl', /not both/],
    [{ demo: true, cdpUrl: 'not a url' }, 'cdpUrl', /must be a URL/],
    [{ demo: true, headed: true, cdpUrl: 'http://127.0.0.1:9222' }, 'headed', /not to one it connects to/],
    [{ demo: true, allow: ['shop.example', ''] }, 'allow', /list of hosts/],
    [{ demo: true, outputSchema: [] }, 'outputSchema', /JSON Schema object/],
    [{ demo: true, storageState: '' }, 'storageState', /non-empty string/],
    [{ demo: true, storageState: 'state.json', cdpUrl: 'http://127.0.0.1:9222' }, 'storageState', /launches, not to one it connects to/],
  ])('refuses %j (field %s)', async (config, field, message) => {
    const error = await configError(() => checkRunConfig(config as never));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('accepts a demo run without a model, and a model run', () => {
    expect(checkRunConfig({ demo: true })).toEqual({ demo: true });
    expect(checkRunConfig({ model: 'openai:gpt-4.1-mini', allow: ['shop.example'], scope: 'all-requests' }).scope).toBe('all-requests');
  });
});

describe('openRunSession before anything opens', () => {
  it('names the environment variable of a missing key, as a MissingApiKeyError', async () => {
    const error = await configError(() => openRunSession({ model: 'anthropic:claude-sonnet-4-5', env: {} }));
    expect(MissingApiKeyError.isInstance(error)).toBe(true);
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect((error as MissingApiKeyError).variables).toEqual(['ANTHROPIC_API_KEY']);
    expect(error.field).toBe('model');
  });

  it('names the planner model when its key is missing', async () => {
    const error = await configError(() =>
      openRunSession({ model: 'openai:gpt-4.1-mini', plannerModel: 'gemini:gemini-2.5-flash', env: { OPENAI_API_KEY: 'sk-test' } }),
    );
    expect(error.field).toBe('plannerModel');
    expect(error.message).toMatch(/GEMINI_API_KEY/);
  });

  it('refuses an unknown provider with the list of known ones', async () => {
    const error = await configError(() => openRunSession({ model: 'nosuch:model', env: {} }));
    expect(error.message).toMatch(/does not know the provider "nosuch".*openai/);
  });
});

describe('readSecretsFile', () => {
  it('reads NAME=value lines, quoted values and comments included', async () => {
    const file = join(folder, 'ok.env');
    await writeFile(file, '# a comment\nSHOP_USER=ada@example.com\nSHOP_PASSWORD="pa ss#word"\nEMPTY=\n');
    expect(await readSecretsFile(file)).toEqual({ SHOP_USER: 'ada@example.com', SHOP_PASSWORD: 'pa ss#word' });
  });

  it('says a missing file does not exist, and an empty one holds no secret', async () => {
    expect((await configError(() => readSecretsFile(join(folder, 'missing.env')))).message).toMatch(/missing\.env could not be read: it does not exist/);
    const empty = join(folder, 'empty.env');
    await writeFile(empty, '# nothing\n');
    expect((await configError(() => readSecretsFile(empty))).message).toMatch(/holds no secret/);
  });

  it('never puts a value in an error: a secret too short to redact, a bad name', async () => {
    const file = join(folder, 'short.env');
    await writeFile(file, 'PIN=zq\n');
    const error = await configError(() => readSecretsFile(file));
    expect(error.message).toMatch(/`PIN`.*shorter than 3/);
    expect(error.message).not.toContain('zq');
    await writeFile(file, 'SHOP.USER=ada-lovelace\n');
    const badName = await configError(() => readSecretsFile(file));
    expect(badName.message).toMatch(/SHOP\.USER/);
    expect(badName.message).not.toContain('ada-lovelace');
  });
});

describe('outputSchemaFromJson', () => {
  it('turns a JSON Schema into a zod schema that checks the data', () => {
    const schema = outputSchemaFromJson({ type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] });
    expect(schema.safeParse({ name: 'Blue bowl', price: 11.5 }).success).toBe(true);
    expect(schema.safeParse({ name: 'Blue bowl' }).success).toBe(false);
  });

  it('refuses what is not a schema object', async () => {
    expect((await configError(() => outputSchemaFromJson([] as never))).field).toBe('outputSchema');
  });
});

describe('the storage-state flags (issue 24)', () => {
  it('reads --storage-state and --save-storage-state into the run config', async () => {
    const config = await runConfigFromFlags({ demo: true, 'storage-state': 'in.json', 'save-storage-state': 'out.json' }, 'run', {});
    expect(config).toMatchObject({ storageState: 'in.json', saveStorageState: 'out.json' });
  });

  it('saves the storage state beside a run through the driver, and makes a warning of what cannot be saved', async () => {
    const files = { historyFile: join(folder, 'history.json'), warnings: [] };
    const asked: (string | undefined)[] = [];
    const saving = {
      storageState: async (options?: { path?: string }) => {
        asked.push(options?.path);
        return { cookies: [], origins: [] };
      },
    } as unknown as BrowserDriver;
    expect(await withStorageState(files, saving, undefined)).toBe(files);
    expect(asked).toEqual([]);
    expect(await withStorageState(files, saving, join(folder, 'state.json'))).toEqual({ ...files, storageStateFile: join(folder, 'state.json') });
    expect(asked).toEqual([join(folder, 'state.json')]);

    expect((await withStorageState(files, {} as BrowserDriver, 'x.json')).warnings).toEqual(['No storage state: the browser driver cannot save one.']);
    const failing = { storageState: () => Promise.reject(new Error('the browser is gone')) } as unknown as BrowserDriver;
    expect((await withStorageState(files, failing, 'x.json')).warnings).toEqual(['No storage state: the browser is gone']);
  });
});
