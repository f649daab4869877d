import { once } from 'node:events';
import { request } from 'node:http';
import { runInNewContext } from 'node:vm';
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UrlPolicy, type UrlPolicyOptions } from '../security/url-policy';
import { deniesDirectHosts, EgressProxy, hasUrlRules, startLaunchProxy, tunnelAllowed } from './egress-proxy';

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

  it('says when a policy denies a host Chromium never proxies: loopback and link-local', () => {
    expect(deniesDirectHosts(rules({ deny: ['evil.example'] }))).toBe(false);
    for (const host of ['localhost', 'app.localhost', '127.0.0.2', '169.254.169.254', '[::1]', '[fe80::1]'])
      expect(deniesDirectHosts(rules({ deny: [host] })), host).toBe(true);
    // An allow list denies some of them whatever it names.
    expect(deniesDirectHosts(rules({ allow: ['127.0.0.1', 'shop.example'] }))).toBe(true);
  });
});

describe('startLaunchProxy', () => {
  it('leaves a launch that routes its traffic itself alone', async () => {
    expect(await startLaunchProxy(['--proxy-server=http://corp:3128'])).toBeUndefined();
    expect(await startLaunchProxy(['--proxy-pac-url=http://corp/proxy.pac'])).toBeUndefined();
    expect(await startLaunchProxy(['--no-proxy-server'])).toBeUndefined();
    expect(await startLaunchProxy([], true)).toBeUndefined();
    // Chromium reads a switch with one dash as with two.
    expect(await startLaunchProxy(['-proxy-server=http://corp:3128'])).toBeUndefined();
    // A proxy in the environment is the browser's own, which the PAC script would override.
    expect(await startLaunchProxy([], false, { https_proxy: 'http://corp:3128' })).toBeUndefined();
    expect(await startLaunchProxy([], false, { HTTP_PROXY: 'http://corp:3128' })).toBeUndefined();
    const proxy = await startLaunchProxy(['--proxy-bypass-list=foo', '--window-size=800,600'], false, { no_proxy: 'corp.example' });
    const [pac, ...rest] = proxy?.launchArgs ?? [];
    expect(rest).toEqual([]);
    const script = Buffer.from(/^--proxy-pac-url=data:application\/x-ns-proxy-autoconfig;base64,(.+)$/.exec(pac ?? '')?.[1] ?? '', 'base64').toString();
    // The PAC script, run as Chromium runs it: WebSockets to the proxy, everything else direct.
    const findProxy = runInNewContext(`${script}; FindProxyForURL`) as (url: string, host: string) => string;
    const address = new URL(proxy?.address ?? '').host;
    expect(findProxy('wss://chat.example/', 'chat.example')).toBe(`PROXY ${address}`);
    expect(findProxy('ws://chat.example:8080/', 'chat.example')).toBe(`PROXY ${address}`);
    expect(findProxy('https://shop.example/', 'shop.example')).toBe('DIRECT');
    expect(findProxy('http://ws.example/', 'ws.example')).toBe('DIRECT');
    await proxy?.close();
  });
});

describe('EgressProxy', () => {
  let proxy: EgressProxy;
  let echo: NetServer;
  let echoPort: number;

  beforeAll(async () => {
    echo = createNetServer((socket) => socket.pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    echoPort = (echo.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((done) => echo.close(done));
  });

  afterEach(async () => {
    await proxy?.close();
  });

  /** Opens a CONNECT tunnel through the proxy; resolves with the proxy's status line and the socket. */
  async function tunnel(authority: string): Promise<{ statusLine: string; socket: Socket }> {
    const { port } = new URL(proxy.address);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
    const [data] = (await once(socket, 'data')) as [Buffer];
    return { statusLine: data.toString('latin1').split('\r\n')[0] ?? '', socket };
  }

  it('answers only tunnels', async () => {
    proxy = await EgressProxy.start();
    const { port } = new URL(proxy.address);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, path: `http://127.0.0.1:${echoPort}/` }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(status).toBe(405);
  });

  it('answers 502 when the host cannot be reached', async () => {
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

  it("connects where the browser's --host-resolver-rules say", async () => {
    proxy = await EgressProxy.start('EXCLUDE kept.test, MAP *.test 127.0.0.1, MAP gone.example ~NOTFOUND');
    const mapped = await tunnel(`denied.test:${echoPort}`);
    expect(mapped.statusLine).toBe('HTTP/1.1 200 Connection Established');
    mapped.socket.write('mapped');
    const [data] = (await once(mapped.socket, 'data')) as [Buffer];
    expect(data.toString()).toBe('mapped');
    mapped.socket.destroy();
    const gone = await tunnel(`gone.example:${echoPort}`);
    expect(gone.statusLine).toBe('HTTP/1.1 502 Bad Gateway');
    gone.socket.destroy();
  });

  it('reads EXCLUDE wherever it stands, as Chromium does, and ? as one character', async () => {
    proxy = await EgressProxy.start('MAP * 127.0.0.1, EXCLUDE kept.invalid, MAP gone?.example ~NOTFOUND');
    // Not mapped: the name is looked up as it is, and .invalid never resolves.
    const kept = await tunnel(`kept.invalid:${echoPort}`);
    expect(kept.statusLine).toBe('HTTP/1.1 502 Bad Gateway');
    kept.socket.destroy();
    const mapped = await tunnel(`other.invalid:${echoPort}`);
    expect(mapped.statusLine).toBe('HTTP/1.1 200 Connection Established');
    mapped.socket.destroy();
  });

  it('ends the open tunnels a new guard denies, and reports them', async () => {
    proxy = await EgressProxy.start();
    const open = await tunnel(`127.0.0.1:${echoPort}`);
    expect(open.statusLine).toBe('HTTP/1.1 200 Connection Established');
    const closed = once(open.socket, 'close');
    const refused: string[] = [];
    proxy.setGuard({ rules: new UrlPolicy({ allow: ['127.0.0.1'] }).toRules(), refused: (url) => refused.push(url) });
    const kept = await tunnel(`127.0.0.1:${echoPort}`);
    proxy.setGuard({ rules: new UrlPolicy({ deny: ['127.0.0.1'] }).toRules(), refused: (url) => refused.push(url) });
    await closed;
    await once(kept.socket, 'close');
    expect(refused).toEqual([`https://127.0.0.1:${echoPort}/`, `https://127.0.0.1:${echoPort}/`]);
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
