// OpenAI-compatible adapter, beyond the conformance suite: the request each structured-output
// method sends, preset defaults (Azure URL and headers), reasoning fields, odd responses.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatModelError, ConfigError, type PlannavError } from '../../src/index';
import { ChatModelRateLimitError, type GenerateRequest } from '../../src/provider';
import { azureOpenAI, deepseek, groq, ollama, openai, OpenAIChatModel, openAIPresets, together } from '../../src/openai/index';
import { allowsStrictMode } from '../../src/openai/strict-schema';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import { openAIError, openAIText, openAIToolCall } from '../../src/testing/model-conformance-openai';
import { rejectionOf } from '../helpers/rejection';

const closedSchema = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
  },
  required: ['answer', 'tags'],
  additionalProperties: false,
};
const openSchema = { type: 'object', properties: { answer: { type: 'string' }, note: { type: 'string' } }, required: ['answer'] };

const request: GenerateRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ],
  output: { name: 'answer_output', description: 'The answer', schema: closedSchema },
  temperature: 0.3,
  maxOutputTokens: 200,
};

let server: LoopbackServer;
beforeEach(async () => {
  server = await LoopbackServer.start();
});
afterEach(async () => {
  await server.close();
});

describe('request shape', () => {
  it('posts to {baseURL}/chat/completions with a bearer key, JSON, and no streaming', async () => {
    server.enqueue(openAIText('{"answer":"hi","tags":[]}'));
    await openai({ model: 'gpt-4.1-mini', apiKey: 'sk-test', baseURL: `${server.url}/v1`, headers: { 'x-team': 'qa' } }).generate(request);
    const sent = server.last;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['x-team']).toBe('qa');
    expect(sent.body).toMatchObject({ model: 'gpt-4.1-mini', stream: false, temperature: 0.3, max_completion_tokens: 200 });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('json_schema: the schema in response_format, strict when every object is closed and fully required', async () => {
    server.enqueue(openAIText('{"answer":"hi","tags":[]}'), openAIText('{"answer":"hi"}'));
    const llm = openai({ model: 'gpt-4.1-mini', apiKey: 'k', baseURL: server.url });
    await llm.generate(request);
    expect(server.requests[0]?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer_output', description: 'The answer', schema: closedSchema, strict: true },
    });
    await llm.generate({ ...request, output: { name: 'answer_output', schema: openSchema } });
    expect(server.requests[1]?.body.response_format.json_schema).toEqual({ name: 'answer_output', schema: openSchema, strict: false });
    expect(server.requests[1]?.body.tools).toBeUndefined();
  });

  it('tool: one function tool with the schema as parameters, and the call forced', async () => {
    server.enqueue(openAIToolCall('answer_output', { answer: 'hi', tags: [] }));
    const result = await groq({ model: 'llama-3.3-70b', apiKey: 'k', baseURL: server.url }).generate(request);
    const body = server.last.body;
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'answer_output', description: 'The answer', parameters: closedSchema } }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'answer_output' } });
    expect(body.response_format).toBeUndefined();
    expect(result.object).toEqual({ answer: 'hi', tags: [] });
    expect(result.text).toBe('{"answer":"hi","tags":[]}');
    expect(result.finishReason).toBe('tool-calls');
  });

  it('json_object: JSON mode, the schema appended to the system prompt', async () => {
    server.enqueue(openAIText('{"answer":"hi","tags":[]}'));
    await deepseek({ model: 'deepseek-chat', apiKey: 'k', baseURL: server.url }).generate(request);
    const body = server.last.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content).toMatch(/^Be brief\.\n\n/);
    expect(body.messages[0].content).toContain('answer_output');
    expect(body.messages[0].content).toContain(JSON.stringify(closedSchema));
    expect(body.messages).toHaveLength(2);
  });

  it('json_object without a system prompt adds one with the schema', async () => {
    server.enqueue(openAIText('{"answer":"hi","tags":[]}'));
    await together({ model: 'm', apiKey: 'k', baseURL: server.url }).generate({ ...request, messages: [{ role: 'user', content: 'Hi' }] });
    const messages = server.last.body.messages;
    expect(messages).toHaveLength(2);
    expect(messages[0].role).toBe('system');
    expect(messages[0].content).toContain('JSON Schema');
  });

  it('leaves temperature out for reasoning models and sends max_tokens where the preset says', async () => {
    server.enqueue(openAIText('{}'), openAIText('{}'), openAIText('{}'));
    await openai({ model: 'o3-mini', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(server.requests[0]?.body.temperature).toBeUndefined();
    await openai({ model: 'gpt-5-chat-latest', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(server.requests[1]?.body.temperature).toBe(0.3);
    await ollama({ model: 'qwen2.5:7b', baseURL: server.url }).generate(request);
    expect(server.requests[2]?.body.max_tokens).toBe(200);
    expect(server.requests[2]?.body.max_completion_tokens).toBeUndefined();
    expect(server.requests[2]?.headers.authorization).toBeUndefined();
  });

  it('merges the body option into every request', async () => {
    server.enqueue(openAIText('{}'));
    await openai({ model: 'gpt-5-mini', apiKey: 'k', baseURL: server.url, body: { reasoning_effort: 'low' } }).generate(request);
    expect(server.last.body.reasoning_effort).toBe('low');
  });
});

describe('Azure OpenAI', () => {
  it('posts to the deployment URL with api-version and the api-key header', async () => {
    server.enqueue(openAIText('{"answer":"hi","tags":[]}'));
    const llm = azureOpenAI({ endpoint: `${server.url}/`, deployment: 'gpt-4o-prod', apiKey: 'azure-key', apiVersion: '2025-01-01-preview' });
    expect(llm.provider).toBe('azure');
    expect(llm.model).toBe('gpt-4o-prod');
    await llm.generate(request);
    const sent = server.last;
    expect(sent.path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    expect(sent.query.get('api-version')).toBe('2025-01-01-preview');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body.response_format.type).toBe('json_schema');
  });

  it('defaults the api-version and knows a reasoning deployment by its model', async () => {
    server.enqueue(openAIText('{}'));
    await azureOpenAI({ endpoint: server.url, deployment: 'reasoner', model: 'o4-mini', apiKey: 'k' }).generate(request);
    expect(server.last.query.get('api-version')).toBe('2024-10-21');
    expect(server.last.body.temperature).toBeUndefined();
  });

  it('refuses a missing endpoint or deployment with a ConfigError naming it', () => {
    expect(() => azureOpenAI({ endpoint: 'not a url', deployment: 'd' })).toThrow(/endpoint/);
    const error = (() => {
      try {
        azureOpenAI({ endpoint: 'https://x.openai.azure.com', deployment: '' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).field).toBe('deployment');
  });
});

describe('responses', () => {
  it('keeps DeepSeek\u2019s reasoning_content out of the text and counts its cache hits', async () => {
    server.enqueue(
      openAIText('{"answer":"hi","tags":[]}', {
        reasoningContent: 'Let me think step by step...',
        usage: { prompt_tokens: 500, completion_tokens: 90, prompt_cache_hit_tokens: 300, completion_tokens_details: { reasoning_tokens: 70 } },
      }),
    );
    const result = await deepseek({ model: 'deepseek-reasoner', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(result.text).toBe('{"answer":"hi","tags":[]}');
    expect(result.usage).toEqual({ inputTokens: 500, outputTokens: 90, cachedInputTokens: 300, reasoningTokens: 70 });
    expect(JSON.stringify(result.raw)).toContain('Let me think');
  });

  it('returns <think> blocks in the text as the model wrote them, for the core to strip', async () => {
    server.enqueue(openAIText('<think>hmm</think>{"answer":"hi","tags":[]}'));
    const result = await ollama({ model: 'qwen3', baseURL: server.url }).generate(request);
    expect(result.text).toBe('<think>hmm</think>{"answer":"hi","tags":[]}');
  });

  it('returns tool arguments that are not JSON as text, without an object', async () => {
    server.enqueue(openAIToolCall('answer_output', '```json\n{"answer":"hi"}\n```'));
    const result = await groq({ model: 'm', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(result.object).toBeUndefined();
    expect(result.text).toContain('"answer":"hi"');
  });

  it('reports a cut-off tool call as length, without an object', async () => {
    server.enqueue(openAIToolCall('answer_output', '{"answer":"h', { finishReason: 'length' }));
    const result = await groq({ model: 'm', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(result.finishReason).toBe('length');
    expect(result.object).toBeUndefined();
  });

  it('reports a refusal as content-filter with its text', async () => {
    server.enqueue({
      json: { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] },
    });
    const result = await openai({ model: 'gpt-4o', apiKey: 'k', baseURL: server.url }).generate(request);
    expect(result.finishReason).toBe('content-filter');
    expect(result.text).toBe('I cannot help with that.');
  });

  it('maps an upstream error OpenRouter sends inside a 200', async () => {
    server.enqueue({ json: { error: { code: 429, message: 'Upstream rate limited' } } });
    const error = await rejectionOf<PlannavError>(openai({ model: 'm', apiKey: 'k', baseURL: server.url }).generate(request));
    expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
    expect(error.message).toContain('Upstream rate limited');
  });

  it('treats a 200 without choices or JSON as a retryable server error', async () => {
    server.enqueue({ json: { id: 'x', choices: [] } }, { raw: '<html>bad gateway</html>' });
    const llm = openai({ model: 'm', apiKey: 'k', baseURL: server.url });
    const empty = await rejectionOf<PlannavError>(llm.generate(request));
    expect(empty.code).toBe('CHAT_MODEL_SERVER');
    expect(empty.retryable).toBe(true);
    const html = await rejectionOf<PlannavError>(llm.generate(request));
    expect(html.code).toBe('CHAT_MODEL_SERVER');
    expect(html.message).toContain('not JSON');
  });

  it('reads retry-after-ms and the flat error body of vLLM', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after-ms': '1500' }, json: { object: 'error', message: 'Too many requests', type: 'rate_limit', code: 429 } },
      openAIError(400, 'bad', { code: 'invalid_value' }),
    );
    const llm = openai({ model: 'm', apiKey: 'k', baseURL: server.url });
    const limited = await rejectionOf<PlannavError>(llm.generate(request));
    expect((limited as ChatModelRateLimitError).retryAfterMs).toBe(1500);
    expect(limited.message).toContain('Too many requests');
    const bad = await rejectionOf<PlannavError>(llm.generate(request));
    expect((bad as ChatModelError).responseBody).toContain('invalid_value');
  });
});

describe('options', () => {
  it('has a preset table with the default method of each service', () => {
    expect(openAIPresets.openai.structuredOutput).toBe('json_schema');
    expect(openAIPresets.groq.structuredOutput).toBe('tool');
    expect(openAIPresets.deepseek).toMatchObject({ structuredOutput: 'json_object', supportsImages: false });
    expect(deepseek({ model: 'deepseek-chat', apiKey: 'k' }).supportsImages).toBe(false);
    expect(deepseek({ model: 'deepseek-chat', apiKey: 'k', supportsImages: true }).supportsImages).toBe(true);
    expect(groq({ model: 'm', apiKey: 'k', structuredOutput: 'json_schema' }).structuredOutput).toBe('json_schema');
  });

  it.each([
    [{ model: '' }, 'model'],
    [{ model: 'm', baseURL: 'localhost:1234' }, 'baseURL'],
    [{ model: 'm', timeout: -1 }, 'timeout'],
    [{ model: 'm', structuredOutput: 'xml' as never }, 'structuredOutput'],
  ])('refuses bad options with a ConfigError naming the field (%j)', (options, field) => {
    let caught: unknown;
    try {
      new OpenAIChatModel(options);
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as ConfigError).field).toBe(field);
  });

  it('requires a key for hosted presets, unless a base URL or an own auth header is given', () => {
    expect(() => openai({ model: 'gpt-4.1-mini' })).toThrow(/apiKey/);
    expect(() => groq({ model: 'm', apiKey: '' })).toThrow(ConfigError);
    expect(() => azureOpenAI({ endpoint: 'https://x.openai.azure.com', deployment: 'd' })).toThrow(/apiKey/);
    expect(openai({ model: 'm', baseURL: 'https://gateway.test/v1' }).model).toBe('m');
    expect(openai({ model: 'm', headers: { Authorization: 'Bearer from-gateway' } }).model).toBe('m');
    expect(azureOpenAI({ endpoint: 'https://x.openai.azure.com', deployment: 'd', headers: { authorization: 'Bearer aad-token' } }).model).toBe('d');
    expect(ollama({ model: 'qwen2.5:7b' }).model).toBe('qwen2.5:7b');
  });

  it('uses the fetch option', async () => {
    const urls: string[] = [];
    const llm = new OpenAIChatModel({
      model: 'm',
      baseURL: 'https://gateway.test/v1',
      fetch: async (url) => {
        urls.push(url);
        return new Response(JSON.stringify({ choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }] }), { status: 200 });
      },
    });
    const result = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.text).toBe('ok');
    expect(urls).toEqual(['https://gateway.test/v1/chat/completions']);
  });
});

describe('strict mode detection', () => {
  it('accepts closed, fully required schemas with nested arrays, anyOf and $defs', () => {
    expect(allowsStrictMode(closedSchema)).toBe(true);
    expect(
      allowsStrictMode({
        type: 'object',
        properties: { value: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/item' }] } },
        required: ['value'],
        additionalProperties: false,
        $defs: { item: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false } },
      }),
    ).toBe(true);
  });

  it.each([
    ['an optional property', openSchema],
    ['an open nested object', { type: 'object', properties: { inner: { type: 'object', properties: {} } }, required: ['inner'], additionalProperties: false }],
    ['an unsupported keyword', { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'], additionalProperties: false }],
    ['oneOf', { type: 'object', properties: { value: { oneOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['value'], additionalProperties: false }],
    ['a root that is not an object', { type: 'array', items: { type: 'string' } }],
  ])('refuses %s', (_name, schema) => {
    expect(allowsStrictMode(schema)).toBe(false);
  });
});
