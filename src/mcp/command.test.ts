// plannav mcp's argument handling: usage errors are one `plannav: ` line and exit code 2, --help
// prints the usage, and an HTTP server starts, answers and stops on the signal.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { mcpCommand } from './command';

function io(env: Record<string, string | undefined> = {}, signal?: AbortSignal) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
  return { io: { stdout, stderr, stdin: new PassThrough(), env, signal }, out, err };
}

describe('plannav mcp', () => {
  it('prints its usage with --help and exits 0', async () => {
    const run = io();
    expect(await mcpCommand(['--help'], run.io)).toBe(0);
    expect(run.out.join('')).toMatch(/^Usage: plannav mcp/);
    expect(run.out.join('')).toContain('--token');
  });

  it.each([
    [['--bogus'], /^plannav: unknown flag --bogus \(see plannav mcp --help\)$/],
    [['--demo', '--port'], /flag --port needs a value/],
    [['--demo', 'extra'], /takes no arguments/],
    [['--demo', '--port', '80'], /--http only/],
    [['--demo', '--http', '--port', 'eighty'], /--port must be an integer from 0 to 65535/],
    [['--demo', '--scope', 'everything'], /--scope/],
    [[], /--model provider:model is required/],
    [['--model', 'openai:gpt-4.1-mini'], /OPENAI_API_KEY/],
    [['--model', 'gpt-4.1-mini'], /provider:model/],
    [['--demo', '--http', '--host', '0.0.0.0'], /token/],
    [['--demo', '--secrets-file', '/nonexistent/plannav.env'], /--secrets-file/],
  ])('%j is bad usage: one plannav: line, exit 2', async (args, message) => {
    const run = io();
    expect(await mcpCommand(args, run.io)).toBe(2);
    const lines = run.err.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^plannav: /);
    expect(lines[0]).toMatch(message);
    expect(run.out.join('')).toBe('');
  });

  it('serves HTTP on a free port with --port 0 and stops when its signal aborts', async () => {
    const controller = new AbortController();
    const run = io({}, controller.signal);
    const done = mcpCommand(['--demo', '--http', '--port', '0'], run.io);
    await expect.poll(() => run.err.join('')).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /(http:\S+\/mcp)/.exec(run.err.join(''))?.[1] ?? '';
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(400);
    controller.abort();
    expect(await done).toBe(0);
    await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
