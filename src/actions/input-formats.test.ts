import { describe, expect, it } from 'vitest';
import { expectedInputFormat, normaliseInputValue } from './input-formats';

/** [type, what was written, the value the input needs] */
const accepted: readonly (readonly [string, string, string])[] = [
  // date
  ['date', '2011-10-11', '2011-10-11'],
  ['date', '2011/10/11', '2011-10-11'],
  ['date', '2011-1-5', '2011-01-05'],
  ['date', '10/11/2011', '2011-10-11'], // US: month first
  ['date', '1/5/2011', '2011-01-05'],
  ['date', '10-11-2011', '2011-10-11'],
  ['date', '25/12/2011', '2011-12-25'], // 25 cannot be a month: day first
  ['date', '11.10.2011', '2011-10-11'], // dots: day first
  ['date', '11 Oct 2011', '2011-10-11'],
  ['date', '11 October 2011', '2011-10-11'],
  ['date', '11-Oct-2011', '2011-10-11'],
  ['date', '11th of October, 2011', '2011-10-11'],
  ['date', 'October 11, 2011', '2011-10-11'],
  ['date', 'Oct. 11 2011', '2011-10-11'],
  ['date', 'oct 11th, 2011', '2011-10-11'],
  ['date', 'Sept 1, 2011', '2011-09-01'],
  ['date', 'Tue, 11 Oct 2011', '2011-10-11'],
  ['date', 'Tuesday October 11, 2011', '2011-10-11'],
  ['date', '  2011-10-11  ', '2011-10-11'],
  ['date', '2012-02-29', '2012-02-29'], // leap year
  ['date', '2000-02-29', '2000-02-29'],
  ['date', '0099-03-01', '0099-03-01'],
  // time
  ['time', '15:45', '15:45'],
  ['time', '3:45 PM', '15:45'],
  ['time', '3:45pm', '15:45'],
  ['time', '3:45 p.m.', '15:45'],
  ['time', '3:45 a.m.', '03:45'],
  ['time', '3pm', '15:00'],
  ['time', '3 PM', '15:00'],
  ['time', '12:00 AM', '00:00'],
  ['time', '12:30 PM', '12:30'],
  ['time', '12am', '00:00'],
  ['time', '9:05', '09:05'],
  ['time', '00:00', '00:00'],
  ['time', '23:59', '23:59'],
  ['time', '15:45:30', '15:45:30'],
  ['time', '15:45:30.250', '15:45:30.250'],
  ['time', 'noon', '12:00'],
  ['time', 'Midnight', '00:00'],
  ['time', '3:45p', '15:45'],
  // datetime-local
  ['datetime-local', '2011-10-11T15:45', '2011-10-11T15:45'],
  ['datetime-local', '2011-10-11 15:45', '2011-10-11T15:45'],
  ['datetime-local', '2011-10-11 3:45 PM', '2011-10-11T15:45'],
  ['datetime-local', '10/11/2011 3:45pm', '2011-10-11T15:45'],
  ['datetime-local', '11 Oct 2011 15:45:30', '2011-10-11T15:45:30'],
  ['datetime-local', 'October 11, 2011 at 3:45 PM', '2011-10-11T15:45'],
  ['datetime-local', 'October 11, 2011, 3pm', '2011-10-11T15:00'],
  ['datetime-local', '2011-10-11,09:00', '2011-10-11T09:00'],
  // month
  ['month', '2011-10', '2011-10'],
  ['month', '2011/3', '2011-03'],
  ['month', '10/2011', '2011-10'],
  ['month', 'Oct 2011', '2011-10'],
  ['month', 'October, 2011', '2011-10'],
  ['month', '2011 October', '2011-10'],
  ['month', '2011-10-11', '2011-10'],
  ['month', 'October 11, 2011', '2011-10'],
  // week
  ['week', '2011-W41', '2011-W41'],
  ['week', '2011-w7', '2011-W07'],
  ['week', '2011 W41', '2011-W41'],
  ['week', 'W41 2011', '2011-W41'],
  ['week', 'week 41 2011', '2011-W41'],
  ['week', 'Week 41, 2011', '2011-W41'],
  ['week', '2011 week 41', '2011-W41'],
  ['week', '2011-10-11', '2011-W41'], // a date: its ISO week
  ['week', '2021-01-01', '2020-W53'], // early January can belong to last year's week
  ['week', '2008-12-29', '2009-W01'], // late December can belong to next year's week
  ['week', '2020-W53', '2020-W53'], // 2020 has 53 weeks
  // number
  ['number', '1234.5', '1234.5'],
  ['number', '1,234.5', '1234.5'],
  ['number', '1,234,567', '1234567'],
  ['number', '1.234,5', '1234.5'],
  ['number', '1.234.567', '1234567'],
  ['number', '1 234,5', '1234.5'],
  ['number', "1'234.5", '1234.5'],
  ['number', '1,5', '1.5'], // a lone decimal comma
  ['number', '3,14159', '3.14159'],
  ['number', '-3', '-3'],
  ['number', '−3', '-3'], // the minus sign
  ['number', '+7', '7'],
  ['number', '$1,234.50', '1234.50'],
  ['number', '12 €', '12'],
  ['number', '.5', '.5'],
  ['number', '5.', '5'],
  ['number', '1e3', '1e3'],
  ['number', '0', '0'],
  // range takes numbers too
  ['range', '50', '50'],
  ['range', '1,000', '1000'],
  // an empty text clears any input
  ['date', '', ''],
  ['number', '   ', ''],
  // types without a fixed format keep the text as written
  ['text', '  spaced  ', '  spaced  '],
  ['email', 'ada@example.com', 'ada@example.com'],
  ['color', '#ff0000', '#ff0000'],
];

