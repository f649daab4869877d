// The shared HTTP plumbing of the fetch adapters: Retry-After and request-id headers, timeouts
// joined with the caller's signal, network failures, and error bodies that are not JSON.

import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatModelError, RequestCancelledError, type PlannavError } from '../../src/index';
import { errorFromResponse, postJson, requestIdFrom, retryAfterFrom } from '../../src/providers/http';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import { rejectionOf } from '../helpers/rejection';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('retryAfterFrom', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it.each([
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': '0.25' }, 250],
    [{ 'retry-after': 'Mon, 30 Nov 2026 12:00:20 GMT' }, 20_000],
    [{ 'retry-after': 'Mon, 30 Nov 2026 11:00:00 GMT' }, 0],
    [{ 'retry-after-ms': '1200', 'retry-after': '5' }, 1200],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('reads %j as %s ms', (headers, expected) => {
    expect(retryAfterFrom(new Headers(headers), now)).toBe(expected);
  });
});

describe('requestIdFrom', () => {
  it.each([
    [{ 'x-request-id': 'a' }, 'a'],
    [{ 'request-id': 'b' }, 'b'],
    [{ 'apim-request-id': 'c' }, 'c'],
    [{ 'x-goog-request-id': 'd' }, 'd'],
    [{}, undefined],
  ])('reads %j', (headers, expected) => {
    expect(requestIdFrom(new Headers(headers))).toBe(expected);
  });
});

describe('errorFromResponse', () => {
  it('keeps a body that is not JSON as the message and the response body', () => {
    const error = errorFromResponse('Proxy', 502, '<html>Bad Gateway</html>', new Headers({ 'x-request-id': 'r1' }));
    expect(error.code).toBe('CHAT_MODEL_SERVER');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('Proxy: <html>Bad Gateway</html>');
    expect(error.requestId).toBe('r1');
    expect(error.responseBody).toBe('<html>Bad Gateway</html>');
  });
});

describe('postJson', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await LoopbackServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts JSON and returns the parsed reply and the request id', async () => {
    server.enqueue({ headers: { 'x-request-id': 'req-9' }, json: { ok: true } });
    const response = await postJson({ provider: 'Test', url: `${server.url}/x`, headers: { authorization: 'Bearer k' }, body: { a: 1 } });
    expect(response.body).toEqual({ ok: true });
    expect(response.requestId).toBe('req-9');
    expect(server.last.body).toEqual({ a: 1 });
    expect(server.last.headers['content-type']).toBe('application/json');
  });

  it('reports a refused connection as a retryable network error naming the URL', async () => {
    const port = await closedPort();
    const error = await rejectionOf<PlannavError>(postJson({ provider: 'Test', url: `http://127.0.0.1:${port}/v1`, headers: {}, body: {} }));
    expect(error.code).toBe('CHAT_MODEL_NETWORK');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('times out with a retryable error that names the timeout', async () => {
    server.enqueue({ hang: true });
    const error = await rejectionOf<PlannavError>(postJson({ provider: 'Test', url: server.url, headers: {}, body: {}, timeout: 40 }));
    expect(error.code).toBe('CHAT_MODEL_TIMEOUT');
    expect(error.message).toContain('40 ms');
  });

  it('rejects at once with the abort reason when it is a RequestCancelledError', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new RequestCancelledError('Stopped by the user.');
    const pending = postJson({ provider: 'Test', url: server.url, headers: {}, body: {}, signal: controller.signal, timeout: 10_000 });
    setTimeout(() => controller.abort(reason), 20);
    expect(await rejectionOf<PlannavError>(pending)).toBe(reason);
  });

  it('does not call when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf<PlannavError>(postJson({ provider: 'Test', url: server.url, headers: {}, body: {}, signal: controller.signal }));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('is cancelled even through a fetch that ignores its signal', async () => {
    const controller = new AbortController();
    const pending = postJson({
      provider: 'Test',
      url: 'https://never.test',
      headers: {},
      body: {},
      signal: controller.signal,
      fetch: () => new Promise<never>(() => undefined),
    });
    setTimeout(() => controller.abort(), 10);
    expect(RequestCancelledError.isInstance(await rejectionOf<PlannavError>(pending))).toBe(true);
  });

  it('maps a non-2xx reply with the reader\u2019s status and code', async () => {
    server.enqueue({ status: 400, json: { error: { message: 'API key not valid' } } });
    const error = await rejectionOf<PlannavError>(
      postJson({ provider: 'Test', url: server.url, headers: {}, body: {}, readError: () => ({ message: 'API key not valid', status: 401 }) }),
    );
    expect(error.code).toBe('CHAT_MODEL_AUTH');
    expect((error as ChatModelError).statusCode).toBe(401);
  });
});
