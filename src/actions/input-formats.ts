// Turns the dates, times and numbers people (and models) write into the values HTML inputs take
// (`10/11/2011` -> `2011-10-11`, `3:45 PM` -> `15:45`, `1,234.5` -> `1234.5`). Pure: no DOM, no I/O.

/** The outcome of {@link normaliseInputValue}: the value to set, or the format the input expects. */
export type InputFormatResult = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly expected: string };

/** The input types whose value has a fixed machine format. */
const formattedTypes = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'number', 'range']);

/** What each formatted input type accepts, in words the model can act on. */
const expectedFormats: Readonly<Record<string, string>> = {
  date: 'a date such as 2011-10-11, 10/11/2011 (month/day/year), 11 Oct 2011 or October 11, 2011',
  time: 'a time such as 15:45, 3:45 PM or 3pm',
  'datetime-local': 'a date and a time such as 2011-10-11 15:45, 2011-10-11 3:45 PM or October 11, 2011 3:45 PM',
  month: 'a month such as 2011-10, Oct 2011 or October 2011',
  week: 'a week such as 2011-W41 or week 41 2011, or a date in that week',
  number: 'a number such as 1234.5, 1,234.5 or -3',
  range: 'a number such as 50 or 12.5',
};

const monthNames: Readonly<Record<string, number>> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

/** A leading weekday ("Tue, ", "Tuesday ") carries nothing the value needs. */
const weekdayPrefix = /^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|sday|nesday|rsday|urday)?\.?,?\s+/i;

interface CalendarDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

interface ClockTime {
  readonly hour: number;
  readonly minute: number;
  /** Seconds with an optional fraction, as written (`30`, `30.5`), when given. */
  readonly second?: string | undefined;
}

/** The format an input of this type expects, in words; undefined for free-text types. */
export function expectedInputFormat(type: string): string | undefined {
  return expectedFormats[type.toLowerCase()];
}

/**
 * The value an `<input type=…>` needs for what was written: ISO forms for date, time,
 * datetime-local, month and week; a plain decimal number for number and range. Other types get
 * the text unchanged, and an empty text clears any input.
 *
 * @remarks
 * Dates with slashes or dashes and the year last are read month first, as in the US
 * (`10/11/2011` is October 11), unless the first number cannot be a month (`25/12/2011`); dates
 * with dots are read day first (`11.10.2011`). Years have four digits. In numbers, a comma followed
 * by groups of three digits separates thousands (`1,234`); a lone comma before one, two or four
 * and more digits is a decimal comma (`1,5`).
 */
export function normaliseInputValue(type: string, text: string): InputFormatResult {
  const kind = type.toLowerCase();
  const trimmed = text.trim();
  if (!formattedTypes.has(kind) || trimmed === '') return { ok: true, value: formattedTypes.has(kind) ? '' : text };
  const value = trimmed.length > 100 ? undefined : formatValue(kind, trimmed.replace(/\s+/g, ' '));
  return value === undefined ? { ok: false, expected: expectedFormats[kind] ?? kind } : { ok: true, value };
}

