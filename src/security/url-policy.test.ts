import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../test/helpers/rejection';
import { allowedByRules } from '../chromium/websocket-guard';
import { UrlPolicy, type UrlPolicyOptions } from './url-policy';

interface Row {
  /** What the row shows. */
  readonly why: string;
  readonly url: string;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly allowed: boolean;
  /** A part of the reason the decision must give. */
  readonly reason?: string;
}

const site = ['example.com'];
const exact = ['https://example.com/page?x=1'];
const loopback = ['127.0.0.1'];

// Every rule of UrlPolicy, each with the URLs that try to get around it.
const rows: readonly Row[] = [
  // Only absolute URLs are decided on; anything else is denied.
  { why: 'empty input', url: '', allowed: false, reason: 'not an absolute URL' },
  { why: 'whitespace only', url: ' \t\n ', allowed: false, reason: 'not an absolute URL' },
  { why: 'a relative path', url: '/account', allowed: false, reason: 'not an absolute URL' },
  { why: 'a host without a scheme', url: 'example.com', allow: site, allowed: false, reason: 'not an absolute URL' },
  { why: 'a scheme-relative URL', url: '//example.com/x', allow: site, allowed: false, reason: 'not an absolute URL' },
  { why: 'a scheme with no host', url: 'http://', allowed: false, reason: 'not an absolute URL' },
  { why: 'a space inside the host', url: 'http://exa mple.com/', allowed: false, reason: 'not an absolute URL' },
  { why: 'an IPv4 address out of range', url: 'http://256.0.0.1/', allowed: false, reason: 'not an absolute URL' },
  { why: 'an unclosed IPv6 address', url: 'http://[::1/', allowed: false, reason: 'not an absolute URL' },
  { why: 'a NUL in the host', url: 'http://example.com%00/', allowed: false, reason: 'not an absolute URL' },
  { why: 'a "subdomain" of an IP address', url: 'http://sub.127.0.0.1/', allowed: false, reason: 'not an absolute URL' },
  { why: 'a host made of a root dot', url: 'http://./', allowed: false, reason: 'host . is not a valid host' },
  // WHATWG reads `1.2.3.4.5..` as a domain; without its root dots it is a broken IPv4 address.
  { why: 'a broken IPv4 address hidden by root dots', url: 'http://1.2.3.4.5../', allowed: false, reason: 'host 1.2.3.4.5.. is not a valid host' },

  // about:blank is allowed; every other scheme is denied, even with empty lists.
  { why: 'about:blank', url: 'about:blank', allowed: true, reason: 'about:blank is always allowed' },
  { why: 'about:blank with a fragment', url: 'about:blank#top', allowed: true },
  { why: 'about:blank with a query', url: 'about:blank?x=1', allowed: true },
  { why: 'about:blank with the scheme in upper case', url: 'ABOUT:blank', allowed: true },
  { why: 'about:blank with allow and deny lists', url: 'about:blank', allow: site, deny: site, allowed: true },
  { why: 'about:blank followed by a path trick', url: 'about:blank/..', allowed: false, reason: 'scheme about: is never allowed (only about:blank is)' },
  { why: 'about:blank with the page name in upper case', url: 'about:BLANK', allowed: false },
  { why: 'about:srcdoc', url: 'about:srcdoc', allowed: false, reason: 'scheme about: is never allowed' },
  { why: 'about:config', url: 'about:config', allowed: false },
  { why: 'about: with a host', url: 'about://example.com/blank', allow: site, allowed: false },
  { why: 'javascript:', url: 'javascript:alert(1)', allowed: false, reason: 'scheme javascript: is never allowed' },
  { why: 'javascript: in mixed case', url: 'JavaScript:alert(1)', allowed: false, reason: 'scheme javascript:' },
  { why: 'javascript: after spaces', url: '  javascript:alert(1)', allowed: false, reason: 'scheme javascript:' },
  { why: 'javascript: with a tab inside the scheme', url: 'java\tscript:alert(1)', allowed: false, reason: 'scheme javascript:' },
  { why: 'data:', url: 'data:text/html,<script>alert(1)</script>', allowed: false, reason: 'scheme data:' },
  { why: 'file:', url: 'file:///etc/passwd', allowed: false, reason: 'scheme file:' },
  { why: 'blob: of an allowed origin', url: 'blob:https://example.com/3f1c', allow: site, allowed: false, reason: 'scheme blob:' },
  { why: 'view-source: of an allowed page', url: 'view-source:https://example.com/', allow: site, allowed: false, reason: 'scheme view-source:' },
  { why: 'chrome:', url: 'chrome://settings/', allowed: false, reason: 'scheme chrome:' },
  { why: 'chrome-extension:', url: 'chrome-extension://abcdef/page.html', allowed: false, reason: 'scheme chrome-extension:' },
  { why: 'ws: to an allowed host', url: 'ws://example.com/socket', allow: site, allowed: false, reason: 'scheme ws:' },
  { why: 'wss: to an allowed host', url: 'wss://example.com/socket', allow: site, allowed: false, reason: 'scheme wss:' },
  { why: 'ftp: to an allowed host', url: 'ftp://example.com/file', allow: site, allowed: false, reason: 'scheme ftp:' },
  { why: 'filesystem:', url: 'filesystem:https://example.com/temporary/x', allow: site, allowed: false, reason: 'scheme filesystem:' },
  { why: 'vbscript:', url: 'vbscript:msgbox(1)', allowed: false, reason: 'scheme vbscript:' },
  { why: 'mailto:', url: 'mailto:someone@example.com', allow: site, allowed: false, reason: 'scheme mailto:' },
  { why: 'intent:', url: 'intent://example.com#Intent;end', allow: site, allowed: false, reason: 'scheme intent:' },

  // With no lists, every http(s) URL is allowed.
  { why: 'no policy, https', url: 'https://anything.example/', allowed: true, reason: 'no URL policy' },
  { why: 'no policy, http on a port', url: 'http://127.0.0.1:8080/', allowed: true, reason: 'no URL policy' },

  // A host entry: the host and its subdomains, any port, http or https.
  { why: 'the host itself', url: 'https://example.com/', allow: site, allowed: true, reason: 'host example.com is on the allow list (entry "example.com")' },
  { why: 'the host over http on another port', url: 'http://example.com:8080/x', allow: site, allowed: true },
  { why: 'a deep subdomain', url: 'https://a.b.example.com/', allow: site, allowed: true, reason: 'host a.b.example.com is on the allow list' },
  {
    why: 'a host that only ends with the same letters',
    url: 'https://notexample.com/',
    allow: site,
    allowed: false,
    reason: 'host notexample.com is not on the allow list',
  },
  { why: 'the host as a subdomain of another', url: 'https://example.com.evil.net/', allow: site, allowed: false, reason: 'host example.com.evil.net' },
  { why: 'a shorter host', url: 'https://xample.com/', allow: site, allowed: false },
  { why: 'another top-level domain', url: 'https://example.co/', allow: site, allowed: false },
  { why: 'the host in the path', url: 'https://evil.net/example.com', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'the host in the query', url: 'https://evil.net/?u=https://example.com', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'the host in the fragment', url: 'https://evil.net#example.com', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'the host as user info', url: 'http://example.com@evil.net/', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'the host as user and password', url: 'http://example.com:443@evil.net/', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'user info before the real host', url: 'http://user:pass@example.com/', allow: site, allowed: true },
  { why: 'a backslash ending the host', url: 'http://evil.net\\@example.com/', allow: site, allowed: false, reason: 'host evil.net' },
  { why: 'backslashes instead of slashes', url: 'http:\\\\example.com\\x', allow: site, allowed: true },
  { why: 'a tab inside the host', url: 'http://exam\tple.com/', allow: site, allowed: true },
  { why: 'a newline inside the host', url: 'http://exam\nple.com/', allow: site, allowed: true },
  { why: 'a newline splitting an evil host', url: 'http://example.com\n.evil.net/', allow: site, allowed: false, reason: 'host example.com.evil.net' },
  { why: 'upper case', url: 'HTTPS://EXAMPLE.COM/', allow: site, allowed: true },
  { why: 'full-width letters', url: 'https://ＥＸＡＭＰＬＥ.com/', allow: site, allowed: true },
  { why: 'a trailing root dot', url: 'https://example.com./', allow: site, allowed: true, reason: 'host example.com is on the allow list' },
  { why: 'two trailing dots', url: 'https://example.com../', allow: site, allowed: true },
  { why: 'a percent-encoded host', url: 'https://%65xample.com/', allow: site, allowed: true },
  { why: 'an encoded dot making a subdomain', url: 'http://evil.net%2eexample.com/', allow: site, allowed: true, reason: 'host evil.net.example.com' },
  { why: 'an encoded dot making another domain', url: 'http://example.com%2eevil.net/', allow: site, allowed: false, reason: 'host example.com.evil.net' },
  { why: 'an ideographic full stop', url: 'https://example.com\u3002evil.net/', allow: site, allowed: false, reason: 'host example.com.evil.net' },
  { why: 'a soft hyphen, which IDNA removes', url: 'https://exam\u00adple.com/', allow: site, allowed: true },
  { why: 'the default port written out', url: 'https://example.com:443/', allow: site, allowed: true },
  { why: 'a host entry given with a port matches other ports', url: 'http://example.com:9999/', allow: ['example.com:8080'], allowed: true },

  // Deny beats allow.
  {
    why: 'a denied subdomain of an allowed host',
    url: 'https://admin.example.com/x',
    allow: site,
    deny: ['admin.example.com'],
    allowed: false,
    reason: 'host admin.example.com is on the deny list (entry "admin.example.com")',
  },
  { why: 'a subdomain of a denied subdomain', url: 'https://a.admin.example.com/', allow: site, deny: ['admin.example.com'], allowed: false },
  { why: 'an allowed sibling of a denied subdomain', url: 'https://www.example.com/', allow: site, deny: ['admin.example.com'], allowed: true },
  { why: 'a host on both lists', url: 'https://example.com/', allow: site, deny: site, allowed: false, reason: 'on the deny list' },
  {
    why: 'a host not on a deny-only list',
    url: 'https://good.example/',
    deny: ['evil.example'],
    allowed: true,
    reason: 'host good.example is not on the deny list',
  },
  {
    why: 'a denied host in upper case with a root dot',
    url: 'https://EVIL.example./',
    deny: ['evil.example'],
    allowed: false,
    reason: 'host evil.example is on the deny list (entry "evil.example")',
  },
  { why: 'a denied host behind allowed user info', url: 'http://good.example@evil.example/', deny: ['evil.example'], allowed: false },

  // IP addresses: normal form, exact match only.
  { why: 'a denied IPv4 address', url: 'http://127.0.0.1/', deny: loopback, allowed: false, reason: 'host 127.0.0.1 is on the deny list' },
  { why: 'IPv4 as one decimal number', url: 'http://2130706433/', deny: loopback, allowed: false, reason: 'host 127.0.0.1' },
  { why: 'IPv4 in octal', url: 'http://0177.0.0.1/', deny: loopback, allowed: false },
  { why: 'IPv4 in short hex', url: 'http://0x7f.1/', deny: loopback, allowed: false },
  { why: 'IPv4 as one hex number', url: 'http://0x7f000001/', deny: loopback, allowed: false },
  { why: 'IPv4 in short form', url: 'http://127.1/', deny: loopback, allowed: false },
  { why: 'IPv4 with a root dot', url: 'http://127.0.0.1./', deny: loopback, allowed: false },
  { why: 'IPv4 in hex with two root dots', url: 'http://0x7f.1../', deny: loopback, allowed: false },
  { why: 'IPv4-mapped IPv6', url: 'http://[::ffff:127.0.0.1]/', deny: loopback, allowed: false, reason: 'host 127.0.0.1 is on the deny list' },
  { why: 'IPv4-mapped IPv6 in hex, on a port', url: 'http://[::ffff:7f00:1]:8080/', deny: loopback, allowed: false },
  { why: 'another IPv4 address', url: 'http://127.0.0.2/', deny: loopback, allowed: true },
  { why: 'an IPv4 address ending like the entry', url: 'http://1.2.3.4/', allow: ['2.3.4'], allowed: false },
  {
    why: 'a name that resolves to the address (names are never resolved)',
    url: 'http://localhost/',
    allow: loopback,
    allowed: false,
    reason: 'host localhost is not on the allow list',
  },
  { why: 'a denied IPv6 address written in full', url: 'http://[0:0:0:0:0:0:0:1]/', deny: ['[::1]'], allowed: false, reason: 'host [::1] is on the deny list' },
  { why: 'an allowed IPv6 address on a port', url: 'http://[::1]:3000/', allow: ['[::1]'], allowed: true },

  // IDN: hosts compared as punycode.
  { why: 'punycode URL, Unicode entry', url: 'https://xn--bcher-kva.de/', allow: ['bücher.de'], allowed: true },
  { why: 'Unicode URL in upper case, Unicode entry', url: 'https://www.BÜCHER.de/', allow: ['bücher.de'], allowed: true, reason: 'host www.xn--bcher-kva.de' },
  { why: 'Unicode URL, punycode entry', url: 'https://bücher.de/', allow: ['xn--bcher-kva.de'], allowed: true },
  { why: 'a look-alike host', url: 'https://bucher.de/', allow: ['bücher.de'], allowed: false },

  // `*.host`: subdomains only.
  { why: 'the apex of a subdomain-only entry', url: 'https://example.com/', allow: ['*.example.com'], allowed: false },
  { why: 'a subdomain of a subdomain-only entry', url: 'https://a.example.com/', allow: ['*.example.com'], allowed: true, reason: 'entry "*.example.com"' },
  { why: 'the apex next to denied subdomains', url: 'https://example.com/', deny: ['*.example.com'], allowed: true },
  { why: 'a denied subdomain', url: 'https://a.example.com/', deny: ['*.example.com'], allowed: false },

  // A URL entry: that exact URL, whatever its fragment and user info.
  {
    why: 'the exact URL',
    url: 'https://example.com/page?x=1',
    allow: exact,
    allowed: true,
    reason: 'URL is on the allow list (entry "https://example.com/page?x=1")',
  },
  { why: 'the exact URL with a fragment', url: 'https://example.com/page?x=1#top', allow: exact, allowed: true },
  { why: 'the exact URL with user info', url: 'https://user:pw@example.com/page?x=1', allow: exact, allowed: true },
  { why: 'the exact URL in upper case with the default port', url: 'HTTPS://EXAMPLE.com:443/page?x=1', allow: exact, allowed: true },
  { why: 'the exact URL with a root dot', url: 'https://example.com./page?x=1', allow: exact, allowed: true },
  { why: 'the exact URL with a dot segment', url: 'https://example.com/other/../page?x=1', allow: exact, allowed: true },
  { why: 'another scheme', url: 'http://example.com/page?x=1', allow: exact, allowed: false, reason: 'host example.com is not on the allow list' },
  { why: 'another port', url: 'https://example.com:8443/page?x=1', allow: exact, allowed: false },
  { why: 'no query', url: 'https://example.com/page', allow: exact, allowed: false },
  { why: 'another query', url: 'https://example.com/page?x=2', allow: exact, allowed: false },
  { why: 'another path case', url: 'https://example.com/Page?x=1', allow: exact, allowed: false },
  { why: 'a subdomain', url: 'https://www.example.com/page?x=1', allow: exact, allowed: false },
  { why: 'the root of the host', url: 'https://example.com/', allow: exact, allowed: false },
  {
    why: 'a denied URL',
    url: 'https://example.com/logout',
    deny: ['https://example.com/logout'],
    allowed: false,
    reason: 'URL is on the deny list (entry "https://example.com/logout")',
  },
  { why: 'a denied URL written differently', url: 'HTTPS://Example.com:443/./logout#x', deny: ['https://example.com/logout'], allowed: false },
  { why: 'a denied URL with a query', url: 'https://example.com/logout?next=/', deny: ['https://example.com/logout'], allowed: true },
  { why: 'another page of a host with a denied URL', url: 'https://example.com/', deny: ['https://example.com/logout'], allowed: true },
  // Paths are compared as WHATWG writes them: percent-encoding is not decoded, so a URL entry is
  // no boundary for a server that decodes it (deny the host for that).
  { why: 'a denied URL with an encoded letter', url: 'https://example.com/%6cogout', deny: ['https://example.com/logout'], allowed: true },
];

