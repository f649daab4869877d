// Runs in headless Chromium (the vitest `browser` project): the text helpers the walk and the snapshot use.
// Pure string work; nothing here touches the document.
import { describe, expect, it } from 'vitest';
import { cap, collapse, LineBuffer } from './text';

describe('collapse', () => {
  it('folds every run of whitespace, newlines and tabs included, into one space and trims the ends', () => {
    expect(collapse('  Sign \n\t in  now ')).toBe('Sign in now');
    expect(collapse('\u00a0non\u00a0breaking\u00a0')).toBe('non breaking');
    expect(collapse(' \n\t ')).toBe('');
  });
});

describe('cap', () => {
  it('keeps a value that fits, up to exactly the limit', () => {
    expect(cap('abcde', 5)).toBe('abcde');
    expect(cap('', 3)).toBe('');
  });

  it('cuts a longer value to the limit and marks the cut with …', () => {
    expect(cap('abcdefgh', 5)).toBe('abcde…');
  });

  it('never splits a surrogate pair: the cut moves before an emoji that straddles the limit', () => {
    const value = 'ab😀cd'; // the emoji is two UTF-16 units, at positions 2 and 3
    expect(cap(value, 3)).toBe('ab…');
    expect(cap(value, 4)).toBe('ab😀…');
  });
});

describe('LineBuffer', () => {
  it('joins runs of one line as the page writes them and folds their whitespace', () => {
    const buffer = new LineBuffer();
    buffer.add('Hello ');
    buffer.add('\n world');
    expect(buffer.take(100)).toEqual(['Hello world']);
  });

  it('invents no space between runs (a word split by inline markup), and adds one where asked', () => {
    const buffer = new LineBuffer();
    buffer.add(' Grav');
    buffer.add('ida. ');
    buffer.space();
    buffer.add('4.50');
    expect(buffer.take(100)).toEqual(['Gravida. 4.50']);
    buffer.space(); // nothing before it on the line: no space
    buffer.add('x');
    expect(buffer.take(100)).toEqual(['x']);
  });

  it('starts a new line at each line break and drops empty lines', () => {
    const buffer = new LineBuffer();
    buffer.add('first');
    buffer.lineBreak();
    buffer.lineBreak();
    buffer.add('   ');
    buffer.lineBreak();
    buffer.add('second');
    expect(buffer.take(100)).toEqual(['first', 'second']);
  });

  it('cuts each line to the limit on its own, so a long line does not swallow the next', () => {
    const buffer = new LineBuffer();
    buffer.add('x'.repeat(30));
    buffer.lineBreak();
    buffer.add('short');
    expect(buffer.take(10)).toEqual([`${'x'.repeat(10)}…`, 'short']);
  });

  it('starts afresh after take, and says whether anything but whitespace was added', () => {
    const buffer = new LineBuffer();
    expect(buffer.empty).toBe(true);
    buffer.add('  ');
    expect(buffer.empty).toBe(true);
    buffer.add('word');
    expect(buffer.empty).toBe(false);
    buffer.lineBreak();
    expect(buffer.empty).toBe(false);
    expect(buffer.take(100)).toEqual(['word']);
    expect(buffer.empty).toBe(true);
    expect(buffer.take(100)).toEqual([]);
  });
});
