import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UrlPolicy, type UrlPolicyOptions } from '../security/url-policy';
import { EgressProxy, hasUrlRules, startLaunchProxy, tunnelAllowed } from './egress-proxy';

describe('tunnelAllowed', () => {
  const rules = (options: UrlPolicyOptions): ReturnType<UrlPolicy['toRules']> => new UrlPolicy(options).toRules();

  it.each([
    [{ deny: ['evil.example'] }, 'evil.example:443', false],
    [{ deny: ['evil.example'] }, 'cdn.evil.example:443', false],
    [{ deny: ['evil.example'] }, 'good.example:443', true],
    [{ allow: ['shop.example'] }, 'shop.example:443', true],
    [{ allow: ['shop.example'] }, 'api.shop.example:8443', true],
    [{ allow: ['shop.example'] }, 'other.example:443', false],
    [{ allow: ['*.shop.example'] }, 'shop.example:443', false],
    [{ allow: ['127.0.0.1'] }, '127.0.0.2:80', false],
    [{ allow: ['[::1]'] }, '[::1]:8080', true],
    // An exact URL allows its host's tunnels: their paths are not seen.
    [{ allow: ['https://docs.example/guide'] }, 'docs.example:443', true],
    [{ allow: ['https://docs.example/guide'] }, 'www.docs.example:443', false],
    // An exact URL denied leaves its host's tunnels alone.
    [{ deny: ['https://shop.example/logout'] }, 'shop.example:443', true],
    [{ allow: ['shop.example'], deny: ['pay.shop.example'] }, 'pay.shop.example:443', false],
  ])('%j, %s: %s', (options, authority, allowed) => {
    expect(tunnelAllowed(rules(options), authority)).toBe(allowed);
  });

  it('says when a policy has entries a tunnel cannot apply', () => {
    expect(hasUrlRules(rules({ allow: ['shop.example'], deny: ['evil.example'] }))).toBe(false);
    expect(hasUrlRules(rules({ deny: ['https://shop.example/logout'] }))).toBe(true);
  });
});

describe('startLaunchProxy', () => {
  it('leaves a launch that routes its traffic itself alone', async () => {
    expect(await startLaunchProxy(['--proxy-server=http://corp:3128'])).toBeUndefined();
    expect(await startLaunchProxy(['--proxy-pac-url=http://corp/proxy.pac'])).toBeUndefined();
    expect(await startLaunchProxy(['--no-proxy-server'])).toBeUndefined();
    expect(await startLaunchProxy([], true)).toBeUndefined();
    const proxy = await startLaunchProxy(['--proxy-bypass-list=foo', '--window-size=800,600']);
    expect(proxy?.launchArgs).toEqual([expect.stringMatching(/^--proxy-server=http:\/\/127\.0\.0\.1:\d+$/), '--proxy-bypass-list=<-loopback>']);
    await proxy?.close();
  });
});

