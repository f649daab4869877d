import { describe, expect, it } from 'vitest';
import { extractJson, maxJsonReplyCharacters, stripReasoning } from './parse-json';

function valueOf(text: string): unknown {
  const result = extractJson(text);
  if (!result.ok) throw new Error(`expected JSON, got: ${result.error}`);
  return result.value;
}

describe('extractJson', () => {
  it('parses a reply that is plain JSON', () => {
    expect(valueOf('{"done": true, "items": [1, 2]}')).toEqual({ done: true, items: [1, 2] });
  });

  it('ignores a <think> block before the JSON', () => {
    expect(valueOf('<think>The user wants {a plan}. Let me think.</think>\n{"step": 1}')).toEqual({ step: 1 });
  });

  it('ignores reasoning whose opening tag was cut off', () => {
    expect(valueOf('so the answer is {maybe} this</think>{"step": 2}')).toEqual({ step: 2 });
  });

  it('reads the JSON inside a ```json fence', () => {
    expect(valueOf('```json\n{"fenced": true}\n```')).toEqual({ fenced: true });
  });

  it('reads a fenced object followed by prose', () => {
    expect(valueOf('Here you go:\n```json\n{"fenced": "yes"}\n```\nHope this helps! {not json}')).toEqual({ fenced: 'yes' });
  });

  it('skips a fence that does not parse and uses the next one', () => {
    expect(valueOf('```\nnot json\n```\nthen\n```json\n{"second": 2}\n```')).toEqual({ second: 2 });
  });

  it('finds an object between prose before and after it', () => {
    expect(valueOf('Sure! The result is {"answer": 42} as requested.')).toEqual({ answer: 42 });
  });

  it('is not confused by braces and escaped quotes inside strings', () => {
    const text = 'Output: {"text": "a } b { c", "quote": "he said \\"}\\" loudly"} end';
    expect(valueOf(text)).toEqual({ text: 'a } b { c', quote: 'he said "}" loudly' });
  });

  it('tolerates trailing commas', () => {
    expect(valueOf('{"list": [1, 2, 3,], "last": true,}')).toEqual({ list: [1, 2, 3], last: true });
  });

  it('removes trailing commas without changing the text inside strings', () => {
    // The trailing comma after `true` forces the repair; the ", ]" inside the string must survive it.
    expect(valueOf('{"text": "list: [a, b, ]", "done": true,}')).toEqual({ text: 'list: [a, b, ]', done: true });
  });

  it('skips an unbalanced opening brace and finds the valid object after it', () => {
    expect(valueOf('I will use { this format: {"valid": true}')).toEqual({ valid: true });
  });

  it('skips a balanced span that is not JSON and uses the next one', () => {
    expect(valueOf('Template {name} filled: {"name": "Ada"}')).toEqual({ name: 'Ada' });
  });

  it('reports an empty reply', () => {
    expect(extractJson('   ')).toEqual({ ok: false, error: 'The reply was empty.' });
    expect(extractJson('<think>only thinking</think>')).toEqual({ ok: false, error: 'The reply was empty.' });
  });

  it('reports a reply without JSON', () => {
    const result = extractJson('I could not find anything useful on the page.');
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toBe('The reply did not contain a JSON object.');
  });
});

describe('stripReasoning', () => {
  it('removes every kind of reasoning block, case-insensitively', () => {
    expect(stripReasoning('<THINK>a</THINK>x<thinking>b</thinking>y<reasoning>c</reasoning>z')).toBe('xyz');
  });
});

// Replies that degenerate into one repeated character are real. Before the finder was linear, a
// million characters of this kind held the process for many minutes; each case now takes a few
// milliseconds, so the generous timeout is a bound on work, not a speed measure.
describe('extractJson on adversarial replies', () => {
  const size = 1_000_000;
  const bound = { timeout: 20_000 };

  function failure(text: string): string {
    const result = extractJson(text);
    return result.ok ? 'parsed' : result.error;
  }

  it('reads a million unmatched `{` as no JSON', bound, () => {
    expect(failure('{'.repeat(size))).toBe('The reply did not contain a JSON object.');
  });

  it('reads a million unmatched `[`, `[{` or quotes as no JSON', bound, () => {
    expect(failure('['.repeat(size))).toBe('The reply did not contain a JSON object.');
    expect(failure('[{'.repeat(size / 2))).toBe('The reply did not contain a JSON object.');
    expect(failure('"'.repeat(size))).toBe('The reply did not contain a JSON object.');
  });

  it('reads repeated `{"a":` prefixes and `{"` pairs as no JSON', bound, () => {
    expect(failure('{"a":'.repeat(size / 5))).toBe('The reply did not contain a JSON object.');
    expect(failure('{"'.repeat(size / 2))).toBe('The reply did not contain a JSON object.');
  });

  it('parses deeply nested brackets', bound, () => {
    const depth = size / 10;
    const nested = extractJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    expect(nested.ok).toBe(true);
    expect(extractJson(`${'['.repeat(depth)}${']'.repeat(depth)}`).ok).toBe(true);
  });

  it('finds the object after a million unmatched braces', bound, () => {
    expect(valueOf(`${'{'.repeat(size)} {"found": true}`)).toEqual({ found: true });
  });

  it('reads an unclosed fence and unclosed reasoning as no JSON', bound, () => {
    expect(failure(`\`\`\`${'a'.repeat(size)}`)).toBe('The reply did not contain a JSON object.');
    expect(failure('<think>'.repeat(size / 7))).toBe('The reply did not contain a JSON object.');
    expect(failure(`${'<think>'.repeat(size / 14)}${'</thinking>'.repeat(size / 22)}`)).toBe('The reply did not contain a JSON object.');
  });

  it('reads a reply of many commas and spaces as no JSON', bound, () => {
    expect(failure(`[${', '.repeat(size / 2)}`)).toBe('The reply did not contain a JSON object.');
    expect(failure(`{"a": [${','.repeat(size)}`)).toBe('The reply did not contain a JSON object.');
  });

  it('refuses a reply longer than maxJsonReplyCharacters, saying so', () => {
    expect(maxJsonReplyCharacters).toBe(4_000_000);
    const result = extractJson(`{"a": "${'x'.repeat(maxJsonReplyCharacters)}"}`);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toBe(
      `The reply is ${(maxJsonReplyCharacters + 9).toLocaleString('en-US')} characters long; replies longer than 4,000,000 characters are not searched for JSON.`,
    );
    // At the limit, it is still read.
    expect(extractJson(`{"a": "${'x'.repeat(maxJsonReplyCharacters - 9)}"}`).ok).toBe(true);
  });
});

describe('extractJson on replies that restart their JSON', () => {
  it('finds the object after an unterminated one whose string swallowed a brace', () => {
    expect(valueOf('Here: {"a": "unterminated\n{"a": 1}')).toEqual({ a: 1 });
  });

  it('prefers the first object in the text, whichever way it was found', () => {
    expect(valueOf('{"x": "open {"first": 1} then {"second": 2}')).toEqual({ first: 1 });
  });
});