function policyOf(row: Pick<Row, 'allow' | 'deny'>): UrlPolicy {
  return new UrlPolicy({ allow: row.allow, deny: row.deny });
}

describe('UrlPolicy.check', () => {
  it('has a long table of tricky URLs', () => {
    expect(rows.length).toBeGreaterThanOrEqual(60);
  });

  it.each(rows)('$why: $url -> $allowed', (row) => {
    const decision = policyOf(row).check(row.url);
    expect(decision.allowed).toBe(row.allowed);
    if (row.reason !== undefined) expect(decision.reason).toContain(row.reason);
    expect(decision.reason.length).toBeLessThan(200);
  });

  it('denies what is not a string, for callers without types', () => {
    const policy = new UrlPolicy();
    expect(policy.check(undefined as unknown as string)).toEqual({ allowed: false, reason: 'not an absolute URL' });
    expect(policy.check({ toString: () => 'https://example.com/' } as unknown as string).allowed).toBe(false);
  });
});

describe('UrlPolicy.toRules and allowedByRules (the WebSocket guard inside pages)', () => {
  it.each(rows)('agree with check: $why: $url', (row) => {
    const policy = new UrlPolicy({ allow: row.allow, deny: row.deny });
    const rules = JSON.parse(JSON.stringify(policy.toRules())) as ReturnType<UrlPolicy['toRules']>;
    expect(allowedByRules(rules, row.url)).toBe(policy.check(row.url).allowed);
  });

  it('runs from its source alone, as it does in a page', () => {
    const policy = new UrlPolicy({ allow: ['example.com'], deny: ['admin.example.com'] });
    // Another realm, with nothing of this module's scope: only its own URL, as a page has.
    const isolated = runInNewContext(`(${allowedByRules.toString()})`, { URL }) as typeof allowedByRules;
    for (const url of ['https://example.com/', 'https://admin.example.com/', 'https://EXAMPLE.com./x', 'https://other.example/']) {
      expect(isolated(policy.toRules(), url)).toBe(policy.check(url).allowed);
    }
  });
});

