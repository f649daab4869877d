import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors';
import { narrowSecrets, narrowUrlPolicy, secretNames } from './narrow';

describe('narrowUrlPolicy', () => {
  const server = { allow: ['shop.example', '*.cdn.example'], deny: ['admin.shop.example'], scope: 'all-requests' as const };

  it('keeps the server policy when the caller names no hosts', () => {
    expect(narrowUrlPolicy(server, undefined)).toBe(server);
  });

  it('takes hosts inside the server list, keeping its deny list and scope', () => {
    expect(narrowUrlPolicy(server, ['www.shop.example', 'img.cdn.example', '*.shop.example'])).toEqual({
      allow: ['www.shop.example', 'img.cdn.example', '*.shop.example'],
      deny: ['admin.shop.example'],
      scope: 'all-requests',
    });
    expect(narrowUrlPolicy(server, ['https://shop.example/cart'])?.allow).toEqual(['https://shop.example/cart']);
  });

  it('refuses a host outside the server list: a caller never widens it', () => {
    for (const wider of ['evil.example', 'example', 'shop.example.evil.net', 'cdn.example', 'https://evil.example/']) {
      expect(() => narrowUrlPolicy(server, [wider]), wider).toThrow(ConfigError);
    }
    expect(() => narrowUrlPolicy(server, ['shop.example', 'evil.example'])).toThrow(/evil\.example/);
  });

  it('refuses a path-limited server entry as cover for a whole host', () => {
    expect(() => narrowUrlPolicy({ allow: ['https://shop.example/a'] }, ['shop.example'])).toThrow(ConfigError);
  });

  it('narrows anything when the server allows every host', () => {
    expect(narrowUrlPolicy(undefined, ['a.example'])).toEqual({ allow: ['a.example'] });
    expect(narrowUrlPolicy({ deny: ['b.example'] }, ['a.example'])).toEqual({ allow: ['a.example'], deny: ['b.example'] });
  });

  it('refuses an empty list and entries that are not hosts', () => {
    expect(() => narrowUrlPolicy(server, [])).toThrow(/empty/);
    expect(() => narrowUrlPolicy(undefined, ['ftp://x.example'])).toThrow(ConfigError);
    expect(() => narrowUrlPolicy(undefined, ['*'])).toThrow(ConfigError);
  });
});

describe('narrowSecrets', () => {
  const secrets = { apiKey: 'k-123456', 'https://bank.example': { user: 'ada', password: 'pw-123456' } };

  it('lists every name, URL-bound ones included', () => {
    expect(secretNames(secrets).sort()).toEqual(['apiKey', 'password', 'user']);
  });

  it('keeps only the names asked for, in their URL groups', () => {
    expect(narrowSecrets(secrets, ['user'])).toEqual({ 'https://bank.example': { user: 'ada' } });
    expect(narrowSecrets(secrets, ['apiKey'])).toEqual({ apiKey: 'k-123456' });
    expect(narrowSecrets(secrets, [])).toEqual({});
    expect(narrowSecrets(secrets, undefined)).toBe(secrets);
  });

  it('refuses a secret the server does not hold', () => {
    expect(() => narrowSecrets(secrets, ['user', 'token'])).toThrow(/token/);
    expect(() => narrowSecrets(undefined, ['x'])).toThrow(/holds none/);
  });
});