describe('EgressProxy', () => {
  let proxy: EgressProxy;
  let origin: Server;
  let echo: NetServer;
  let originPort: number;
  let echoPort: number;
  const seen: { method?: string | undefined; url?: string | undefined; headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    origin = createServer((incoming, response) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => {
        seen.push({ method: incoming.method, url: incoming.url, headers: incoming.headers, body });
        response.writeHead(201, 'Made', { 'x-origin': 'yes', connection: 'keep-alive, x-hop', 'x-hop': 'drop me' }).end(`got ${body.length}`);
      });
    });
    echo = createNetServer((socket) => socket.pipe(socket));
    origin.listen(0, '127.0.0.1');
    echo.listen(0, '127.0.0.1');
    await Promise.all([once(origin, 'listening'), once(echo, 'listening')]);
    originPort = (origin.address() as AddressInfo).port;
    echoPort = (echo.address() as AddressInfo).port;
  });

  afterAll(async () => {
    origin.closeAllConnections();
    await Promise.all([new Promise((done) => origin.close(done)), new Promise((done) => echo.close(done))]);
  });

  afterEach(async () => {
    seen.length = 0;
    await proxy?.close();
  });

  /** Sends a request in absolute form through the proxy, as a browser does for http: URLs. */
  function viaProxy(
    method: string,
    path: string,
    body?: string,
  ): Promise<{ status: number; message: string; headers: IncomingMessage['headers']; body: string }> {
    const { port } = new URL(proxy.address);
    return new Promise((resolve, reject) => {
      const outgoing = request(
        { host: '127.0.0.1', port, method, path: `http://127.0.0.1:${originPort}${path}`, headers: { 'proxy-connection': 'keep-alive', 'x-client': 'one' } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, message: response.statusMessage ?? '', headers: response.headers, body: text }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** Opens a CONNECT tunnel through the proxy; resolves with the proxy's status line and the socket. */
  async function tunnel(authority: string): Promise<{ statusLine: string; socket: Socket }> {
    const { port } = new URL(proxy.address);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
    const [data] = (await once(socket, 'data')) as [Buffer];
    return { statusLine: data.toString('latin1').split('\r\n')[0] ?? '', socket };
  }

  it('forwards a plain HTTP request and its answer, without the headers of one hop', async () => {
    proxy = await EgressProxy.start();
    const answer = await viaProxy('POST', '/form?a=1', 'x'.repeat(5000));
    expect(answer).toMatchObject({ status: 201, message: 'Made', body: 'got 5000' });
    expect(answer.headers['x-origin']).toBe('yes');
    expect(answer.headers['x-hop']).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/form?a=1', body: 'x'.repeat(5000) });
    expect(seen[0]?.headers['x-client']).toBe('one');
    expect(seen[0]?.headers['proxy-connection']).toBeUndefined();
  });

  it('answers 502 when the origin cannot be reached', async () => {
    proxy = await EgressProxy.start();
    const unused = createNetServer();
    unused.listen(0, '127.0.0.1');
    await once(unused, 'listening');
    const { port } = unused.address() as AddressInfo;
    await new Promise((done) => unused.close(done));
    const { statusLine, socket } = await tunnel(`127.0.0.1:${port}`);
    expect(statusLine).toBe('HTTP/1.1 502 Bad Gateway');
    socket.destroy();
  });

  it('tunnels bytes both ways while no guard is set', async () => {
    proxy = await EgressProxy.start();
    const { statusLine, socket } = await tunnel(`127.0.0.1:${echoPort}`);
    expect(statusLine).toBe('HTTP/1.1 200 Connection Established');
    socket.write('ping');
    const [data] = (await once(socket, 'data')) as [Buffer];
    expect(data.toString()).toBe('ping');
    socket.destroy();
  });

  it('refuses a tunnel to a denied host and reports it, until the guard is removed', async () => {
    proxy = await EgressProxy.start();
    const refused: string[] = [];
    proxy.setGuard({ rules: new UrlPolicy({ allow: ['localhost'] }).toRules(), refused: (url) => refused.push(url) });
    const denied = await tunnel(`127.0.0.1:${echoPort}`);
    expect(denied.statusLine).toBe('HTTP/1.1 403 Forbidden');
    denied.socket.destroy();
    expect(refused).toEqual([`https://127.0.0.1:${echoPort}/`]);
    proxy.setGuard({ rules: new UrlPolicy({ allow: ['127.0.0.1'] }).toRules(), refused: () => undefined });
    const allowed = await tunnel(`127.0.0.1:${echoPort}`);
    expect(allowed.statusLine).toBe('HTTP/1.1 200 Connection Established');
    allowed.socket.destroy();
    proxy.setGuard(undefined);
    const open = await tunnel(`127.0.0.1:${echoPort}`);
    expect(open.statusLine).toBe('HTTP/1.1 200 Connection Established');
    open.socket.destroy();
  });

  it('keeps refusing when the reporting hook throws', async () => {
    proxy = await EgressProxy.start();
    proxy.setGuard({
      rules: new UrlPolicy({ deny: ['127.0.0.1'] }).toRules(),
      refused: () => {
        throw new Error('hook failed');
      },
    });
    const { statusLine, socket } = await tunnel(`127.0.0.1:${echoPort}`);
    expect(statusLine).toBe('HTTP/1.1 403 Forbidden');
    socket.destroy();
  });

  it('refuses a CONNECT that names no port', async () => {
    proxy = await EgressProxy.start();
    const { statusLine, socket } = await tunnel('127.0.0.1');
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    socket.destroy();
  });

  it('ends the tunnels it holds when closed', async () => {
    proxy = await EgressProxy.start();
    const { socket } = await tunnel(`127.0.0.1:${echoPort}`);
    const closed = once(socket, 'close');
    await proxy.close();
    await closed;
    expect(socket.destroyed).toBe(true);
  });
});
