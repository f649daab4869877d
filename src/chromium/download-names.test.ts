import { describe, expect, it } from 'vitest';
import { mediaTypeOf, numberedName, safeFileName } from './download-names';

const bytes = (name: string): number => new TextEncoder().encode(name).length;

describe('safeFileName', () => {
  it('keeps an ordinary name as it is', () => {
    expect(safeFileName('statement-2026-11.csv')).toBe('statement-2026-11.csv');
    expect(safeFileName('Relevé de compte.pdf')).toBe('Relevé de compte.pdf');
  });

  it('never makes a path: separators, .. and a leading dot go', () => {
    for (const evil of ['../../etc/passwd', '..\\..\\windows\\system32\\x.dll', '/etc/passwd', '.bashrc', '...', '..']) {
      const name = safeFileName(evil);
      expect(name).not.toMatch(/[/\\]/);
      expect(name).not.toContain('..');
      expect(name.startsWith('.')).toBe(false);
      expect(name.length).toBeGreaterThan(0);
    }
    expect(safeFileName('../../etc/passwd')).toBe('etc_passwd');
  });

  it('replaces control characters and the characters Windows refuses', () => {
    expect(safeFileName('bad\r\nname\u0007.txt')).toBe('bad__name_.txt');
    expect(safeFileName('a<b>c:d"e|f?g*h.txt')).toBe('a_b_c_d_e_f_g_h.txt');
  });

  it('prefixes Windows device names and drops trailing dots and spaces', () => {
    expect(safeFileName('CON.txt')).toBe('_CON.txt');
    expect(safeFileName('lpt1')).toBe('_lpt1');
    expect(safeFileName('report.pdf. . ')).toBe('report.pdf');
  });

  it('gives the fallback when nothing is left', () => {
    expect(safeFileName('')).toBe('download');
    expect(safeFileName('\u0000\u0001')).toBe('download');
    expect(safeFileName('...', 'page.pdf')).toBe('page.pdf');
  });

  it('cuts a long name to 255 bytes, keeping its extension and whole characters', () => {
    const long = safeFileName(`${'L'.repeat(400)}.txt`);
    expect(bytes(long)).toBeLessThanOrEqual(255);
    expect(long.endsWith('.txt')).toBe(true);
    const wide = safeFileName(`${'é'.repeat(300)}.csv`);
    expect(bytes(wide)).toBeLessThanOrEqual(255);
    expect(wide).toMatch(/^é+\.csv$/);
  });
});

describe('numberedName', () => {
  it('numbers before the extension, within the byte limit', () => {
    expect(numberedName('report.csv', 0)).toBe('report.csv');
    expect(numberedName('report.csv', 2)).toBe('report (2).csv');
    expect(numberedName('README', 1)).toBe('README (1)');
    const numbered = numberedName(safeFileName(`${'L'.repeat(400)}.txt`), 12);
    expect(bytes(numbered)).toBeLessThanOrEqual(255);
    expect(numbered.endsWith(' (12).txt')).toBe(true);
  });
});

describe('mediaTypeOf', () => {
  it('tells the type by extension, then by the first bytes', () => {
    expect(mediaTypeOf('a.CSV')).toBe('text/csv');
    expect(mediaTypeOf('a.pdf')).toBe('application/pdf');
    expect(mediaTypeOf('invoice', new TextEncoder().encode('%PDF-1.4'))).toBe('application/pdf');
    expect(mediaTypeOf('archive', new Uint8Array([0x50, 0x4b, 0x03, 0x04]))).toBe('application/zip');
    expect(mediaTypeOf('blob')).toBe('application/octet-stream');
  });
});
