import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../test/helpers/rejection';
import { matchesUrlPattern, validateUrlPattern } from './url-pattern';

interface Row {
  readonly why: string;
  readonly pattern: string;
  readonly url: string;
  readonly matches: boolean;
}

const rows: readonly Row[] = [
  // A host: the host and its subdomains, http or https, any port.
  { why: 'the host', pattern: 'example.com', url: 'https://example.com/a', matches: true },
  { why: 'a subdomain over http on a port', pattern: 'example.com', url: 'http://a.b.example.com:8080/', matches: true },
  { why: 'a host ending with the same letters', pattern: 'example.com', url: 'https://notexample.com/', matches: false },
  { why: 'the host as a subdomain of another', pattern: 'example.com', url: 'https://example.com.evil.net/', matches: false },
  { why: 'the host as user info', pattern: 'example.com', url: 'https://example.com@evil.net/', matches: false },
  { why: 'the host in the path', pattern: 'example.com', url: 'https://evil.net/example.com', matches: false },
  { why: 'upper case, a root dot and a space around the pattern', pattern: ' EXAMPLE.com. ', url: 'HTTPS://WWW.Example.COM./', matches: true },
  { why: 'a percent-encoded host', pattern: 'example.com', url: 'https://%65xample.com/', matches: true },
  { why: 'an IDN pattern', pattern: 'bücher.de', url: 'https://shop.xn--bcher-kva.de/', matches: true },
  { why: 'a port in a host pattern is ignored', pattern: 'example.com:8080', url: 'https://example.com/', matches: true },
  { why: 'an IPv4 address written another way', pattern: '127.0.0.1', url: 'http://0x7f.1:3000/', matches: true },
  { why: 'IPv4-mapped IPv6', pattern: '127.0.0.1', url: 'http://[::ffff:127.0.0.1]/', matches: true },
  { why: 'another IPv4 address', pattern: '127.0.0.1', url: 'http://127.0.0.2/', matches: false },
  { why: 'an IPv6 address', pattern: '[::1]', url: 'http://[0::1]:8080/', matches: true },
  { why: 'a non-web scheme on the host', pattern: 'example.com', url: 'ws://example.com/', matches: false },
  { why: 'blob: of the host', pattern: 'example.com', url: 'blob:https://example.com/3f1c', matches: false },

  // A host glob: subdomains only; `*` alone: every http(s) URL.
  { why: 'a subdomain', pattern: '*.example.com', url: 'https://shop.example.com/cart', matches: true },
  { why: 'a deep subdomain', pattern: '*.example.com', url: 'http://a.b.example.com/', matches: true },
  { why: 'the apex', pattern: '*.example.com', url: 'https://example.com/', matches: false },
  { why: 'a look-alike', pattern: '*.example.com', url: 'https://evilexample.com/', matches: false },
  { why: '"*" and https', pattern: '*', url: 'https://anything.example/x?y', matches: true },
  { why: '"*" and http on a port', pattern: '*', url: 'http://127.0.0.1:8080/', matches: true },
  { why: '"*" and about:blank', pattern: '*', url: 'about:blank', matches: false },
  { why: '"*" and javascript:', pattern: '*', url: 'javascript:alert(1)', matches: false },
  { why: '"*" and data:', pattern: '*', url: 'data:text/html,x', matches: false },
  { why: '"*" and a relative URL', pattern: '*', url: '/admin', matches: false },
  { why: '"*" and an empty URL', pattern: '*', url: '', matches: false },

  // A URL glob: scheme, host and port exact, `*` over the path and query.
  { why: 'a page below the glob', pattern: 'https://example.com/admin/*', url: 'https://example.com/admin/users?page=2', matches: true },
  { why: 'the folder itself', pattern: 'https://example.com/admin/*', url: 'https://example.com/admin/', matches: true },
  { why: 'a longer folder name', pattern: 'https://example.com/admin/*', url: 'https://example.com/administrator', matches: false },
  { why: 'the folder without its slash', pattern: 'https://example.com/admin/*', url: 'https://example.com/admin', matches: false },
  { why: 'a fragment is ignored', pattern: 'https://example.com/admin/*', url: 'https://example.com/admin/x#top', matches: true },
  { why: 'another scheme', pattern: 'https://example.com/admin/*', url: 'http://example.com/admin/x', matches: false },
  { why: 'another port', pattern: 'https://example.com/admin/*', url: 'https://example.com:8443/admin/x', matches: false },
  { why: 'the default port written out', pattern: 'https://example.com:443/admin/*', url: 'https://example.com/admin/x', matches: true },
  { why: 'an explicit port', pattern: 'http://localhost:3000/*', url: 'http://localhost:3000/app', matches: true },
  { why: 'an explicit port, another port', pattern: 'http://localhost:3000/*', url: 'http://localhost:3001/app', matches: false },
  { why: 'a subdomain of an exact host', pattern: 'https://example.com/admin/*', url: 'https://www.example.com/admin/x', matches: false },
  { why: 'the host in the path of another', pattern: 'https://example.com/*', url: 'https://evil.net/https://example.com/', matches: false },
  { why: 'the host as user info', pattern: 'https://example.com/*', url: 'https://example.com@evil.net/', matches: false },
  { why: 'user info before the real host', pattern: 'https://example.com/*', url: 'https://user:pw@example.com/x', matches: true },
  { why: 'a normalised host', pattern: 'https://EXAMPLE.com./*', url: 'https://example.com/x', matches: true },
  { why: 'an IDN host', pattern: 'https://bücher.de/*', url: 'https://xn--bcher-kva.de/x', matches: true },
  { why: 'subdomains in a URL glob', pattern: 'https://*.example.com/*', url: 'https://a.example.com/x', matches: true },
  { why: 'the apex in a subdomain URL glob', pattern: 'https://*.example.com/*', url: 'https://example.com/x', matches: false },
  { why: 'a host glob cannot reach into the path', pattern: 'https://*.example.com/*', url: 'https://evil.net/?.example.com/', matches: false },
  { why: 'any host', pattern: 'https://*/checkout', url: 'https://shop.example/checkout', matches: true },
  { why: 'any host, another path', pattern: 'https://*/checkout', url: 'https://shop.example/checkout/2', matches: false },
  { why: 'the root only', pattern: 'https://example.com', url: 'https://example.com/', matches: true },
  { why: 'the root only, another page', pattern: 'https://example.com', url: 'https://example.com/a', matches: false },
  { why: 'the root only, with a query', pattern: 'https://example.com/', url: 'https://example.com/?q=1', matches: false },
  { why: 'a glob in the query', pattern: 'https://example.com/search?q=*', url: 'https://example.com/search?q=shoes', matches: true },
  { why: 'a glob in the query, another parameter', pattern: 'https://example.com/search?q=*', url: 'https://example.com/search?page=2', matches: false },
  { why: 'a query after the path glob', pattern: 'https://example.com/*?tab=1', url: 'https://example.com/a/b?tab=1', matches: true },
  { why: 'several globs', pattern: 'https://example.com/*/orders/*', url: 'https://example.com/u/42/orders/7', matches: true },
  { why: 'several globs, a part missing', pattern: 'https://example.com/*/orders/*', url: 'https://example.com/u/42/order/7', matches: false },
  { why: 'a glob that must backtrack', pattern: 'https://example.com/*ab', url: 'https://example.com/aab', matches: true },
  { why: 'literal characters after the last glob', pattern: 'https://example.com/*.pdf', url: 'https://example.com/a.pdf.html', matches: false },
  { why: 'characters a regular expression would read', pattern: 'https://example.com/a+b(c)', url: 'https://example.com/a+b(c)', matches: true },
  { why: 'a "." is not a wildcard', pattern: 'https://example.com/a.c', url: 'https://example.com/abc', matches: false },
  { why: 'dot segments in the URL', pattern: 'https://example.com/admin/*', url: 'https://example.com/public/../admin/x', matches: true },
  { why: 'dot segments in the pattern', pattern: 'https://example.com/a/../admin/*', url: 'https://example.com/admin/x', matches: true },
  { why: 'backslashes in the pattern path', pattern: 'https://example.com\\admin\\*', url: 'https://example.com/admin/x', matches: true },
  { why: 'a space the URL writes percent-encoded', pattern: 'https://example.com/my page', url: 'https://example.com/my%20page', matches: true },
  { why: 'an upper-case scheme', pattern: 'HTTPS://example.com/*', url: 'https://example.com/x', matches: true },
  { why: 'an IPv6 host with a port', pattern: 'http://[::1]:8080/*', url: 'http://[0:0::1]:8080/x', matches: true },
  { why: 'a URL that does not parse', pattern: 'https://example.com/*', url: 'https://exa mple.com/', matches: false },
  { why: 'a host made of a root dot', pattern: 'example.com', url: 'http://./', matches: false },
];

