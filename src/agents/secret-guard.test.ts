import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatModelError } from '../errors';
import { OpenAIChatModel } from '../openai/index';
import { SecretStore } from '../security/secrets';
import { LoopbackServer } from '../testing/model-conformance-server';
import { redactingClient } from './secret-guard';

const token = 'Qv7Xk2Lm9Rz4';

/** Every piece of 6 characters of the token in `text`, ignoring case, spaces and separators. */
function pieces(text: string): string[] {
  const squeezed = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const found: string[] = [];
  for (let start = 0; start + 6 <= token.length; start++)
    if (squeezed.includes(token.slice(start, start + 6).toLowerCase())) found.push(token.slice(start, start + 6));
  return found;
}

let provider: LoopbackServer;

beforeAll(async () => {
  // A provider that rejects the request and quotes it, and more, in its error body.
  provider = await LoopbackServer.start((request) => ({
    status: 400,
    json: {
      error: {
        message: `Bad request near "${token.slice(0, 7)} ${token.slice(7)}" (${token.toLowerCase()}): ${JSON.stringify(request.body).slice(0, 300)}`,
        type: 'invalid_request_error',
      },
    },
  }));
});

afterAll(async () => {
  await provider?.close();
});

describe('redactingClient', () => {
  it('redacts what the model reads, and the provider error that quotes it, before anyone else sees the error', async () => {
    const secrets = new SecretStore({ token });
    const llm = redactingClient(new OpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: `${provider.url}/v1` }), secrets);
    const error = await llm.generate({ messages: [{ role: 'user', content: `The page says: Qv7Xk2 Lm9Rz4 and ${token.slice(2)}` }] }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(ChatModelError.isInstance(error)).toBe(true);
    const chain: string[] = [];
    for (let current: unknown = error; current instanceof Error; current = current.cause)
      chain.push(current.message, current.stack ?? '', JSON.stringify(current));
    expect(pieces(chain.join('\n'))).toEqual([]);
    expect(pieces(JSON.stringify(provider.requests.map((request) => request.body)))).toEqual([]);
    expect((error as ChatModelError).message).toContain('<secret>token</secret>');
  });
});