describe('UrlPolicy entries', () => {
  it('keeps the entries in normal form, without duplicates, frozen', () => {
    const policy = new UrlPolicy({
      allow: [
        '  Example.COM.  ',
        'example.com',
        'EXAMPLE.com:8080',
        '*.Bücher.DE',
        '0x7f.1',
        '[0:0::1]:3000',
        '[::ffff:10.0.0.1]',
        'HTTPS://user:pw@Example.com:443/a/../b?q=1#frag',
        'http://example.com:8080',
        'http:example.org',
      ],
      deny: ['2130706433', 'localhost:'],
    });
    expect(policy.allow).toEqual([
      'example.com',
      '*.xn--bcher-kva.de',
      '127.0.0.1',
      '[::1]',
      '10.0.0.1',
      'https://example.com/b?q=1',
      'http://example.com:8080/',
      'http://example.org/',
    ]);
    expect(policy.deny).toEqual(['127.0.0.1', 'localhost']);
    expect(Object.isFrozen(policy.allow)).toBe(true);
    expect(Object.isFrozen(policy.deny)).toBe(true);
  });

  it('is restrictive when either list has an entry', () => {
    expect(new UrlPolicy().restrictive).toBe(false);
    expect(new UrlPolicy({ allow: [], deny: undefined }).restrictive).toBe(false);
    expect(new UrlPolicy({ allow: ['example.com'] }).restrictive).toBe(true);
    expect(new UrlPolicy({ deny: ['example.com'] }).restrictive).toBe(true);
  });

  const badEntries: readonly { readonly entry: string; readonly message: string }[] = [
    { entry: '', message: 'is empty; write a host ("example.com") or an http(s) URL' },
    { entry: '   ', message: 'is empty' },
    { entry: 'javascript:alert(1)', message: 'has the scheme javascript:, but only http(s) URLs and hosts can be listed' },
    { entry: 'about:blank', message: 'has the scheme about:' },
    { entry: 'ftp://example.com/', message: 'has the scheme ftp:' },
    { entry: 'ws://example.com/', message: 'has the scheme ws:' },
    { entry: 'https://', message: 'is not a valid URL' },
    { entry: 'https://./', message: 'is not a valid URL' },
    { entry: 'https://*.example.com/', message: 'has a "*", but a URL entry matches one exact URL; to cover the whole site, write its host ("*.example.com")' },
    {
      entry: 'https://example.com/admin/*',
      message: 'has a "*", but a URL entry matches one exact URL; to cover the whole site, write its host ("example.com")',
    },
    { entry: 'example.com/admin', message: 'has a path, query or fragment; write only the host, or put a scheme before it ("https://example.com/admin")' },
    { entry: 'example.com?x=1', message: 'has a path, query or fragment' },
    { entry: 'example.com#x', message: 'has a path, query or fragment' },
    { entry: 'example.com:8080/admin', message: 'has a path, query or fragment' },
    { entry: 'user@example.com', message: 'has user info' },
    { entry: 'exa mple.com', message: 'is not a valid host; write a host such as "example.com"' },
    { entry: '256.0.0.1', message: 'is not a valid host' },
    { entry: '.', message: 'is not a valid host' },
    { entry: '[::1', message: 'is not a valid host' },
    { entry: '::1', message: 'is an IPv6 address without brackets; write it in brackets, such as "[::1]"' },
    { entry: 'example.com:99999', message: 'has a port that is not a number from 0 to 65535' },
    { entry: 'example.com:123456', message: 'has a port that is not a number' },
    { entry: '[::1]x', message: 'has a port that is not a number' },
    { entry: 'ex*ample.com', message: 'has a "*" that is not a leading "*."' },
    { entry: '*.*.example.com', message: 'has a "*" that is not a leading "*."' },
    { entry: '*.127.0.0.1', message: 'puts "*." before an IP address' },
  ];

  it.each(badEntries)('rejects $entry in either list', ({ entry, message }) => {
    for (const list of ['allow', 'deny'] as const) {
      const error = configErrorOf(() => new UrlPolicy({ [list]: ['example.com', entry] }));
      expect(error.field).toBe(`urlPolicy.${list}`);
      expect(error.message).toContain(`Option \`urlPolicy.${list}\`: entry ${JSON.stringify(entry)} ${message}`);
    }
  });

  it('rejects "*" with advice that fits the list', () => {
    expect(configErrorOf(() => new UrlPolicy({ allow: ['*'] })).message).toContain('an empty allow list already allows every http(s) URL');
    const denyError = configErrorOf(() => new UrlPolicy({ deny: ['*'] }));
    expect(denyError.field).toBe('urlPolicy.deny');
    expect(denyError.message).toContain('would deny every URL');
  });

  it('rejects lists that are not arrays of strings, for callers without types', () => {
    const notArray = configErrorOf(() => new UrlPolicy({ allow: 'example.com' } as unknown as UrlPolicyOptions));
    expect(notArray.field).toBe('urlPolicy.allow');
    expect(notArray.message).toContain('must be an array of strings');
    const notString = configErrorOf(() => new UrlPolicy({ deny: ['example.com', 42] } as unknown as UrlPolicyOptions));
    expect(notString.field).toBe('urlPolicy.deny');
    expect(notString.message).toContain('must hold only strings, got number');
  });
});
