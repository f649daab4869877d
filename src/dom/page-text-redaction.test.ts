import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../actions/markdown';
import type { BrowserDriver, PageScript } from '../browser/types';
import { SecretStore } from '../security/secrets';
import { callRuntime } from './page-runtime';
import { bindPageTextRedaction } from './page-text-redaction';
import { ElementIndexer } from './serialize';
import { validateFrameSnapshot } from './validate-snapshot';

const token = 'Qv7Xk2Lm9Rz4';
const otp = '657123';
const secrets = (): SecretStore => new SecretStore({ token, otp });

/** Every piece of 6 characters of a canary found in `text`, ignoring case, spaces and separators. */
function pieces(text: string): string[] {
  const squeezed = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const found: string[] = [];
  for (const value of [token, otp]) {
    for (let start = 0; start + 6 <= value.length; start++) {
      const piece = value.slice(start, start + 6).toLowerCase();
      if (squeezed.includes(piece)) found.push(piece);
    }
  }
  return found;
}

/** The page's cut of a line (text.ts `cap`). */
const cap = (text: string, limit: number): string => (text.length <= limit ? text : `${text.slice(0, limit)}…`);

/** A page whose runtime answers as the real one does: the snapshot cut to `maxTextLength`, the search with `contextChars` of context. */
function pageDriver(page: { lines: string[]; otpBoxes: string[]; text: string; html: string }): Pick<BrowserDriver, 'evaluate'> {
  const answer = (script: PageScript<unknown, unknown>, argument: unknown): Promise<unknown> => {
    const request = argument as Record<string, unknown>;
    if (script.id.endsWith('/snapshot')) {
      const limit = request.maxTextLength as number;
      return Promise.resolve({
        url: 'https://site.example/',
        title: 'Page',
        pixelsAbove: 0,
        pixelsBelow: 0,
        items: [
          ...page.lines.map((line) => ({ kind: 'text', text: cap(line, limit), depth: 0 })),
          ...page.otpBoxes.map((digit, index) => ({
            kind: 'element',
            elementId: `e${index}`,
            tagName: 'input',
            // Each box is labelled, as real code boxes are: the view puts "Digit 1" between two values.
            attributes: { type: 'text', value: digit },
            text: `Digit ${index + 1}`,
            depth: 0,
          })),
        ],
      });
    }
    if (script.id.endsWith('/pageText')) {
      const context = request.contextChars as number;
      const matches = [...page.text.matchAll(new RegExp(request.source as string, request.flags as string))].map((match) => ({
        text: match[0],
        before: page.text.slice(Math.max(0, match.index - context), match.index),
        after: page.text.slice(match.index + match[0].length, match.index + match[0].length + context),
      }));
      return Promise.resolve({ total: matches.length, matches, truncated: false, incomplete: false, scrolledTo: null });
    }
    if (script.id.endsWith('/extractHtml')) return Promise.resolve({ url: 'https://site.example/', title: 'Page', html: page.html, truncated: false });
    throw new Error(`unexpected script ${script.id}`);
  };
  return {
    evaluate: <TArg, TResult>(_frameId: string, script: PageScript<TArg, TResult>, argument: TArg) => answer(script, argument) as Promise<TResult>,
  };
}

const page = {
  // The value straddles the 100-character cut of a line; then it is split over two inline elements joined with a space.
  lines: [`${'x'.repeat(94)} ${token} end`, `Key: ${token.slice(0, 6)}`, `${token.slice(6)} (split)`],
  otpBoxes: Array.from(otp),
  text: `Your key is ${token} keep it. Code ${Array.from(otp).join(' ')} today.`,
  html: `<p>Key: Qv7X<b>k2Lm9</b>Rz4</p><p>Code <span>6</span><span>5</span><span>7</span><span>1</span><span>2</span><span>3</span></p>`,
};
const snapshotOptions = { viewportExpansion: 0, includeAttributes: ['value'], maxTextLength: 100 };

async function view(driver: ReturnType<typeof pageDriver>): Promise<string> {
  const snapshot = validateFrameSnapshot(await callRuntime(driver, 'main', 'snapshot', snapshotOptions), snapshotOptions);
  return new ElementIndexer().serialize([{ frameId: 'main', snapshot }]).text;
}

async function search(driver: ReturnType<typeof pageDriver>, source: string, contextChars: number): Promise<unknown> {
  const request = { source, flags: 'gmi', mode: 'search', nth: 0, contextChars, maxResults: 10, maxTextChars: 300_000, timeBudgetMs: 1000 } as const;
  return callRuntime(driver, 'main', 'pageText', request);
}

describe('page text redacted where it enters Node', () => {
  it('without a binding, the answers are as the page gave them (and the pieces are there)', async () => {
    const driver = pageDriver(page);
    expect(pieces(await view(driver))).not.toEqual([]);
    expect(pieces(JSON.stringify(await search(driver, 'Lm9', 10)))).not.toEqual([]);
  });

  it('the view: a value at the 100-character cut, split over two elements, one digit per box', async () => {
    const driver = pageDriver(page);
    const store = secrets();
    const unbind = bindPageTextRedaction(driver, store);
    const text = await view(driver);
    expect(pieces(text)).toEqual([]);
    // The cut is still made at 100 characters, never inside the placeholder.
    expect(text.split('\n')[0]).toBe(`${'x'.repeat(94)} …`);
    expect(text).toContain('Key: <secret>token</secret>');
    expect(text).toContain('[1]<input type="text" value="<secret>otp</secret>">Digit 1 />');
    expect(text).toContain('[2]<input type="text" value>Digit 2 />');
    unbind();
    expect(pieces(await view(driver))).not.toEqual([]);
  });

  it('search_page: a match inside a value is left out; a context window starting inside one holds no piece', async () => {
    const driver = pageDriver(page);
    bindPageTextRedaction(driver, secrets());
    const inside = (await search(driver, 'Lm9', 10)) as { total: number; matches: unknown[] };
    expect(inside).toMatchObject({ total: 0, matches: [] });
    // The context before "keep" starts 8 characters back: inside the value when read in the page.
    const after = await search(driver, 'keep', 8);
    expect(pieces(JSON.stringify(after))).toEqual([]);
    expect(after).toMatchObject({ total: 1, matches: [{ text: 'keep', before: '<secret>token</secret> ' }] });
    const code = await search(driver, 'today', 3);
    expect(pieces(JSON.stringify(code))).toEqual([]);
  });

  it('extract_content: a value split by <b> or one digit per <span> is replaced before the markdown is made', async () => {
    const driver = pageDriver(page);
    bindPageTextRedaction(driver, secrets());
    const answer = (await callRuntime(driver, 'main', 'extractHtml', { maxChars: 1000, maxNodes: 1000 })) as { html: string };
    const markdown = htmlToMarkdown(answer.html);
    expect(pieces(markdown)).toEqual([]);
    expect(markdown).toContain('Key: <secret>token</secret>');
    expect(markdown).toContain('Code <secret>otp</secret>');
  });
});
