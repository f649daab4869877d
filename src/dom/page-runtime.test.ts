import { describe, expect, it } from 'vitest';
import type { PageScript } from '../browser/types';
import { BrowserError } from '../errors';
import {
  callRuntime,
  definePageScript,
  elementLookupExpression,
  pageRuntime,
  pageScriptExpression,
  readPageScriptResult,
  runtimeScriptId,
} from './page-runtime';

/** Evaluates a page script the way a driver does, here in Node (these scripts touch no DOM). */
async function evaluate<TArg, TResult>(script: PageScript<TArg, TResult>, argument: TArg): Promise<TResult> {
  // eslint-disable-next-line no-eval -- a driver evaluates the expression; so does this test
  const json: unknown = await (0, eval)(pageScriptExpression(script, argument));
  return readPageScriptResult<TResult>(json, script.id);
}

describe('definePageScript and the evaluation envelope', () => {
  const methods = {
    double(value: number): number {
      return value * 2;
    },
    async later(value: number): Promise<number> {
      return value + 1;
    },
    'count-words'(text: string): number {
      return text.split(/\s+/).length;
    },
  };

  it.each([
    ['an arrow', definePageScript('a', (value: number) => value + 1), 1, 2],
    ['an async arrow', definePageScript('b', async (value: number) => value * 3), 2, 6],
    [
      'a function',
      definePageScript('c', function triple(value: number) {
        return value * 3;
      }),
      2,
      6,
    ],
    /* eslint-disable @typescript-eslint/unbound-method -- definePageScript takes a method's source, never its `this` */
    ['a method', definePageScript('d', methods.double), 4, 8],
    ['an async method', definePageScript('e', methods.later), 4, 5],
    ['a method with a quoted name', definePageScript('f', methods['count-words']), 'one two three', 3],
    /* eslint-enable @typescript-eslint/unbound-method */
  ] as const)('runs %s in the page, with its JSON argument', async (_shape, script, argument, expected) => {
    expect(await evaluate(script as PageScript<unknown, unknown>, argument)).toBe(expected);
  });

  it('brings back undefined from a script that returns nothing, instead of a malformed result', async () => {
    expect(
      await evaluate(
        definePageScript('nothing', () => undefined),
        undefined,
      ),
    ).toBeUndefined();
    expect(
      await evaluate(
        definePageScript('object', () => ({ a: 1, b: undefined })),
        undefined,
      ),
    ).toEqual({ a: 1 });
  });

  it('turns what is not the envelope into a retryable BrowserError naming the script', () => {
    for (const json of ['{}', 'not json', 42, null, '[]']) {
      const error = (() => {
        try {
          readPageScriptResult(json, 'my.script');
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(BrowserError.isInstance(error), String(json)).toBe(true);
      expect((error as BrowserError).message).toContain('my.script');
      expect((error as BrowserError).retryable).toBe(true);
    }
  });

  it('looks an element up through the installed runtime only, and says when there is none', async () => {
    // eslint-disable-next-line no-eval -- as a driver would evaluate it
    expect((0, eval)(elementLookupExpression({ elementId: 'x-1' }))).toBe('no-runtime');
    expect(pageRuntime.version).toMatch(/^__plannavRuntime_[0-9a-f]{12}$/);
    expect(pageRuntime.installSource.length).toBeGreaterThan(1000);
  });
});

describe('callRuntime', () => {
  /** A driver whose document gets the runtime only when the install script runs. */
  function lazyDriver(installable: boolean) {
    let installed = false;
    const calls: string[] = [];
    return {
      calls,
      evaluate: async <TArg, TResult>(_frameId: string, script: PageScript<TArg, TResult>): Promise<TResult> => {
        calls.push(script.id);
        if (script.id === 'plannav.runtime-install') {
          installed = installable;
          return true as TResult;
        }
        return (installed ? { answer: 42 } : 'plannav:no-runtime') as TResult;
      },
    };
  }

  it('installs the runtime on first use, then calls the method again', async () => {
    const driver = lazyDriver(true);
    expect(await callRuntime(driver, 'main', 'changes', undefined)).toEqual({ answer: 42 });
    expect(driver.calls).toEqual([runtimeScriptId('changes'), 'plannav.runtime-install', runtimeScriptId('changes')]);
    await callRuntime(driver, 'main', 'changes', undefined);
    expect(driver.calls).toHaveLength(4);
  });

  it('is a retryable BrowserError when the page keeps the runtime out', async () => {
    await expect(callRuntime(lazyDriver(false), 'main', 'snapshot', { viewportExpansion: 0, includeAttributes: [], maxTextLength: 100 })).rejects.toThrow(
      /kept plannav's page runtime from being installed \(method snapshot\)/,
    );
  });
});