/** [type, what was written] that no input of that type can take. */
const rejected: readonly (readonly [string, string])[] = [
  ['date', '2011-02-29'], // not a leap year
  ['date', '1900-02-29'],
  ['date', '2011-13-01'],
  ['date', '13/13/2011'],
  ['date', '10/11/11'], // two-digit years are ambiguous
  ['date', '32 Oct 2011'],
  ['date', '11 Foo 2011'],
  ['date', 'tomorrow'],
  ['date', '2011-10-11 15:45'],
  ['date', '0000-01-01'],
  ['time', '25:00'],
  ['time', '13:00 PM'],
  ['time', '0 AM'],
  ['time', '15:60'],
  ['time', '15:45:60'],
  ['time', '3'],
  ['time', 'quarter past three'],
  ['datetime-local', '2011-10-11'], // no time
  ['datetime-local', '15:45'],
  ['datetime-local', '2011-10-11 25:00'],
  ['month', '2011-13'],
  ['month', 'Foo 2011'],
  ['month', '2011'],
  ['week', '2011-W53'], // 2011 has 52 weeks
  ['week', '2011-W00'],
  ['week', 'week 41'],
  ['number', 'abc'],
  ['number', '12abc'],
  ['number', '1,2,3'],
  ['number', '1,234.5.6'],
  ['number', '12,34.5'],
  ['number', '1.23.4'],
  ['number', '--1'],
  ['range', 'half'],
  ['date', 'x'.repeat(101)],
];

describe('normaliseInputValue', () => {
  it.each(accepted)('%s input: %j becomes %j', (type, text, value) => {
    expect(normaliseInputValue(type, text)).toEqual({ ok: true, value });
  });

  it.each(rejected)('%s input: %j is refused with the expected format', (type, text) => {
    const result = normaliseInputValue(type, text);
    expect(result).toEqual({ ok: false, expected: expectedInputFormat(type) });
    expect(result.ok ? '' : result.expected).toMatch(/such as/);
  });

  it('ignores the case of the type', () => {
    expect(normaliseInputValue('DATE', '10/11/2011')).toEqual({ ok: true, value: '2011-10-11' });
  });
});

describe('expectedInputFormat', () => {
  it('describes each formatted type and nothing else', () => {
    expect(expectedInputFormat('date')).toContain('month/day/year');
    expect(expectedInputFormat('time')).toContain('3:45 PM');
    expect(expectedInputFormat('datetime-local')).toContain('2011-10-11 15:45');
    expect(expectedInputFormat('month')).toContain('Oct 2011');
    expect(expectedInputFormat('week')).toContain('2011-W41');
    expect(expectedInputFormat('number')).toContain('1,234.5');
    expect(expectedInputFormat('range')).toContain('50');
    expect(expectedInputFormat('text')).toBeUndefined();
  });
});
