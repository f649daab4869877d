// URL patterns that scope an action to some pages: hosts, host globs and URL globs, matched on the
// parsed URL with the URL policy's host normal form. Pure: no browser, no I/O, no `node:` imports.

import { ConfigError } from '../errors';
import { hasScheme, hostRuleMatches, isWebUrl, normalizeHost, normalizePort, parseAbsoluteUrl, parseHostRule, type HostRule } from './host';

type CompiledPattern =
  | { readonly kind: 'any' }
  | { readonly kind: 'host'; readonly host: HostRule }
  | {
      readonly kind: 'url';
      readonly protocol: string;
      /** `undefined`: any host (`https://*` …). */
      readonly host: HostRule | undefined;
      readonly port: string;
      readonly pathAndQuery: string;
    };

// A URL glob split into scheme, authority (user info, host, port) and the rest.
const urlGlob = /^([a-z][a-z\d+.-]*):\/\/([^/?#\\]*)(.*)$/is;
// A host that cannot exist, to let WHATWG normalise a glob's path and query alone.
const placeholderOrigin = 'http://placeholder.invalid';

/**
 * Whether `url` matches `pattern`. Only http(s) URLs match anything, and a pattern that is not
 * one of the forms below matches nothing.
 *
 * @remarks
 * Pattern forms:
 *
 * - a host, such as `example.com`: the host and its subdomains, over http or https, on any port
 *   (a port written after the host is ignored). IP addresses match only themselves.
 * - a host glob, `*.example.com`: only the subdomains, not `example.com` itself. `*` alone
 *   matches every http(s) URL.
 * - a URL glob with its scheme, such as `https://example.com/admin/*`: the scheme, the host
 *   (exactly, not its subdomains; write `*.example.com` for subdomains only, `*` for any host)
 *   and the port (none written means the default one) must be the URL's, and the path and query
 *   must match, each `*` standing for any run of characters, `/` and `?` included. The fragment
 *   is never compared. Without a path, the pattern stands for the root page alone:
 *   `https://example.com` does not match `https://example.com/a`.
 *
 * Hosts are compared in the normal form of {@link UrlPolicy}: lower case, IDN as punycode, IPv4 as
 * dotted decimal, a trailing root dot ignored.
 *
 * @example
 * ```ts
 * matchesUrlPattern('https://shop.example.com/cart', '*.example.com'); // true
 * matchesUrlPattern('https://example.com/admin/users?page=2', 'https://example.com/admin/*'); // true
 * matchesUrlPattern('https://example.com/administrator', 'https://example.com/admin/*'); // false
 * ```
 * @public
 */
export function matchesUrlPattern(url: string, pattern: string): boolean {
  const compiled = typeof pattern === 'string' ? compileUrlPattern(pattern.trim()) : undefined;
  if (compiled === undefined || typeof compiled === 'string') return false;
  const parsed = typeof url === 'string' ? parseAbsoluteUrl(url) : undefined;
  if (parsed === undefined || !isWebUrl(parsed)) return false;
  if (compiled.kind === 'any') return true;
  const host = normalizeHost(parsed.hostname);
  if (host === undefined) return false;
  if (compiled.kind === 'host') return hostRuleMatches(compiled.host, host);
  return (
    parsed.protocol === compiled.protocol &&
    urlGlobHostMatches(compiled.host, host) &&
    parsed.port === compiled.port &&
    globMatches(compiled.pathAndQuery, parsed.pathname + parsed.search)
  );
}

// In a URL glob the host is exact, as in the URL it stands for; only `*.` opens it to subdomains.
function urlGlobHostMatches(rule: HostRule | undefined, host: string): boolean {
  if (rule === undefined) return true;
  return rule.subdomainsOnly ? hostRuleMatches(rule, host) : rule.host === host;
}

/**
 * Checks that `pattern` is one of the forms {@link matchesUrlPattern} understands.
 * @throws `ConfigError` (field `urlPatterns`) saying what is wrong with it and how to write it.
 */
export function validateUrlPattern(pattern: string): void {
  if (typeof pattern !== 'string') {
    throw new ConfigError(`A URL pattern must be a string, such as "example.com", got ${typeof pattern}.`, { field: 'urlPatterns' });
  }
  const compiled = compileUrlPattern(pattern.trim());
  if (typeof compiled === 'string') {
    throw new ConfigError(`URL pattern ${JSON.stringify(pattern)} ${compiled}.`, { field: 'urlPatterns' });
  }
}

const formsHint = 'write a host ("example.com"), a host glob ("*.example.com") or a URL glob ("https://example.com/admin/*")';

/** The pattern ready to match, or what is wrong with it as a clause following the quoted pattern. */
function compileUrlPattern(pattern: string): CompiledPattern | string {
  if (pattern === '') return `is empty; ${formsHint}`;
  if (pattern === '*') return { kind: 'any' };
  if (!hasScheme(pattern)) {
    const host = parseHostRule(pattern);
    return typeof host === 'string' ? host : { kind: 'host', host };
  }
  const parts = urlGlob.exec(pattern);
  const protocol = `${(parts?.[1] ?? pattern.slice(0, pattern.indexOf(':'))).toLowerCase()}:`;
  if (protocol !== 'http:' && protocol !== 'https:') return `has the scheme ${protocol}, but only http(s) pages can match; ${formsHint}`;
  if (parts === null) return `is not a URL glob; write it as "${protocol}//host/path", such as "https://example.com/admin/*"`;
  const authority = parts[2] as string;
  const rest = parts[3] as string;
  if (rest.includes('#')) return 'has a fragment, which URLs are never compared on; leave it out';
  let host: HostRule | undefined;
  let port = '';
  if (authority !== '*') {
    const parsedHost = parseHostRule(authority);
    if (typeof parsedHost === 'string') return `has a host that ${parsedHost}`;
    host = parsedHost;
    port = normalizePort(protocol, parsedHost.port);
  }
  // WHATWG gives the path and query the form page URLs have (dot segments resolved, `\` as `/`,
  // spaces percent-encoded); `*` is left as it is. `rest` starts at a `/`, `?`, `\` or is empty,
  // so it cannot change the placeholder's host.
  const location = new URL(placeholderOrigin + rest);
  return { kind: 'url', protocol, host, port, pathAndQuery: location.pathname + location.search };
}

/**
 * Whether `text` matches `glob`, where each `*` matches any run of characters. Linear in practice
 * and at worst `glob.length * text.length` steps, whatever the input (a regular expression with
 * several `.*` can take exponentially long on a crafted URL).
 */
function globMatches(glob: string, text: string): boolean {
  let globIndex = 0;
  let textIndex = 0;
  let starIndex = -1;
  let starTextIndex = 0;
  while (textIndex < text.length) {
    if (glob[globIndex] === '*') {
      starIndex = globIndex;
      starTextIndex = textIndex;
      globIndex += 1;
    } else if (glob[globIndex] === text[textIndex]) {
      globIndex += 1;
      textIndex += 1;
    } else if (starIndex >= 0) {
      // Let the last `*` swallow one more character and try again after it.
      globIndex = starIndex + 1;
      starTextIndex += 1;
      textIndex = starTextIndex;
    } else {
      return false;
    }
  }
  while (glob[globIndex] === '*') globIndex += 1;
  return globIndex === glob.length;
}
