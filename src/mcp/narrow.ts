// What a run_task caller may ask for: fewer hosts and fewer secrets than the server was started
// with, never more. A wider request is refused with a message that says what the server allows.

import { ConfigError, UrlPolicy, type ExecutorUrlPolicy, type SecretsOption, type SecretValue } from '../index';
import { hasScheme, hostRuleMatches, isIpHost, parseHostRule, type HostRule } from '../security/host';

/** Whether every host the rule `inner` matches is matched by `outer` too. */
function hostRuleCovers(outer: HostRule, inner: HostRule): boolean {
  if (inner.subdomainsOnly) {
    // Every subdomain of inner.host: outer must match inner.host's subdomains as a whole.
    if (isIpHost(outer.host)) return false;
    return inner.host === outer.host || inner.host.endsWith(`.${outer.host}`);
  }
  // inner.host and all its subdomains.
  return hostRuleMatches(outer, inner.host);
}

/** Whether the server's allow list lets the browser load everything `entry` would allow. */
function covered(entry: string, serverAllow: readonly string[], serverPolicy: UrlPolicy): boolean {
  if (serverAllow.length === 0) return true;
  if (hasScheme(entry)) return serverPolicy.check(entry).allowed;
  const inner = parseHostRule(entry);
  if (typeof inner === 'string') return false;
  return serverAllow.some((text) => {
    if (hasScheme(text)) return false; // one exact URL never covers a host
    const outer = parseHostRule(text);
    return typeof outer !== 'string' && hostRuleCovers(outer, inner);
  });
}

/**
 * The task's URL policy: the caller's `allowed_hosts` in place of the server's allow list when
 * each of them lies inside it (the server's deny list, scope and `onBlocked` stay).
 * @throws `ConfigError` (field `allowed_hosts`) naming an entry the server does not allow, or one
 * that is not a host or URL.
 */
export function narrowUrlPolicy(server: ExecutorUrlPolicy | undefined, allowedHosts: readonly string[] | undefined): ExecutorUrlPolicy | undefined {
  if (allowedHosts === undefined) return server;
  if (allowedHosts.length === 0) {
    throw new ConfigError('`allowed_hosts` is empty: leave it out to use the hosts the server allows, or name at least one host.', { field: 'allowed_hosts' });
  }
  const serverAllow = server?.allow ?? [];
  const serverPolicy = new UrlPolicy({ allow: serverAllow, deny: server?.deny ?? [] });
  for (const entry of allowedHosts) {
    try {
      new UrlPolicy({ allow: [entry] });
    } catch (error) {
      throw new ConfigError(`\`allowed_hosts\` entry ${JSON.stringify(entry)} is not a host or an http(s) URL: write a host such as "example.com".`, {
        field: 'allowed_hosts',
        cause: error,
      });
    }
    if (!covered(entry, serverAllow, serverPolicy)) {
      throw new ConfigError(
        `\`allowed_hosts\` may only narrow the hosts this server allows (${serverAllow.join(', ')}); ${JSON.stringify(entry)} is outside them.`,
        { field: 'allowed_hosts' },
      );
    }
  }
  return { ...server, allow: [...allowedHosts] };
}

function isGroup(value: SecretValue | Readonly<Record<string, SecretValue>>): value is Readonly<Record<string, SecretValue>> {
  return typeof value === 'object' && !('totp' in value);
}

/** The names of the secrets an option holds, URL-bound ones included. */
export function secretNames(secrets: SecretsOption | undefined): string[] {
  const names = new Set<string>();
  for (const [key, value] of Object.entries(secrets ?? {})) {
    if (isGroup(value)) for (const name of Object.keys(value)) names.add(name);
    else names.add(key);
  }
  return [...names];
}

/**
 * The server's secrets cut down to the names the caller listed (all of them when it listed none).
 * @throws `ConfigError` (field `secrets`) naming a secret the server does not hold.
 */
export function narrowSecrets(server: SecretsOption | undefined, names: readonly string[] | undefined): SecretsOption | undefined {
  if (names === undefined) return server;
  const known = secretNames(server);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    const offer = known.length > 0 ? `it holds ${known.join(', ')}` : 'it holds none';
    throw new ConfigError(`\`secrets\` may only name secrets this server holds (${offer}); not ${unknown.join(', ')}.`, { field: 'secrets' });
  }
  const wanted = new Set(names);
  const kept: Record<string, SecretValue | Readonly<Record<string, SecretValue>>> = {};
  for (const [key, value] of Object.entries(server ?? {})) {
    if (isGroup(value)) {
      const group = Object.fromEntries(Object.entries(value).filter(([name]) => wanted.has(name)));
      if (Object.keys(group).length > 0) kept[key] = group;
    } else if (wanted.has(key)) {
      kept[key] = value;
    }
  }
  return kept;
}
