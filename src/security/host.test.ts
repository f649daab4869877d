import { describe, expect, it } from 'vitest';
import { hasScheme, normalizeHost, normalizePort, parseHostRule } from './host';

describe('normalizeHost', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['example.com...', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['ＥＸＡＭＰＬＥ.com', 'example.com'],
    ['%65xample.com', 'example.com'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.1..', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['[0:0:0:0:0:0:0:1]', '[::1]'],
    ['[::FFFF:127.0.0.1]', '127.0.0.1'],
    ['[::ffff:0:0]', '0.0.0.0'],
    ['[::ffff:c0a8:101]', '192.168.1.1'],
    // Only IPv4-mapped addresses become IPv4; other embeddings stay IPv6.
    ['[::127.0.0.1]', '[::7f00:1]'],
  ])('writes %s as %s', (host, normal) => {
    expect(normalizeHost(host)).toBe(normal);
  });

  it.each([
    '',
    '.',
    '..',
    'example.com:8080',
    '[::1]:80',
    '::1',
    'user@example.com',
    'example.com/path',
    'example.com?q',
    'example.com#f',
    'a\\b',
    'exa mple.com',
    '256.0.0.1',
    '1.2.3.4.5..',
  ])('refuses %j', (host) => {
    expect(normalizeHost(host)).toBeUndefined();
  });
});

describe('hasScheme', () => {
  it.each([
    ['https://example.com', true],
    ['HTTP:example.com', true],
    ['javascript:alert(1)', true],
    ['about:blank', true],
    ['example.com', false],
    ['example.com:8080', false],
    ['example.com:8080/path', false],
    ['localhost:', false],
    ['[::1]:3000', false],
  ])('%s -> %s', (entry, expected) => {
    expect(hasScheme(entry)).toBe(expected);
  });
});

describe('parseHostRule', () => {
  it('keeps the port, without leading zeros', () => {
    expect(parseHostRule('Example.com:08080')).toEqual({ host: 'example.com', subdomainsOnly: false, port: '8080' });
    expect(parseHostRule('*.example.com')).toEqual({ host: 'example.com', subdomainsOnly: true, port: '' });
    expect(parseHostRule('[::1]:')).toEqual({ host: '[::1]', subdomainsOnly: false, port: '' });
  });
});

describe('normalizePort', () => {
  it('writes default ports as none', () => {
    expect(normalizePort('http:', '80')).toBe('');
    expect(normalizePort('https:', '0443')).toBe('');
    expect(normalizePort('http:', '443')).toBe('443');
    expect(normalizePort('https:', '')).toBe('');
  });
});