function formatValue(kind: string, text: string): string | undefined {
  switch (kind) {
    case 'date': {
      const date = parseDate(text);
      return date && formatDate(date);
    }
    case 'time': {
      const time = parseTime(text);
      return time && formatTime(time);
    }
    case 'datetime-local':
      return parseDateTime(text);
    case 'month':
      return parseMonth(text);
    case 'week':
      return parseWeek(text);
    default:
      return parseNumber(text);
  }
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

function formatDate({ year, month, day }: CalendarDate): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function formatTime({ hour, minute, second }: ClockTime): string {
  return `${pad(hour)}:${pad(minute)}${second === undefined ? '' : `:${second}`}`;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** A real calendar date, or undefined (February 30, month 13, year 0). */
function calendarDate(year: number, month: number, day: number): CalendarDate | undefined {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return { year, month, day };
}

function monthNumber(name: string): number | undefined {
  return monthNames[name.toLowerCase().replace(/\.$/, '')];
}

function parseDate(text: string): CalendarDate | undefined {
  const clean = text.replace(weekdayPrefix, '').trim();
  let match = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(clean);
  if (match) return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(clean);
  if (match) {
    const first = Number(match[1]);
    const second = Number(match[2]);
    // US order unless the first number cannot be a month.
    return first > 12 ? calendarDate(Number(match[3]), second, first) : calendarDate(Number(match[3]), first, second);
  }
  match = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(clean);
  if (match) return calendarDate(Number(match[3]), Number(match[2]), Number(match[1]));
  // 11 Oct 2011, 11th of October, 2011, 11-Oct-2011
  match = /^(\d{1,2})(?:st|nd|rd|th)?[\s/-]*(?:of\s+)?([a-z]+\.?),?[\s/-]*(\d{4})$/i.exec(clean);
  if (match) {
    const month = monthNumber(match[2] ?? '');
    return month === undefined ? undefined : calendarDate(Number(match[3]), month, Number(match[1]));
  }
  // October 11, 2011; Oct 11th 2011
  match = /^([a-z]+\.?)\s*(\d{1,2})(?:st|nd|rd|th)?,?\s*(\d{4})$/i.exec(clean);
  if (match) {
    const month = monthNumber(match[1] ?? '');
    return month === undefined ? undefined : calendarDate(Number(match[3]), month, Number(match[2]));
  }
  return undefined;
}

function parseTime(text: string): ClockTime | undefined {
  const clean = text
    .toLowerCase()
    .replace(/\./g, (dot, offset: number, whole: string) => (/\d/.test(whole[offset + 1] ?? '') ? dot : ''))
    .trim();
  if (clean === 'noon' || clean === 'midday') return { hour: 12, minute: 0 };
  if (clean === 'midnight') return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2})(?::(\d{2}(?:\.\d{1,3})?))?)?\s*(am|pm|a|p)?$/.exec(clean);
  if (!match) return undefined;
  const [, hourText, minuteText, secondText, meridiem] = match;
  // "3" alone is no time; "3pm" is.
  if (minuteText === undefined && meridiem === undefined) return undefined;
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (minute > 59 || (secondText !== undefined && Number(secondText) >= 60)) return undefined;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.startsWith('p') ? 12 : 0);
  } else if (hour > 23) {
    return undefined;
  }
  return { hour, minute, second: secondText };
}

function parseDateTime(text: string): string | undefined {
  // Try each split between a date and a time: "2011-10-11T15:45", "Oct 11, 2011 at 3:45 PM".
  for (let position = 1; position < text.length; position++) {
    const separator = /^(?:T|,? (?:at )?|, ?)/i.exec(text.slice(position));
    if (!separator || (separator[0] === 'T' && !/\d/.test(text[position - 1] ?? ''))) continue;
    const date = parseDate(text.slice(0, position));
    const time = date && parseTime(text.slice(position + separator[0].length));
    if (date && time) return `${formatDate(date)}T${formatTime(time)}`;
  }
  return undefined;
}

function parseMonth(text: string): string | undefined {
  const format = (year: number, month: number): string | undefined =>
    year >= 1 && year <= 9999 && month >= 1 && month <= 12 ? `${pad(year, 4)}-${pad(month)}` : undefined;
  let match = /^(\d{4})[-/.](\d{1,2})$/.exec(text);
  if (match) return format(Number(match[1]), Number(match[2]));
  match = /^(\d{1,2})[-/.](\d{4})$/.exec(text);
  if (match) return format(Number(match[2]), Number(match[1]));
  match = /^([a-z]+\.?),?\s*(\d{4})$/i.exec(text);
  if (match) {
    const month = monthNumber(match[1] ?? '');
    return month === undefined ? undefined : format(Number(match[2]), month);
  }
  match = /^(\d{4}),?\s*([a-z]+\.?)$/i.exec(text);
  if (match) {
    const month = monthNumber(match[2] ?? '');
    return month === undefined ? undefined : format(Number(match[1]), month);
  }
  const date = parseDate(text);
  return date && format(date.year, date.month);
}

