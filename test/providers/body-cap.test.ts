// Every fetch adapter stops reading a reply at its size cap: a server on 127.0.0.1 streams a reply
// far longer than the cap, and must see the client hang up long before the end.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicChatModel } from '../../src/anthropic/index';
import { ChatModelOutputError } from '../../src/errors';
import { GeminiChatModel } from '../../src/gemini/index';
import type { LLMClient } from '../../src/llm/types';
import { OpenAIChatModel } from '../../src/openai/index';
import { maxResponseBytes } from '../../src/providers/http';
import { rejectionOf } from '../helpers/rejection';

/** The whole reply the server would send: several times the cap. */
const fullSize = 5 * maxResponseBytes;
const chunk = Buffer.alloc(64 * 1024, 'x');

let server: Server;
let origin: string;
/** What the server managed to write of each reply, once the connection ended. */
const sent: Promise<number>[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    let written = 0;
    let done: (bytes: number) => void = () => undefined;
    sent.push(new Promise((resolve) => (done = resolve)));
    response.on('close', () => done(written));
    response.writeHead(200, { 'content-type': 'application/json' });
    // A reply that is JSON up to here, then a string that goes on: written as the client reads,
    // so what it sends is what the client took (plus the sockets' buffers).
    const head = '{"choices":[{"message":{"role":"assistant","content":"';
    response.write(head);
    written += head.length;
    const more = (): void => {
      while (written < fullSize && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', () => setTimeout(more, 1));
      }
      if (!response.destroyed) response.end('"}}]}');
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const adapters: [string, () => LLMClient][] = [
  ['OpenAI', () => new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: `${origin}/v1` })],
  ['Anthropic', () => new AnthropicChatModel({ model: 'claude-test', apiKey: 'k', baseURL: `${origin}/v1` })],
  ['Gemini', () => new GeminiChatModel({ model: 'gemini-test', apiKey: 'k', baseURL: `${origin}/v1beta` })],
];

describe('a reply longer than the cap', () => {
  it.each(adapters)(
    '%s stops reading it at the cap and fails with a ChatModelOutputError',
    async (_name, make) => {
      const before = sent.length;
      const error = await rejectionOf(make().generate({ messages: [{ role: 'user', content: 'hi' }], timeout: 60_000 }));
      expect(ChatModelOutputError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/longer than 25,000,000 bytes/);
      expect(sent.length).toBe(before + 1);
      const bytes = await sent[before]!;
      // The cap and what the sockets held when the client hung up: far from the whole reply.
      expect(bytes).toBeLessThan(maxResponseBytes + 16 * 1024 * 1024);
      expect(bytes).toBeLessThan(fullSize / 2);
    },
    60_000,
  );
});
