import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { BrowserError } from '../errors';
import type { ErrorInfo } from '../events';
import { Executor } from '../executor/executor';
import type { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { toErrorInfo } from './error-info';

describe('toErrorInfo', () => {
  it('keeps a plannav error\u2019s name, code, message and retryability', () => {
    expect(toErrorInfo(new BrowserError('The page did not load.', { retryable: true }))).toEqual({
      name: 'BrowserError',
      code: 'BROWSER_ERROR',
      message: 'The page did not load.',
      retryable: true,
    });
  });

  it('keeps another error as UNKNOWN, with its own name and message', () => {
    class SocketClosedError extends Error {
      override name = 'SocketClosedError';
    }
    expect(toErrorInfo(new SocketClosedError('The socket closed.'))).toEqual({
      name: 'SocketClosedError',
      code: 'UNKNOWN',
      message: 'The socket closed.',
      retryable: false,
    });
  });

  it('writes a thrown plain object as JSON, not [object Object]', () => {
    expect(toErrorInfo({ code: 42, reason: 'bad' })).toEqual({ name: 'Error', code: 'UNKNOWN', message: '{"code":42,"reason":"bad"}', retryable: false });
    expect(toErrorInfo('a string').message).toBe('a string');
  });

  it('reports a JavaScript TypeError as UNEXPECTED_ERROR, saying what it most likely means', () => {
    const info = toErrorInfo(new TypeError("Cannot read properties of null (reading 'url')"));
    expect(info.code).toBe('UNEXPECTED_ERROR');
    expect(info.name).toBe('TypeError');
    expect(info.message).toBe(
      "Unexpected TypeError: Cannot read properties of null (reading 'url'). A driver, model client or action probably returned a value of the wrong shape; if not, it is a bug in plannav.",
    );
    expect(info.retryable).toBe(false);
  });
});

describe('errors as the loop reports them', () => {
  async function stepErrors(patch: (browser: FakeBrowserDriver) => void): Promise<{ errors: ErrorInfo[]; message: string | undefined }> {
    const browser = shopBrowser();
    patch(browser);
    const llm = new ScriptedLLM({
      respond: (request) => (request.agent === 'planner' ? scriptedPlan({ nextSteps: 'Look' }) : scriptedActions([{ done: { text: 'x', success: true } }])),
    });
    const executor = new Executor({ task: 'Look at the shop', llm, browser, maxFailures: 1 });
    const errors: ErrorInfo[] = [];
    executor.on('step-end', (event) => {
      if (event.error) errors.push(event.error);
    });
    const result = await executor.execute();
    return { errors, message: result.error?.message };
  }

  it('a driver answering activeTab() with null is an UNEXPECTED_ERROR, not UNKNOWN', async () => {
    const { errors } = await stepErrors((browser) => {
      browser.activeTab = async () => null as never;
    });
    expect(errors[0]).toMatchObject({ name: 'TypeError', code: 'UNEXPECTED_ERROR' });
    expect(errors[0]?.message).toContain('a value of the wrong shape');
  });

  it('a driver that throws a plain object: its JSON in the step error and the task error', async () => {
    const { errors, message } = await stepErrors((browser) => {
      browser.frames = async () => {
        // A hostile or sloppy driver: what it throws is not an Error.
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test: code that throws a non-Error
        throw { code: 42, reason: 'bad' };
      };
    });
    expect(errors[0]).toEqual({ name: 'Error', code: 'UNKNOWN', message: '{"code":42,"reason":"bad"}', retryable: false });
    expect(message).toBe('The task stopped after 1 failed steps in a row: {"code":42,"reason":"bad"}');
  });
});
