import { describe, expect, it } from 'vitest';
import { checkRequest, isAllowedHost, isAllowedOrigin, requestToken, tokensEqual, type GuardedRequest } from './request-guard';

const port = 41234;
const token = 'k3Jx-0_secret-token-value-of-this-launch';
const settings = { port, token };

function request(overrides: Partial<GuardedRequest> & { headers?: GuardedRequest['headers'] } = {}): GuardedRequest {
  return { method: 'GET', url: `/?token=${token}`, ...overrides, headers: { host: `127.0.0.1:${port}`, ...overrides.headers } };
}

describe('isAllowedHost', () => {
  it('accepts only 127.0.0.1 and localhost on the server’s own port', () => {
    expect(isAllowedHost(`127.0.0.1:${port}`, port)).toBe(true);
    expect(isAllowedHost(`localhost:${port}`, port)).toBe(true);
    expect(isAllowedHost(`LOCALHOST:${port}`, port)).toBe(true);
    for (const host of [
      undefined,
      '',
      '127.0.0.1',
      'localhost',
      `127.0.0.1:${port + 1}`,
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `[::1]:${port}`,
      `127.0.0.2:${port}`,
    ]) {
      expect(isAllowedHost(host, port), String(host)).toBe(false);
    }
  });
});

describe('isAllowedOrigin', () => {
  it('accepts no Origin or this server’s own, and refuses every other, null included', () => {
    expect(isAllowedOrigin(undefined, port)).toBe(true);
    expect(isAllowedOrigin(`http://127.0.0.1:${port}`, port)).toBe(true);
    expect(isAllowedOrigin(`http://localhost:${port}`, port)).toBe(true);
    for (const origin of [
      'null',
      '',
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `http://evil.example:${port}`,
      'http://127.0.0.1',
      `http://127.0.0.1:${port}/`,
    ]) {
      expect(isAllowedOrigin(origin, port), origin).toBe(false);
    }
  });
});

describe('tokensEqual', () => {
  it('matches the exact token only', () => {
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(`${token}x`, token)).toBe(false);
    expect(tokensEqual(token.slice(1), token)).toBe(false);
    expect(tokensEqual(token.replace(/^./, 'K'), token)).toBe(false);
    expect(tokensEqual(undefined, token)).toBe(false);
    expect(tokensEqual('', '')).toBe(false);
  });
});

describe('requestToken', () => {
  it('reads a bearer header, the x-plannav-token header, and ?token= on GET only', () => {
    expect(requestToken(request({ url: '/events', headers: { authorization: `Bearer ${token}` } }))).toBe(token);
    expect(requestToken(request({ url: '/events', headers: { 'x-plannav-token': token } }))).toBe(token);
    expect(requestToken(request({ url: `/events?token=${token}` }))).toBe(token);
    expect(requestToken(request({ method: 'POST', url: `/api/run?token=${token}` }))).toBeUndefined();
    expect(requestToken(request({ url: '/events', headers: { authorization: `Basic ${token}` } }))).toBeUndefined();
  });
});

describe('checkRequest', () => {
  it('lets the page, the events and a command with the token through', () => {
    expect(checkRequest(request(), settings)).toEqual({ allowed: true });
    expect(checkRequest(request({ url: `/events?token=${token}`, headers: { host: `localhost:${port}` } }), settings)).toEqual({ allowed: true });
    const command = request({ method: 'POST', url: '/api/pause', headers: { origin: `http://127.0.0.1:${port}`, 'x-plannav-token': token } });
    expect(checkRequest(command, settings)).toEqual({ allowed: true });
  });

  it('refuses a foreign Host with 403 before it looks at the token', () => {
    const decision = checkRequest(request({ headers: { host: `evil.example:${port}` } }), settings);
    expect(decision).toMatchObject({ allowed: false, status: 403 });
    expect(checkRequest(request({ url: '/', headers: { host: `evil.example:${port}` } }), settings)).toMatchObject({ status: 403 });
  });

  it('refuses a foreign Origin with 403, even with the token', () => {
    const command = request({ method: 'POST', url: '/api/run', headers: { origin: 'http://evil.example', authorization: `Bearer ${token}` } });
    expect(checkRequest(command, settings)).toMatchObject({ allowed: false, status: 403 });
  });

  it('refuses a missing or wrong token with 401, and a POST that carries it only in the query', () => {
    expect(checkRequest(request({ url: '/' }), settings)).toMatchObject({ allowed: false, status: 401 });
    expect(checkRequest(request({ url: '/events?token=nope' }), settings)).toMatchObject({ status: 401 });
    expect(checkRequest(request({ method: 'POST', url: `/api/run?token=${token}` }), settings)).toMatchObject({ status: 401 });
  });

  it('refuses a header sent twice rather than picking one', () => {
    expect(checkRequest(request({ headers: { host: `127.0.0.1:${port}`, 'x-plannav-token': [token, token] }, url: '/' }), settings)).toMatchObject({
      status: 401,
    });
  });

  it('never puts the token in a refusal', () => {
    for (const decision of [checkRequest(request({ url: '/' }), settings), checkRequest(request({ headers: { host: 'evil.example' } }), settings)]) {
      expect(decision.allowed).toBe(false);
      if (!decision.allowed) expect(decision.reason).not.toContain(token);
    }
  });
});