/** The number of ISO weeks in a year: 53 when it starts on a Thursday, or on a Wednesday in a leap year. */
function weeksInYear(year: number): number {
  const january1 = new Date(Date.UTC(year, 0, 1)).getUTCDay();
  return january1 === 4 || (january1 === 3 && isLeapYear(year)) ? 53 : 52;
}

/** The ISO week (year and number) that holds a date. */
function isoWeek({ year, month, day }: CalendarDate): { year: number; week: number } {
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  const weekday = date.getUTCDay() || 7;
  // The Thursday of this week decides the week's year.
  date.setUTCDate(date.getUTCDate() + 4 - weekday);
  const weekYear = date.getUTCFullYear();
  const start = new Date(Date.UTC(weekYear, 0, 1));
  start.setUTCFullYear(weekYear);
  const week = Math.ceil(((date.getTime() - start.getTime()) / 86_400_000 + 1) / 7);
  return { year: weekYear, week };
}

function parseWeek(text: string): string | undefined {
  const format = (year: number, week: number): string | undefined =>
    year >= 1 && year <= 9999 && week >= 1 && week <= weeksInYear(year) ? `${pad(year, 4)}-W${pad(week)}` : undefined;
  let match = /^(\d{4}),?[\s-]*w(?:eek)?\s*(\d{1,2})$/i.exec(text);
  if (match) return format(Number(match[1]), Number(match[2]));
  match = /^w(?:eek)?\s*(\d{1,2}),?\s*(?:of\s+)?(\d{4})$/i.exec(text);
  if (match) return format(Number(match[2]), Number(match[1]));
  const date = parseDate(text);
  if (!date) return undefined;
  const week = isoWeek(date);
  return format(week.year, week.week);
}

function parseNumber(text: string): string | undefined {
  let clean = text
    .replace(/[\u2212\u2012\u2013]/g, '-') // minus signs people paste
    .replace(/^([-+]?)\s*[$€£¥₹]\s*/u, '$1')
    .replace(/\s*[$€£¥₹]$/u, '')
    .replace(/[\s\u00a0\u202f\u2009'_]/g, '');
  if (clean.startsWith('+')) clean = clean.slice(1);
  const lastComma = clean.lastIndexOf(',');
  const lastDot = clean.lastIndexOf('.');
  if (lastComma !== -1 && lastDot !== -1) {
    // Both: the later one is the decimal mark (1,234.5 and 1.234,5).
    const decimal = lastComma > lastDot ? ',' : '.';
    const grouping = decimal === ',' ? '.' : ',';
    const [whole, fraction, ...rest] = clean.split(decimal);
    if (rest.length > 0 || whole === undefined || !groupedByThousands(whole, grouping)) return undefined;
    clean = `${whole.split(grouping).join('')}.${fraction ?? ''}`;
  } else if (lastComma !== -1) {
    if (groupedByThousands(clean, ',')) clean = clean.replaceAll(',', '');
    else if (clean.indexOf(',') === lastComma) clean = clean.replace(',', '.');
    else return undefined;
  } else if (lastDot !== -1 && clean.indexOf('.') !== lastDot) {
    // Several dots: thousands groups as written in much of Europe (1.234.567).
    if (!groupedByThousands(clean, '.')) return undefined;
    clean = clean.replaceAll('.', '');
  }
  clean = clean.replace(/\.$/, '');
  return /^-?(\d+(\.\d+)?|\.\d+)(e[-+]?\d+)?$/i.test(clean) ? clean : undefined;
}

/** True when `text` is digits in groups of three separated by `separator` (`1,234,567`), with at least one separator. */
function groupedByThousands(text: string, separator: string): boolean {
  const escaped = separator === '.' ? '\\.' : separator;
  return new RegExp(`^-?\\d{1,3}(${escaped}\\d{3})+$`).test(text);
}
