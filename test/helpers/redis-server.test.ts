// The test Redis (redis-server.ts): starts on loopback, answers SET and GET, and leaves nothing behind;
// and the set-up step that installs it (ensureRedis in scripts/ensure-deps.mjs), on a pretend machine.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ensureRedis, findRedisServer } from '../../scripts/ensure-deps.mjs';
import { redisCommand, startRedis } from './redis-server';

describe('startRedis', () => {
  it('starts a redis-server on 127.0.0.1 that answers SET and GET, and stop() kills it and removes its directory', async () => {
    const redis = await startRedis();
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      expect(existsSync(redis.directory)).toBe(true);
      expect(await redisCommand(redis.port, ['SET', 'plannav:greeting', 'hello, wörld'])).toBe('OK');
      expect(await redisCommand(redis.port, ['GET', 'plannav:greeting'])).toBe('hello, wörld');
      expect(await redisCommand(redis.port, ['GET', 'plannav:missing'])).toBeNull();
      expect(await redisCommand(redis.port, ['INCR', 'plannav:counter'])).toBe(1);
      await expect(redisCommand(redis.port, ['NO-SUCH-COMMAND'])).rejects.toThrow(/Redis answered NO-SUCH-COMMAND with ERR unknown command/);
    } finally {
      await redis.stop();
    }
    await expect(redisCommand(redis.port, ['PING'])).rejects.toThrow(/ECONNREFUSED/);
    expect(existsSync(redis.directory)).toBe(false);
    await redis.stop(); // idempotent
  });

  it('starts servers side by side, each on its own port and directory', async () => {
    const [first, second] = await Promise.all([startRedis(), startRedis()]);
    try {
      expect(first.port).not.toBe(second.port);
      expect(first.directory).not.toBe(second.directory);
      await redisCommand(first.port, ['SET', 'key', 'first']);
      expect(await redisCommand(second.port, ['GET', 'key'])).toBeNull();
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

describe('ensure-deps ensureRedis', () => {
  const run = (environment: Parameters<typeof ensureRedis>[0]): { code: number; errors: string[]; aptCalls: string[][] } => {
    const errors: string[] = [];
    const aptCalls: string[][] = [];
    const code = ensureRedis({
      platform: 'linux',
      env: { PATH: '/usr/local/bin:/usr/bin' },
      exists: () => false,
      isRoot: true,
      os: ['debian'],
      apt: (args) => {
        aptCalls.push(args);
        return args[0] !== 'install';
      },
      log: () => undefined,
      error: (message) => errors.push(message),
      ...environment,
    });
    return { code, errors, aptCalls };
  };

  it('finds redis-server on PATH or at PLANNAV_REDIS_SERVER', () => {
    expect(findRedisServer({ PATH: '/opt/a:/usr/bin' }, (path) => path === '/usr/bin/redis-server')).toBe('/usr/bin/redis-server');
    expect(findRedisServer({ PATH: '/usr/bin', PLANNAV_REDIS_SERVER: '/opt/redis/bin/redis-server' }, () => true)).toBe('/opt/redis/bin/redis-server');
    expect(findRedisServer({ PATH: '/usr/bin', PLANNAV_REDIS_SERVER: '/nowhere' }, (path) => path === '/usr/bin/redis-server')).toBeUndefined();
    expect(findRedisServer({}, () => true)).toBeUndefined();
  });

  it('does nothing when redis-server is there', () => {
    const result = run({ exists: (path) => path === '/usr/bin/redis-server' });
    expect(result).toEqual({ code: 0, errors: [], aptCalls: [] });
  });

  it('installs the Debian package with apt-get update then install, on Debian and on Ubuntu', () => {
    for (const os of [['debian'], ['ubuntu', 'debian']]) {
      let installed = false;
      const result = run({
        os,
        exists: (path) => installed && path === '/usr/bin/redis-server',
        apt: (args) => {
          installed ||= args[0] === 'install';
          return true;
        },
      });
      expect(result.code, os.join()).toBe(0);
    }
    const calls: string[][] = [];
    run({ apt: (args) => (calls.push(args), true) });
    expect(calls).toEqual([['update'], ['install', '-y', '--no-install-recommends', 'redis-server']]);
  });

  it('fails with what to do when apt-get fails, without root, off Debian, or on macOS', () => {
    const failed = run({});
    expect(failed.code).toBe(1);
    expect(failed.errors[0]).toMatch(/no redis-server found on PATH, and apt-get could not install .*PLANNAV_REDIS_SERVER.*PLANNAV_SKIP_REDIS=1/);
    const cases: [Parameters<typeof ensureRedis>[0], RegExp][] = [
      [{ isRoot: false }, /needs root \(run `sudo apt-get install redis-server`\)/],
      [{ os: ['fedora'] }, /this is not Debian/],
      [{ platform: 'darwin' }, /not installed automatically on darwin.*brew install redis/],
    ];
    for (const [environment, why] of cases) {
      const result = run(environment);
      expect(result.code, JSON.stringify(environment)).toBe(1);
      expect(result.aptCalls).toEqual([]);
      expect(result.errors[0]).toMatch(why);
    }
  });

  it('does not install when PLANNAV_REDIS_SERVER names a binary that is not there', () => {
    const result = run({ env: { PATH: '/usr/bin', PLANNAV_REDIS_SERVER: '/opt/redis/redis-server' } });
    expect(result.code).toBe(1);
    expect(result.aptCalls).toEqual([]);
    expect(result.errors[0]).toMatch(/PLANNAV_REDIS_SERVER is \/opt\/redis\/redis-server, which does not exist/);
  });

  it('skips the check with PLANNAV_SKIP_REDIS=1', () => {
    expect(run({ env: { PLANNAV_SKIP_REDIS: '1' } })).toEqual({ code: 0, errors: [], aptCalls: [] });
  });
});
