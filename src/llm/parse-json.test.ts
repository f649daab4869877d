import { describe, expect, it } from 'vitest';
import { extractJson, stripReasoning } from './parse-json';

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
