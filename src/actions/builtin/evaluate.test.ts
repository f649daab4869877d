// The evaluate action's own rules: the page script it builds for each form of script, the masking of
// secret-looking values and of the driver's secrets, the cap, and a syntax error said in words.
import { describe, expect, it } from 'vitest';
import { testActionContext } from '../../../test/helpers/action-context';
import type { CallOptions, PageScript } from '../../browser/types';
import { bindPageTextRedaction } from '../../dom/page-text-redaction';
import { FakeBrowserDriver } from '../../testing/fake-browser-driver';
import { ActionRegistry } from '../registry';
import { evaluateAction, evaluateScript, maskSecrets, maxEvaluateResultChars } from './evaluate';

/** A fake whose page answers the evaluate script with what `answer` says for the script's source (Node cannot run page code). */
class ScriptedPage extends FakeBrowserDriver {
  readonly sources: string[] = [];
  constructor(private readonly answer: (source: string) => unknown) {
    super({ startUrl: 'https://shop.test/', pages: { 'https://shop.test/': { title: 'Shop', content: ['Hello'] } } });
  }

  override async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    if (script.id !== 'plannav.evaluate') return super.evaluate(frameId, script, arg, options);
    this.sources.push(script.source);
    return this.answer(script.source) as TResult;
  }
}

const registry = new ActionRegistry([evaluateAction]);

describe('evaluateScript', () => {
  it('calls an expression (a function one too), or runs a body whose return gives the value', () => {
    expect(evaluateScript('document.title', 'expression').source).toContain("const value = (document.title\n); return typeof value === 'function'");
    expect(evaluateScript('const a = 1; return a;', 'body').source).toContain('const result = await (async () => { const a = 1; return a;\n })();');
  });
});

describe('maskSecrets', () => {
  const none = (text: string): string => text;

  it('masks the values of secret-looking keys at any depth, and leaves the rest', () => {
    const json = JSON.stringify({ user: 'ada', password: 'hunter2', nested: [{ apiKey: 'k-1', note: 'fine' }], sessionToken: '', count: 3 });
    expect(JSON.parse(maskSecrets(json, none))).toEqual({
      user: 'ada',
      password: '[masked]',
      nested: [{ apiKey: '[masked]', note: 'fine' }],
      sessionToken: '',
      count: 3,
    });
  });

  it('masks by pattern in JSON cut at the cap', () => {
    expect(maskSecrets('{"token":"abc","name":"x","pass', none)).toBe('{"token":"[masked]","name":"x","pass');
  });

  it("redacts the driver's secrets anywhere in the text", () => {
    expect(maskSecrets('"pin=4471"', (text) => text.replace('4471', '<secret>pin</secret>'))).toBe('"pin=<secret>pin</secret>"');
  });
});

describe('evaluate action', () => {
  it("returns the page's JSON, masked, with the driver's secrets redacted", async () => {
    const driver = new ScriptedPage(() => ({ json: JSON.stringify({ title: 'Shop', code: 'pin 4471', token: 't' }), length: 40 }));
    const redact = (text: string): string => text.replaceAll('4471', '<secret>pin</secret>');
    const unbind = bindPageTextRedaction(driver, { redact, redactJoined: (segments) => segments.map(redact), redactionMargin: 0 });
    try {
      const result = await registry.run('evaluate', { script: 'window.data' }, testActionContext({ driver }));
      expect(result.error).toBeUndefined();
      expect(result.extractedContent).toBe('The script returned: {"title":"Shop","code":"pin <secret>pin</secret>","token":"[masked]"}');
    } finally {
      unbind();
    }
  });

  it('says a result was cut, and reports a throw as an error', async () => {
    const long = new ScriptedPage(() => ({ json: `"${'x'.repeat(maxEvaluateResultChars - 1)}`, length: 300_002 }));
    const cut = await registry.run('evaluate', { script: '"x".repeat(300000)' }, testActionContext({ driver: long }));
    expect(cut.extractedContent).toContain(`(cut to ${maxEvaluateResultChars} of 300002 characters)`);
    const thrown = new ScriptedPage(() => ({ thrown: 'Error: boom' }));
    expect((await registry.run('evaluate', { script: 'boom()' }, testActionContext({ driver: thrown }))).error).toBe('The script threw: Error: boom');
  });

  it('tries the other form after a syntax error, and says so in words when both fail', async () => {
    const driver = new ScriptedPage((source) => {
      if (source.includes('const value = (')) throw new Error('SyntaxError: Unexpected token');
      return { json: '1', length: 1 };
    });
    const result = await registry.run('evaluate', { script: 'let a = 1; a' }, testActionContext({ driver }));
    expect(result.extractedContent).toBe('The script returned: 1');
    expect(driver.sources).toHaveLength(2);
    const broken = new ScriptedPage(() => {
      throw new Error('SyntaxError: Unexpected end of input');
    });
    expect((await registry.run('evaluate', { script: 'if (' }, testActionContext({ driver: broken }))).error).toMatch(
      /^The script is not valid JavaScript: .*Unexpected end of input/,
    );
  });
});
