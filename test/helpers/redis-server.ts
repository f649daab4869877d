// A real redis-server for tests (issue 14's BullMQ collection): 127.0.0.1, a free port, a temporary
// directory, nothing saved, every wait bounded. Test-only: it never touches a Redis it did not start.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServer } from '../../scripts/ensure-deps.mjs';

/** A running redis-server of {@link startRedis}. */
export interface RedisServer {
  /** Such as `redis://127.0.0.1:41234`, for ioredis and BullMQ. */
  readonly url: string;
  readonly port: number;
  /** Its working directory (`--dir`), removed by `stop()`. */
  readonly directory: string;
  /** Kills the server, waits until it has exited and removes its directory; calling it again does nothing. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** How long to wait for the first PONG. @defaultValue 10000 */
  readonly timeoutMs?: number | undefined;
  /** The port to listen on (a server started again on the port of one that stopped); only one try. @defaultValue a free port */
  readonly port?: number | undefined;
  /** The working directory (a server started again on the data another one saved there); `stop()` leaves it. @defaultValue a new temporary one */
  readonly directory?: string | undefined;
}

/** A reply of Redis: a simple string or bulk string, an integer, or null (a missing key). */
export type RedisReply = string | number | null;

/** Servers still running, killed when the test process exits, so a crashed test leaves no redis-server behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port that was free a moment ago; {@link startRedis} tries again if another process took it meanwhile. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Encodes a command as a RESP array of bulk strings. */
const encodeCommand = (args: readonly string[]): string => `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

/** Parses one complete non-array reply from the start of `buffer`; undefined while it is incomplete. */
function parseReply(buffer: Buffer): { reply: RedisReply } | { error: string } | undefined {
  const lineEnd = buffer.indexOf('\r\n');
  if (lineEnd < 0) return undefined;
  const line = buffer.subarray(1, lineEnd).toString('utf8');
  switch (String.fromCharCode(buffer[0] ?? 0)) {
    case '+':
      return { reply: line };
    case '-':
      return { error: line };
    case ':':
      return { reply: Number(line) };
    case '$': {
      const length = Number(line);
      if (length < 0) return { reply: null };
      const start = lineEnd + 2;
      return buffer.length >= start + length + 2 ? { reply: buffer.subarray(start, start + length).toString('utf8') } : undefined;
    }
    default:
      return { error: `unexpected reply ${JSON.stringify(buffer.toString('utf8').slice(0, 40))}` };
  }
}

/**
 * Sends one command over a fresh TCP connection and returns its reply (no arrays: enough for PING,
 * SET, GET, DEL, INCR). Rejects with Redis's error, a connection error, or after `timeoutMs`.
 */
export function redisCommand(port: number, args: readonly string[], timeoutMs = 2000): Promise<RedisReply> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = Buffer.alloc(0);
    const finish = (outcome: () => void): void => {
      socket.destroy();
      outcome();
    };
    socket.setTimeout(timeoutMs, () => finish(() => reject(new Error(`Redis on port ${port} did not answer ${args[0]} within ${timeoutMs} ms`))));
    socket.once('error', (error) => finish(() => reject(error)));
    // A server that closes the connection without a reply (SHUTDOWN) would otherwise leave this pending: the idle timeout ends with the socket.
    socket.once('close', () => finish(() => reject(new Error(`Redis on port ${port} closed the connection before answering ${args[0]}`))));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseReply(received);
      if (!parsed) return;
      finish(() => ('error' in parsed ? reject(new Error(`Redis answered ${args[0]} with ${parsed.error}`)) : resolve(parsed.reply)));
    });
    socket.connect(port, '127.0.0.1', () => socket.write(encodeCommand(args)));
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the child has exited, or false after `ms`. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** One attempt on one port: the server once it answers PING, or why not. */
async function startOn(binary: string, port: number, directory: string, timeoutMs: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Keep the end of its log for the error message; reading it also keeps the pipe from filling up.
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-2000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`Could not start ${binary}: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}) before answering PING on port ${port}:\n${output.trim()}`);
    const pong = await redisCommand(port, ['PING'], 500).catch(() => undefined);
    if (pong === 'PONG') return child;
    await delay(50);
  }
  child.kill('SIGKILL');
  await exited(child, 2000);
  throw new Error(`redis-server did not answer PING on port ${port} within ${timeoutMs} ms:\n${output.trim()}`);
}

/**
 * Starts `redis-server` (PLANNAV_REDIS_SERVER, else the one on PATH) on 127.0.0.1 and a free port,
 * in a temporary directory, saving nothing, and waits until it answers PING.
 * @throws when there is no redis-server (the message says how to get one), or it does not come up in time
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary)
    throw new Error(
      'No redis-server found (PLANNAV_REDIS_SERVER or PATH). `npm test` installs it on Debian (scripts/ensure-deps.mjs); ' +
        'or run `node scripts/ensure-deps.mjs --redis`, `sudo apt-get install redis-server`, or `brew install redis`.',
    );
  const timeoutMs = options.timeoutMs ?? 10_000;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'plannav-redis-')));
  const ownsDirectory = options.directory === undefined;
  let child: ChildProcess | undefined;
  let port = 0;
  let lastError: unknown;
  // The free port may be taken between the probe and redis-server's bind: three tries.
  for (let attempt = 0; attempt < (options.port === undefined ? 3 : 1) && !child; attempt++) {
    port = options.port ?? (await freePort());
    try {
      child = await startOn(binary, port, directory, timeoutMs);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && /Address already in use/i.test(error.message))) break;
    }
  }
  if (!child) {
    if (ownsDirectory) await rm(directory, { recursive: true, force: true });
    throw lastError;
  }
  const server = child;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      server.kill('SIGTERM');
      if (!(await exited(server, 3000))) {
        server.kill('SIGKILL');
        await exited(server, 3000);
      }
      if (ownsDirectory) await rm(directory, { recursive: true, force: true });
    })();
    return stopping;
  };
  return { url: `redis://127.0.0.1:${port}`, port, directory, stop, [Symbol.asyncDispose]: stop };
}
