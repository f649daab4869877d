import { describe, expect, it } from 'vitest';
import { ActionError } from '../../errors';
import { catastrophicRegexReason, plainTextPattern, textPattern } from './search-page';

describe('catastrophicRegexReason', () => {
  it.each(['(a+)+$', '(\\w+\\s?)+$', '(a*)*b', '(?:x+y?)+', '(a|a)*', '(a|ab)+c', '(.|\\s)+', '(\\d|x)*', '((ab)+c)+', '(a+){2,}', '(a?){5,10}', '(A|a)+'])(
    'refuses %s',
    (pattern) => {
      expect(catastrophicRegexReason(pattern)).toBeDefined();
    },
  );

  it.each([
    'order #\\d+ shipped',
    '(cat|dog)+',
    '(\\d+)?',
    '(a+)',
    '(a+)?',
    '(a+){1}',
    '(?:ab)+',
    '[(a+)+]',
    '\\(a+\\)+',
    '(?<year>\\d{4})-(?<month>\\d{2})',
    '(?=x)\\w+',
    'a+b+c+',
  ])('accepts %s', (pattern) => {
    expect(catastrophicRegexReason(pattern)).toBeUndefined();
  });
});

describe('plainTextPattern', () => {
  it('escapes regular-expression characters and lets whitespace match any whitespace', () => {
    const source = plainTextPattern('  price: ($4.50)  per\nmonth? ');
    expect(source).toBe('price:\\s+\\(\\$4\\.50\\)\\s+per\\s+month\\?');
    expect(new RegExp(source).test('Total price: ($4.50)\n per month?')).toBe(true);
  });
});

describe('textPattern', () => {
  it('builds case-insensitive multiline patterns unless case matters', () => {
    expect(textPattern('search_page', 'Mug', { regex: false, caseSensitive: false })).toEqual({ source: 'Mug', flags: 'gmi' });
    expect(textPattern('search_page', 'M.g', { regex: true, caseSensitive: true })).toEqual({ source: 'M.g', flags: 'gm' });
  });

  it('refuses empty text, invalid, over-long and catastrophic expressions with recoverable errors', () => {
    const failure = (pattern: string, regex: boolean): ActionError | undefined => {
      try {
        textPattern('search_page', pattern, { regex, caseSensitive: false });
        return undefined;
      } catch (error) {
        return ActionError.isInstance(error) ? error : undefined;
      }
    };
    expect(failure('   ', false)?.message).toBe('The text to find is empty: give some visible text.');
    expect(failure('a(b', true)?.message).toMatch(/^Invalid regular expression "a\(b": .+\. Fix it, or search plain text with regex: false\.$/);
    expect(failure('a'.repeat(501), true)?.message).toContain('too long');
    expect(failure('(x+)+y', true)?.message).toContain('could take forever on a long page: it repeats a group that itself repeats something');
    expect(failure('(x+)+y', false)).toBeUndefined();
  });
});
