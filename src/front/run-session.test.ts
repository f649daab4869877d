// A demo run session end to end in headless Chromium: the shop served on 127.0.0.1, the scripted
// shopper (asking its one question when the task says "ask me"), the run's files written; the
// browser started from a storage-state file and its state saved with the run (issue 24).
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor } from '../index';
import { loadHistory } from '../node/index';
import { shopperQuestion } from '../demo/scripted-shopper';
import { openRunSession, type RunSession } from './run-session';

let session: RunSession;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-session-'));
  // A login of an earlier run: a cookie of the shop's host (cookies do not depend on the port). With --trace (issue 24):
  // each saved run gets the Playwright trace of what it did.
  const cookie = { name: 'earlier_login', value: 'kept-7c1e', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' };
  await writeFile(join(folder, 'in-state.json'), JSON.stringify({ cookies: [cookie], origins: [] }));
  session = await openRunSession({
    demo: true,
    env: {},
    trace: true,
    storageState: join(folder, 'in-state.json'),
    saveStorageState: join(folder, 'out-state.json'),
  });
}, 60_000);

afterAll(async () => {
  await session?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('openRunSession in demo mode', () => {
  it('serves the shop, keeps the agent on it and gives the demo task', () => {
    const host = new URL(session.startUrl ?? '').host;
    expect(session.startUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(session.demoTask).toContain(session.startUrl);
    expect(session.urlPolicy).toEqual({ allow: ['127.0.0.1'] });
    const options = session.executorOptions('a task', { maxFailures: 2 });
    expect(options).toMatchObject({ task: 'a task', maxSteps: 20, recordScreenshots: true, maxFailures: 2, urlPolicy: { allow: ['127.0.0.1'] } });
    expect(options.browser).toBe(session.browser);
    expect(host).not.toBe('');
  });

  it('puts the start URL in the words of a task that does not name it, and gives the demo task for none', () => {
    expect(session.taskFor()).toBe(session.demoTask);
    expect(session.taskFor('Buy the red mug')).toBe(`Buy the red mug\nStart at ${session.startUrl ?? ''}`);
    expect(session.taskFor(`Buy the red mug at ${session.startUrl ?? ''}`)).toBe(`Buy the red mug at ${session.startUrl ?? ''}`);
    // A start URL of its own, for one task: only where the URL policy allows.
    expect(session.taskFor('Buy the red mug', `${session.startUrl ?? ''}category/kitchen`)).toMatch(/\nStart at http:\/\/127\.0\.0\.1:\d+\/category\/kitchen$/);
    expect(() => session.taskFor('Buy the red mug', 'https://elsewhere.example/')).toThrow(/not allowed by the URL policy/);
  });

  it('runs the demo task with the question "ask me" asks first, buys the item and saves history, GIF and report', { timeout: 90_000 }, async () => {
    const questions: string[] = [];
    const humanInput = (question: { question: string }): Promise<string> => {
      questions.push(question.question);
      return Promise.resolve('Nothing special.');
    };
    const executor = new Executor(session.executorOptions(`${session.demoTask ?? ''} Ask me first.`, { humanInput }));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(questions).toEqual([shopperQuestion]);
    expect(session.demoShop?.cart().map(({ product }) => product.id)).toEqual(['blue-bowl']);
    const firstAction = result.history.steps.flatMap((step) => step.actions)[0];
    expect(firstAction?.name).toBe('ask_human');

    const files = await session.saveRun(executor, join(folder, 'run'));
    expect(files.historyFile).toBe(join(folder, 'run', 'history.json'));
    expect((await loadHistory(files.historyFile)).steps.length).toBe(result.history.steps.length);
    for (const file of [files.gifFile, files.reportFile]) expect(file && existsSync(file), file).toBe(true);
    expect((await readFile(files.gifFile ?? '')).subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(files.warnings).toEqual([]);
    // The browser started with the earlier login, and the run saved the state at its end, for its owner only.
    expect(files.storageStateFile).toBe(join(folder, 'out-state.json'));
    expect(statSync(join(folder, 'out-state.json')).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(join(folder, 'out-state.json'), 'utf8')) as { cookies: { name: string; value: string }[] };
    expect(saved.cookies).toContainEqual(expect.objectContaining({ name: 'earlier_login', value: 'kept-7c1e' }));
    expect(JSON.stringify(result.history)).not.toContain('kept-7c1e');
    // --trace: the run's Playwright trace beside its history, linked from its report.
    expect((await readFile(join(folder, 'run', 'trace.zip'))).subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(await readFile(files.reportFile ?? '', 'utf8')).toContain('<a href="trace.zip">');
  });

  it('refuses --trace with a browser it does not launch', async () => {
    await expect(openRunSession({ demo: true, env: {}, trace: true, cdpUrl: 'http://127.0.0.1:9' })).rejects.toThrow(
      /--trace records a browser that plannav launches/,
    );
  });

  it('closes the browser and the shop once, however often it is called', async () => {
    const url = session.startUrl ?? '';
    await Promise.all([session.close(), session.close()]);
    await expect(fetch(url)).rejects.toThrow();
  });
});
