import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EventHub, formatEvent } from './event-stream';

/** What an EventSource makes of a stream: the messages, by the rules of the HTML standard's parser. */
function parse(stream: string): { type: string; data: string; id?: string }[] {
  const messages: { type: string; data: string; id?: string }[] = [];
  let type = '';
  let data: string[] = [];
  let id: string | undefined;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) messages.push({ type: type || 'message', data: data.join('\n'), ...(id === undefined ? {} : { id }) });
      type = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return messages;
}

/** A response stand-in that records what is written. */
function fakeResponse(): ServerResponse & { text: string; status: number; headers: Record<string, string> } {
  const emitter = new EventEmitter() as EventEmitter & { text: string; status: number; headers: Record<string, string> };
  emitter.text = '';
  return Object.assign(emitter, {
    writeHead(status: number, headers: Record<string, string>) {
      emitter.status = status;
      emitter.headers = headers;
      return emitter;
    },
    write(chunk: string) {
      emitter.text += chunk;
      return true;
    },
    end() {
      emitter.emit('close');
      return emitter;
    },
  }) as unknown as ServerResponse & { text: string; status: number; headers: Record<string, string> };
}

describe('formatEvent', () => {
  it('frames one message that an EventSource reads back as it was sent', () => {
    const data = { text: 'two\nlines\r\nand a \u2028 separator', nested: { value: 1 } };
    const frame = formatEvent({ type: 'card-start', data }, 7);
    expect(frame.endsWith('\n\n')).toBe(true);
    const [message, ...rest] = parse(frame);
    expect(rest).toEqual([]);
    expect(message).toEqual({ type: 'card-start', data: JSON.stringify(data), id: '7' });
    expect(JSON.parse(message?.data ?? '')).toEqual(data);
  });

  it('refuses an event name that could break the framing', () => {
    for (const type of ['bad name', 'x\ndata: injected', 'Upper', '', 'colon:']) expect(() => formatEvent({ type, data: 1 }), type).toThrow(/Event names/);
  });
});

describe('EventHub', () => {
  it('sends a late stream the first messages, every kept one and the latest transient one, then new ones', () => {
    const hub = new EventHub({ keepAliveMs: 60_000 });
    try {
      hub.publish({ type: 'status', data: { status: 'running' } });
      hub.publishTransient({ type: 'live', data: { frame: 1 } });
      hub.publishTransient({ type: 'live', data: { frame: 2 } });
      const response = fakeResponse();
      hub.attach(response, { 'x-test': 'yes' }, [{ type: 'hello', data: { status: 'running' } }]);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(response.headers['x-test']).toBe('yes');
      hub.publish({ type: 'summary', data: { result: 'ok' } });
      expect(parse(response.text).map((message) => [message.type, JSON.parse(message.data) as unknown])).toEqual([
        ['hello', { status: 'running' }],
        ['status', { status: 'running' }],
        ['live', { frame: 2 }],
        ['summary', { result: 'ok' }],
      ]);
    } finally {
      hub.close();
    }
  });

  it('forgets kept messages on clear() and stops writing to a closed stream', () => {
    const hub = new EventHub({ keepAliveMs: 60_000 });
    try {
      hub.publish({ type: 'status', data: 1 });
      hub.clear();
      const first = fakeResponse();
      hub.attach(first);
      expect(parse(first.text)).toEqual([]);
      first.emit('close');
      expect(hub.size).toBe(0);
      hub.publish({ type: 'status', data: 2 });
      expect(parse(first.text)).toEqual([]);
    } finally {
      hub.close();
    }
  });

  it('keeps at most maxKept messages, the newest', () => {
    const hub = new EventHub({ keepAliveMs: 60_000, maxKept: 2 });
    try {
      for (const value of [1, 2, 3]) hub.publish({ type: 'status', data: value });
      const response = fakeResponse();
      hub.attach(response);
      expect(parse(response.text).map((message) => message.data)).toEqual(['2', '3']);
    } finally {
      hub.close();
    }
  });
});
