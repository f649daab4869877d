// Host names and web URLs in one normal form, so the URL policy and URL patterns compare what the
// browser will really contact. Internal: not exported from the package; no `node:` imports.

/** A host list entry: a host in normal form, matched with its subdomains or, after `*.`, only them. */
export interface HostRule {
  /** The host in the normal form of {@link normalizeHost}. */
  readonly host: string;
  /** `*.example.com`: only the subdomains match, not `example.com` itself. */
  readonly subdomainsOnly: boolean;
  /** The port written after the host (digits, leading zeros removed), or `''` when none was. */
  readonly port: string;
}

const dottedDecimal = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
// WHATWG writes every IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as two hex groups.
const ipv4Mapped = /^\[::ffff:([\da-f]{1,4}):([\da-f]{1,4})\]$/;
// `example.com:8080`, `localhost:`, `[::1]:80`: a host with a port, not a scheme.
const hostWithPort = /^(?:[^:/?#@[\]\\]+|\[[^\]]*\]):(?:\d+(?:[/?#\\]|$)|$)/;
const schemePrefix = /^[a-z][a-z\d+.-]*:/i;

/**
 * The normal form of a host as a person or a URL writes it, or `undefined` when it is not a
 * valid host (or has a port, a path or user info).
 *
 * @remarks
 * The WHATWG URL parser does most of the work: lower case, IDN as punycode, percent-decoding,
 * IPv4 written any way (`2130706433`, `0177.0.0.1`, `0x7f.1`) as dotted decimal, IPv6
 * compressed in brackets. On top of it, trailing root dots are dropped (`example.com.` is
 * `example.com`) and an IPv4-mapped IPv6 address (`[::ffff:127.0.0.1]`) becomes its IPv4
 * address, because the browser connects to that address.
 */
export function normalizeHost(host: string): string | undefined {
  if (/[/\\?#@]/.test(host)) return undefined;
  // A colon after the closing bracket of an IPv6 address, or anywhere without brackets, is a port
  // (or an unbracketed IPv6 address, which URLs do not allow either).
  if (host.slice(host.lastIndexOf(']') + 1).includes(':')) return undefined;
  const parsed = parseHostname(host);
  if (parsed === undefined) return undefined;
  const withoutRootDots = parsed.replace(/\.+$/, '');
  if (withoutRootDots === '') return undefined;
  // Parse again when dots were dropped: `0x7f.1..` is a domain to WHATWG, `0x7f.1` is 127.0.0.1.
  const hostname = withoutRootDots === parsed ? parsed : parseHostname(withoutRootDots);
  if (hostname === undefined) return undefined;
  const mapped = ipv4Mapped.exec(hostname);
  if (!mapped) return hostname;
  const high = Number.parseInt(mapped[1] as string, 16);
  const low = Number.parseInt(mapped[2] as string, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function parseHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** Whether a host in normal form is an IP address (which matches only exactly, never as a parent domain). */
export function isIpHost(host: string): boolean {
  return host.startsWith('[') || dottedDecimal.test(host);
}

/**
 * Parses `input` as an absolute URL, with no base: relative, empty and unparseable input gives
 * `undefined`.
 */
export function parseAbsoluteUrl(input: string): URL | undefined {
  try {
    return new URL(input);
  } catch {
    return undefined;
  }
}

/** Whether a parsed URL is one of the two schemes host lists and patterns apply to. */
export function isWebUrl(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/**
 * Whether a list entry starts with a scheme (`https://…`, `javascript:…`) rather than being a
 * host, possibly with a port (`example.com:8080`, which a URL parser would read as a scheme).
 */
export function hasScheme(entry: string): boolean {
  return schemePrefix.test(entry) && !hostWithPort.test(entry);
}

/**
 * Parses a host entry (`example.com`, `*.example.com`, `127.0.0.1`, `[::1]`, optionally with a
 * port) into a rule, or returns what is wrong with it as a clause that follows the quoted entry
 * in a message (`has user info; …`).
 */
export function parseHostRule(entry: string): HostRule | string {
  const subdomainsOnly = entry.startsWith('*.');
  const text = subdomainsOnly ? entry.slice(2) : entry;
  if (text.includes('@')) return 'has user info; write only the host, such as "example.com"';
  if (/[/?#\\]/.test(text)) {
    return `has a path, query or fragment; write only the host, or put a scheme before it ("https://${entry}")`;
  }
  if (text.includes('*'))
    return 'has a "*" that is not a leading "*."; write "example.com" (a host and its subdomains) or "*.example.com" (only its subdomains)';
  let hostText = text;
  let portText = '';
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    hostText = text.slice(0, end + 1);
    portText = end < 0 ? '' : text.slice(end + 1);
  } else if (text.indexOf(':') !== text.lastIndexOf(':')) {
    return 'is an IPv6 address without brackets; write it in brackets, such as "[::1]"';
  } else if (text.includes(':')) {
    hostText = text.slice(0, text.indexOf(':'));
    portText = text.slice(text.indexOf(':'));
  }
  if (portText !== '' && !/^:\d{0,5}$/.test(portText)) return 'has a port that is not a number from 0 to 65535';
  const port = portText.length > 1 ? String(Number(portText.slice(1))) : '';
  if (Number(port) > 65535) return 'has a port that is not a number from 0 to 65535';
  const host = normalizeHost(hostText);
  if (host === undefined) return 'is not a valid host; write a host such as "example.com", "127.0.0.1" or "[::1]"';
  if (subdomainsOnly && isIpHost(host)) return 'puts "*." before an IP address; an IP address matches only itself, so write it alone';
  return { host, subdomainsOnly, port };
}

/** Whether a host in normal form is the rule's host or, for a domain, one of its subdomains. */
export function hostRuleMatches(rule: HostRule, host: string): boolean {
  if (host === rule.host) return !rule.subdomainsOnly;
  // A domain never ends like an IP address (WHATWG reads a numeric last label as IPv4), so only
  // the rule needs the check.
  return !isIpHost(rule.host) && host.endsWith(`.${rule.host}`);
}

/** A rule written back in normal form, without its port: `example.com` or `*.example.com`. */
export function formatHostRule(rule: HostRule): string {
  return rule.subdomainsOnly ? `*.${rule.host}` : rule.host;
}

/**
 * The port of a parsed web URL or pattern compared as WHATWG writes it: `''` for the scheme's
 * default port.
 */
export function normalizePort(protocol: string, port: string): string {
  if (port === '') return '';
  const digits = String(Number(port));
  return (protocol === 'http:' && digits === '80') || (protocol === 'https:' && digits === '443') ? '' : digits;
}