describe('matchesUrlPattern', () => {
  it.each(rows)('$why: $pattern ~ $url -> $matches', ({ pattern, url, matches }) => {
    expect(matchesUrlPattern(url, pattern)).toBe(matches);
  });

  it('matches nothing with an invalid pattern, and never throws', () => {
    expect(matchesUrlPattern('https://example.com/', '')).toBe(false);
    expect(matchesUrlPattern('https://example.com/', 'example.com/admin')).toBe(false);
    expect(matchesUrlPattern('https://example.com/', 'ftp://example.com/*')).toBe(false);
    expect(matchesUrlPattern('https://example.com/', undefined as unknown as string)).toBe(false);
    expect(matchesUrlPattern(undefined as unknown as string, '*')).toBe(false);
  });

  it('takes time linear in the URL for globs that would make a regular expression backtrack', () => {
    const url = `https://example.com/${'a'.repeat(20_000)}`;
    expect(matchesUrlPattern(url, 'https://example.com/*a*a*a*a*a*a*a*a*b')).toBe(false);
    expect(matchesUrlPattern(`${url}b`, 'https://example.com/*a*a*a*a*a*a*a*a*b')).toBe(true);
  });
});

describe('validateUrlPattern', () => {
  it.each(['example.com', '*.example.com', '*', ' [::1] ', 'localhost:3000', 'https://example.com/admin/*', 'http://*/x', 'https://*.example.com:8443/*'])(
    'accepts %s',
    (pattern) => {
      expect(() => validateUrlPattern(pattern)).not.toThrow();
    },
  );

  const badPatterns: readonly { readonly pattern: string; readonly message: string }[] = [
    { pattern: '', message: 'is empty; write a host ("example.com"), a host glob ("*.example.com") or a URL glob' },
    { pattern: '  ', message: 'is empty' },
    {
      pattern: 'example.com/admin/*',
      message: 'has a path, query or fragment; write only the host, or put a scheme before it ("https://example.com/admin/*")',
    },
    { pattern: 'ex*ample.com', message: 'has a "*" that is not a leading "*."' },
    { pattern: '*.', message: 'is not a valid host' },
    { pattern: 'user@example.com', message: 'has user info' },
    { pattern: '*.10.0.0.1', message: 'puts "*." before an IP address' },
    { pattern: 'ftp://example.com/*', message: 'has the scheme ftp:, but only http(s) pages can match' },
    { pattern: 'javascript:alert(1)', message: 'has the scheme javascript:' },
    { pattern: 'about:blank', message: 'has the scheme about:' },
    { pattern: 'http:example.com/*', message: 'is not a URL glob; write it as "http://host/path"' },
    { pattern: 'HTTPS:/example.com/*', message: 'is not a URL glob; write it as "https://host/path"' },
    { pattern: 'https://example.com/a#b', message: 'has a fragment, which URLs are never compared on; leave it out' },
    { pattern: 'https://user@example.com/*', message: 'has a host that has user info' },
    { pattern: 'https:///admin', message: 'has a host that is not a valid host' },
    { pattern: 'https://ex*.com/*', message: 'has a host that has a "*" that is not a leading "*."' },
    { pattern: 'https://example.com:99999/*', message: 'has a host that has a port that is not a number' },
  ];

  it.each(badPatterns)('rejects $pattern', ({ pattern, message }) => {
    const error = configErrorOf(() => validateUrlPattern(pattern));
    expect(error.field).toBe('urlPatterns');
    expect(error.message).toContain(`URL pattern ${JSON.stringify(pattern)} ${message}`);
  });

  it('rejects what is not a string, for callers without types', () => {
    const error = configErrorOf(() => validateUrlPattern(42 as unknown as string));
    expect(error.field).toBe('urlPatterns');
    expect(error.message).toContain('must be a string');
  });
});
