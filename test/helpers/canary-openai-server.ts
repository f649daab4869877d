// A stand-in for an OpenAI chat-completions server on 127.0.0.1: it keeps every request body
// exactly as it arrived and answers from a script, with a forced tool call (or text, when the
// request asked for no tool) or with an HTTP error of the script's choosing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface ProviderCall {
  /** 0, 1, 2, … in the order they arrived. */
  readonly index: number;
  /** The body, byte for byte (as UTF-8). */
  readonly body: string;
  /** The name of the tool the request forces (`planner_output`, `navigator_output`, …), or `''`. */
  readonly toolName: string;
  /** The text of the request's last user message. */
  readonly lastUserText: string;
}

/** What the script answers: a structured reply, or an HTTP error with its JSON body. */
export type ProviderReply = { readonly object: unknown } | { readonly status: number; readonly body: unknown };

export interface FakeOpenAIServer {
  /** The base URL to give the adapter, such as `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  readonly calls: ProviderCall[];
  /** Every response body the server sent, in order. */
  readonly responses: string[];
  close(): Promise<void>;
}

interface WireMessage {
  readonly role?: string;
  readonly content?: string | ReadonlyArray<{ readonly type?: string; readonly text?: string }> | null;
}

function messageText(message: WireMessage): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => part.text ?? '').join('\n');
}

export async function startFakeOpenAI(respond: (call: ProviderCall) => ProviderReply): Promise<FakeOpenAIServer> {
  const calls: ProviderCall[] = [];
  const responses: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const parsed = JSON.parse(body) as { messages?: WireMessage[]; tools?: Array<{ function?: { name?: string } }> };
      const messages = parsed.messages ?? [];
      const lastUser = [...messages].reverse().find((message) => message.role === 'user');
      const call: ProviderCall = {
        index: calls.length,
        body,
        toolName: parsed.tools?.[0]?.function?.name ?? '',
        lastUserText: lastUser ? messageText(lastUser) : '',
      };
      calls.push(call);
      const reply = respond(call);
      let status = 200;
      let payload: unknown;
      if ('status' in reply) {
        status = reply.status;
        payload = reply.body;
      } else {
        const argumentsText = JSON.stringify(reply.object);
        const message = call.toolName
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: `call_${call.index}`, type: 'function', function: { name: call.toolName, arguments: argumentsText } }],
            }
          : { role: 'assistant', content: argumentsText };
        payload = {
          id: `chatcmpl-canary-${call.index}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'canary-model',
          choices: [{ index: 0, finish_reason: call.toolName ? 'tool_calls' : 'stop', message }],
          usage: { prompt_tokens: Math.ceil(body.length / 4), completion_tokens: Math.ceil(argumentsText.length / 4) },
        };
      }
      const text = JSON.stringify(payload);
      responses.push(text);
      response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-canary-${call.index}` }).end(text);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', done);
  });
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    responses,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
