import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { uiCommand, uiUsage, type CommandIo } from './command';
import { opener } from './open-browser';

/** Streams that keep what is written, and the io of one command. */
function io(signal?: AbortSignal): CommandIo & { out: () => string; err: () => string; onOut: (listener: (text: string) => void) => void } {
  let out = '';
  let err = '';
  const listeners: ((text: string) => void)[] = [];
  const sink = (write: (text: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        write(chunk.toString());
        done();
      },
    });
  return {
    stdout: sink((text) => {
      out += text;
      for (const listener of listeners) listener(out);
    }),
    stderr: sink((text) => (err += text)),
    stdin: new PassThrough(),
    env: {},
    signal,
    out: () => out,
    err: () => err,
    onOut: (listener) => listeners.push(listener),
  };
}

describe('plannav ui: usage', () => {
  it('prints its usage on --help and -h, exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const streams = io();
      expect(await uiCommand([flag], streams)).toBe(0);
      expect(streams.out()).toBe(uiUsage);
      expect(streams.out()).toMatch(/--no-open/);
    }
  });

  it('refuses a bad flag, a bad port and an argument with one line and exit 2', async () => {
    for (const args of [['--nope'], ['--port', 'eighty'], ['--port', '70000'], ['--max-steps', '0'], ['a task']]) {
      const streams = io();
      expect(await uiCommand(args, streams), args.join(' ')).toBe(2);
      expect(streams.err()).toMatch(/^plannav: .+\n$/);
      expect(streams.out()).toBe('');
    }
  });
});

describe('plannav ui: serving', () => {
  it('prints the URL with its token, serves the page there, and ends with exit 0 when stopped', { timeout: 20_000 }, async () => {
    const controller = new AbortController();
    const streams = io(controller.signal);
    const printed = new Promise<string>((resolve) => streams.onOut((text) => /\n/.test(text) && resolve(text)));
    const exit = uiCommand(['--no-open', '--port', '0'], streams);
    const line = await printed;
    const url = /plannav ui: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(line)?.[1];
    expect(url).toBeDefined();
    const page = await fetch(url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="task-input"');
    const withoutToken = await fetch(new URL('/', url).href);
    expect(withoutToken.status).toBe(401);
    controller.abort();
    expect(await exit).toBe(0);
    await expect(fetch(url ?? '')).rejects.toThrow();
  });
});

describe('opener', () => {
  it('uses the platform’s own way to open a URL', () => {
    expect(opener('darwin').command).toBe('open');
    expect(opener('linux').command).toBe('xdg-open');
    expect(opener('win32')).toEqual({ command: 'cmd', args: ['/c', 'start', ''] });
  });
});
