import type { test as nodeTest } from 'node:test';
import { describe, expect, it, test as vitestTest } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { ChatModelError, ConfigError } from '../errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { openai } from '../openai/index';
import { raceAbort } from '../util/abort';
import { ConformanceError, registerConformance, type ConformanceCase, type ConformanceTestFunction } from './conformance';
import { modelClientConformance, type ModelClientConformanceOptions, type ModelClientSettings } from './model-conformance';

// Type-level: `npm run typecheck` fails if a runner's test function no longer fits registerConformance.
[it, vitestTest, undefined as unknown as typeof nodeTest] satisfies ConformanceTestFunction[];

/** A client that keeps the contract: plannav's OpenAI adapter against the kit's server. */
const goodClient = (settings: ModelClientSettings): LLMClient => openai({ model: 'mock-model', ...settings });

/** `base` with its generate replaced. */
function withGenerate(base: LLMClient, generate: (request: GenerateRequest) => Promise<GenerateResult>): LLMClient {
  return { specificationVersion: 'v1', provider: base.provider, model: base.model, supportsImages: base.supportsImages, generate };
}

function caseNamed(createClient: ModelClientConformanceOptions['createClient'], name: string, caseTimeout?: number): ConformanceCase {
  const found = modelClientConformance({ wireFormat: 'openai', createClient, caseTimeout }).find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no case named ${name}`);
  return found;
}

/** Runs the case with the good client (it must pass) and with the broken one (it must fail), and returns the failure. */
async function brokenContract(name: string, broken: ModelClientConformanceOptions['createClient'], caseTimeout?: number): Promise<ConformanceError> {
  await caseNamed(goodClient, name, caseTimeout).run();
  const error = await rejectionOf<Error>(caseNamed(broken, name, caseTimeout).run());
  expect(ConformanceError.isInstance(error), String(error)).toBe(true);
  const failure = error as ConformanceError;
  expect(failure.check).toBe(name);
  expect(failure.message).toContain(`Conformance check failed: ${name}`);
  for (const line of ['Contract: ', 'Expected: ', 'Received: ', 'Fix: ']) expect(failure.message).toContain(line);
  return failure;
}

describe('modelClientConformance', () => {
  it('names every case `group › check`, once each, over the contract groups', () => {
    const names = modelClientConformance({ wireFormat: 'gemini', createClient: goodClient }).map((conformanceCase) => conformanceCase.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z ]+ › \S/);
    expect([...new Set(names.map((name) => name.split(' › ')[0]))]).toEqual([
      'client',
      'structured output',
      'usage',
      'error mapping',
      'timeouts',
      'cancellation',
      'images',
      'executor',
    ]);
  });

  it('fails a client that ignores the abort signal, naming the cancel contract', async () => {
    const failure = await brokenContract('cancellation › an abort ends a hanging call within 100 ms', (settings) => {
      const base = goodClient(settings);
      return withGenerate(base, (request) => base.generate({ ...request, signal: undefined }));
    });
    expect(failure.contract).toContain('an abort of request.signal makes generate() reject within 100 ms');
    expect(failure.received).toBe('still pending 1000 ms after the abort');
    expect(failure.fix).toContain('pass request.signal to fetch');
  });

  it('fails a client that only races the abort, leaving the HTTP request open', async () => {
    const racing = (settings: ModelClientSettings) => {
      const base = goodClient(settings);
      return withGenerate(base, (request) => raceAbort(base.generate({ ...request, signal: undefined }), request.signal));
    };
    await caseNamed(racing, 'cancellation › an abort ends a hanging call within 100 ms').run();
    const failure = await brokenContract('cancellation › an abort closes the HTTP request', racing);
    expect(failure.received).toBe('the connection still open');
  });

  it('fails a client that maps a 401 to a plain Error, and says what plannav made of it', async () => {
    const failure = await brokenContract('error mapping › 401 is a ChatModelAuthError with the provider\u2019s message', (settings) => {
      const base = goodClient(settings);
      return withGenerate(base, (request) =>
        base.generate(request).catch(() => {
          throw new Error('Request failed');
        }),
      );
    });
    expect(failure.expected).toContain('ChatModelAuthError');
    expect(failure.received).toBe(
      'Error: Request failed (plannav reads it as ChatModelError (code CHAT_MODEL_ERROR, retryable false): The model call failed: Request failed)',
    );
    expect(failure.fix).toContain('chatModelErrorFromStatus');
  });

  it('accepts errors with a numeric status as plannav reads them, but asks for Retry-After on a 429', async () => {
    const statusOnly = (settings: ModelClientSettings) => {
      const base = goodClient(settings);
      return withGenerate(base, (request) =>
        base.generate(request).catch((error: unknown) => {
          const failure = error as ChatModelError;
          throw Object.assign(new Error(failure.message), { status: failure.statusCode });
        }),
      );
    };
    await caseNamed(statusOnly, 'error mapping › 401 is a ChatModelAuthError with the provider\u2019s message').run();
    const failure = await brokenContract('error mapping › 429 is a retryable ChatModelRateLimitError with Retry-After', statusOnly);
    expect(failure.expected).toContain('retryAfterMs 7000');
    expect(failure.received).toContain('ChatModelRateLimitError');
  });

  it('fails a client that retries on its own', async () => {
    const failure = await brokenContract('error mapping › the client does not retry on its own', (settings) => {
      const base = goodClient(settings);
      return withGenerate(base, (request) => base.generate(request).catch(() => base.generate(request)));
    });
    expect(failure.received).toContain('a result');
  });

  it('fails a client that drops the cached tokens, naming the field and the mapping', async () => {
    const failure = await brokenContract('usage › maps input, output, cached and reasoning tokens', (settings) => {
      const base = goodClient(settings);
      return withGenerate(base, async (request) => {
        const result = await base.generate(request);
        return {
          ...result,
          usage: { inputTokens: result.usage?.inputTokens, outputTokens: result.usage?.outputTokens, reasoningTokens: result.usage?.reasoningTokens },
        };
      });
    });
    expect(failure.received).toContain('wrong: cachedInputTokens');
    expect(failure.fix).toContain('prompt_tokens_details.cached_tokens');
  });

  it('fails a client that ignores the timeout setting', async () => {
    const failure = await brokenContract(
      'timeouts › the client\u2019s timeout ends a hanging call with a retryable timeout error',
      ({ timeout: _ignored, ...settings }) => goodClient(settings),
    );
    expect(failure.received).toBe('still pending after 2000 ms');
  });

  it('fails a client that ignores supportsImages: false', async () => {
    const failure = await brokenContract(
      'images › a client created with supportsImages: false says so, and gets no image',
      ({ supportsImages: _ignored, ...settings }) => goodClient({ ...settings, supportsImages: true }),
    );
    expect(failure.received).toBe('supportsImages true');
  });

  it('fails a client whose calls never settle within the case timeout, saying what it waited for', async () => {
    const failure = await brokenContract(
      'structured output › returns the requested object and sends the schema',
      (settings) => withGenerate(goodClient(settings), () => new Promise<GenerateResult>(() => undefined)),
      300,
    );
    expect(failure.received).toBe('still waiting for generate() to return after 300 ms');
  });

  it('fails with a clear message when createClient throws or returns no client', async () => {
    const threw = await brokenContract('client › implements LLMClient v1', () => {
      throw new Error('missing option');
    });
    expect(threw.received).toBe('createClient threw Error: missing option');
    const nothing = await brokenContract('client › implements LLMClient v1', () => Promise.resolve(goodClient) as unknown as LLMClient);
    expect(nothing.contract).toBe('createClient returns an LLMClient');
  });

  it('closes its server after each case, when it fails too', async () => {
    const origins: string[] = [];
    const recording = (settings: ModelClientSettings) => {
      origins.push(settings.origin);
      return withGenerate(goodClient(settings), () => Promise.reject(new Error('broken')));
    };
    await rejectionOf(caseNamed(recording, 'structured output › returns the requested object and sends the schema').run());
    expect(origins).toHaveLength(1);
    const error = await rejectionOf<Error>(fetch(`${origins[0]}/v1/chat/completions`, { method: 'POST', body: '{}' }));
    expect(error).toBeInstanceOf(TypeError);
  });

  it('rejects invalid options with a ConfigError naming the field', () => {
    const invalid = [
      [
        { wireFormat: 'azure', createClient: goodClient },
        'wireFormat',
        'Option `wireFormat` of modelClientConformance must be "openai", "anthropic" or "gemini"; got "azure".',
      ],
      [
        { wireFormat: 'openai' },
        'createClient',
        'Option `createClient` of modelClientConformance must be a function that returns your LLMClient; it is missing.',
      ],
      [
        { wireFormat: 'openai', createClient: goodClient, caseTimeout: 0 },
        'caseTimeout',
        'Option `caseTimeout` of modelClientConformance must be positive; got 0.',
      ],
      [
        { wireFormat: 'openai', createClient: goodClient, timeout: 10 },
        'timeout',
        'Unknown option `timeout` of modelClientConformance. Check its spelling against ModelClientConformanceOptions.',
      ],
    ] as const;
    for (const [options, field, message] of invalid) {
      let thrown: unknown;
      try {
        modelClientConformance(options as unknown as ModelClientConformanceOptions);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigError.isInstance(thrown)).toBe(true);
      expect((thrown as ConfigError).field).toBe(field);
      expect((thrown as ConfigError).message).toBe(message);
    }
  });
});

describe('registerConformance', () => {
  it('registers each case under its name, running it', async () => {
    const ran: string[] = [];
    const cases: ConformanceCase[] = ['a › one', 'b › two'].map((name) => ({ name, run: async () => void ran.push(name) }));
    const registered: Array<{ name: string; run: () => Promise<void> }> = [];
    registerConformance(cases, (name, run) => registered.push({ name, run }));
    expect(registered.map((entry) => entry.name)).toEqual(['a › one', 'b › two']);
    for (const entry of registered) await entry.run();
    expect(ran).toEqual(['a › one', 'b › two']);
  });
});

describe('ConformanceError', () => {
  it('says which contract broke, what was expected, what came back and how to fix it', () => {
    const error = new ConformanceError({ check: 'group › check', contract: 'C', expected: 'E', received: 'R', fix: 'F', cause: 'why' });
    expect(error.name).toBe('ConformanceError');
    expect(error.message).toBe('Conformance check failed: group › check\n  Contract: C\n  Expected: E\n  Received: R\n  Fix: F');
    expect(error.cause).toBe('why');
  });

  it('is recognised across copies of the package by isInstance', () => {
    const fromAnotherCopy = Object.defineProperty(new Error('x'), Symbol.for('plannav.conformance-error'), { value: true });
    expect(ConformanceError.isInstance(fromAnotherCopy)).toBe(true);
    expect(ConformanceError.isInstance(new Error('x'))).toBe(false);
    expect(ConformanceError.isInstance(undefined)).toBe(false);
  });
});
