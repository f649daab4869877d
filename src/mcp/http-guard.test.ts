import { describe, expect, it } from 'vitest';
import { checkRequest, isLoopbackHost } from './http-guard';

const local = { host: '127.0.0.1', port: 8931 };

describe('checkRequest', () => {
  it('lets this machine in by its loopback names and port', () => {
    for (const host of ['127.0.0.1:8931', 'localhost:8931', 'LOCALHOST:8931', '[::1]:8931']) {
      expect(checkRequest({ host }, local)).toEqual({ allowed: true });
    }
  });

  it('refuses a foreign or rebound Host with 403', () => {
    for (const host of ['evil.example:8931', 'attacker.test', '127.0.0.1:9999', '127.0.0.1', undefined]) {
      const verdict = checkRequest({ host }, local);
      expect(verdict).toMatchObject({ allowed: false, status: 403 });
    }
  });

  it('refuses an Origin of another site with 403, and accepts its own', () => {
    expect(checkRequest({ host: '127.0.0.1:8931', origin: 'https://evil.example' }, local)).toMatchObject({ allowed: false, status: 403 });
    expect(checkRequest({ host: '127.0.0.1:8931', origin: 'http://127.0.0.1:1234' }, local)).toMatchObject({ allowed: false, status: 403 });
    expect(checkRequest({ host: '127.0.0.1:8931', origin: 'null' }, local)).toMatchObject({ allowed: false, status: 403 });
    expect(checkRequest({ host: 'localhost:8931', origin: 'http://localhost:8931' }, local)).toEqual({ allowed: true });
  });

  it('requires the bearer token when one is set (401 without it or with another)', () => {
    const options = { ...local, token: 's3cret-token' };
    expect(checkRequest({ host: '127.0.0.1:8931' }, options)).toMatchObject({ allowed: false, status: 401 });
    expect(checkRequest({ host: '127.0.0.1:8931', authorization: 'Bearer wrong-token!' }, options)).toMatchObject({ allowed: false, status: 401 });
    expect(checkRequest({ host: '127.0.0.1:8931', authorization: 's3cret-token' }, options)).toMatchObject({ allowed: false, status: 401 });
    expect(checkRequest({ host: '127.0.0.1:8931', authorization: 'Bearer s3cret-token' }, options)).toEqual({ allowed: true });
  });

  it('checks Host before the token: a rebound name with the right token is still refused', () => {
    const options = { ...local, token: 't' };
    expect(checkRequest({ host: 'evil.example:8931', authorization: 'Bearer t' }, options)).toMatchObject({ allowed: false, status: 403 });
  });

  it('on a LAN address answers only to that address', () => {
    const lan = { host: '192.168.1.20', port: 80, token: 't' };
    expect(checkRequest({ host: '192.168.1.20:80', authorization: 'Bearer t' }, lan)).toEqual({ allowed: true });
    expect(checkRequest({ host: 'localhost:80', authorization: 'Bearer t' }, lan)).toMatchObject({ allowed: false, status: 403 });
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback from the rest', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.2', 'example.com', '10.0.0.1'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });
});
