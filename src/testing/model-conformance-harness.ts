// The machinery under every check of the model-client conformance kit: one loopback server per
// case, the user's client built against it, bounded waits, and failures worded as broken
// contracts. It must not hold a check itself, and nothing it starts may outlive its case.

import type { PlannavError } from '../errors';
import { toCallError } from '../llm/model-errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { ConformanceError, describeValue, type ConformanceCase, type ConformanceErrorOptions } from './conformance';
import type { ModelClientSettings } from './model-conformance';
import { LoopbackServer } from './model-conformance-server';
import type { Answer, WireCall, WireFormatSpec } from './model-conformance-wire';

/** How a check builds the client under test. */
export type ClientFactory = (settings: ModelClientSettings) => LLMClient;

/** The per-client settings a check may choose. */
export interface ClientChoice {
  readonly timeout?: number | undefined;
  readonly supportsImages?: boolean | undefined;
}

/** What one check works with: its server, the calls it received, and failure helpers. */
export interface CaseContext {
  readonly check: string;
  readonly format: WireFormatSpec;
  readonly server: LoopbackServer;
  /** Every request the server received, read back. */
  readonly calls: WireCall[];
  /** Answers the next requests with these, in order, before the responder. */
  enqueue(...answers: Answer[]): void;
  /** Answers the requests once the queue is empty. */
  answer(respond: (call: WireCall) => Answer): void;
  /** Builds the client under test against this case's server. */
  client(choice?: ClientChoice): LLMClient;
  /** A failure of this check. */
  fail(details: Omit<ConformanceErrorOptions, 'check'>): ConformanceError;
  /** Says what the check is waiting for, for the message if the case runs out of time. */
  waitingFor(step: string): void;
  /** Calls `generate` and expects a result; a rejection fails the check under `contract`. */
  generate(client: LLMClient, request: GenerateRequest, contract: string): Promise<GenerateResult>;
  /** Calls `generate` and expects a rejection, returned raw and as plannav reads it. */
  generateError(client: LLMClient, request: GenerateRequest, contract: string): Promise<ThrownError>;
  /** Waits (bounded) until the server received at least `count` requests. */
  waitForCalls(count: number, what: string): Promise<void>;
}

/** What a client threw, and the typed error plannav turns it into (the Executor does the same). */
export interface ThrownError {
  readonly raw: unknown;
  readonly typed: PlannavError;
}

/** A check of the kit, before it is bound to a wire format and a client factory. */
export interface ModelCheck {
  readonly name: string;
  run(context: CaseContext): Promise<void>;
}

/** The API key the kit hands to clients; distinctive, so the server can find it wherever it is sent. */
export const conformanceApiKey = 'plannav-conformance-key-7f3a';

const pollMs = 5;

/** `thrown` as the received line: the raw error, and plannav's reading of it when that differs. */
export function describeThrown(thrown: ThrownError): string {
  const raw = describeValue(thrown.raw);
  return thrown.raw === thrown.typed ? raw : `${raw} (plannav reads it as ${describeValue(thrown.typed)})`;
}

/** Runs `body`, failing with `onTimeout()` when it takes longer than `ms`. */
export async function within<T>(body: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([body, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Turns a check into a case: a fresh server, the user's client against it, a time bound, cleanup. */
export function toConformanceCase(check: ModelCheck, format: WireFormatSpec, createClient: ClientFactory, caseTimeout: number): ConformanceCase {
  return {
    name: check.name,
    run: async () => {
      const server = await LoopbackServer.start();
      const calls: WireCall[] = [];
      const queue: Answer[] = [];
      let respond: ((call: WireCall) => Answer) | undefined;
      let step = 'running the check';
      server.setResponder((request) => {
        const call = format.read(request);
        calls.push(call);
        const answer = queue.shift() ?? respond?.(call) ?? { status: 500, message: 'The conformance server had no answer scripted for this request.' };
        return format.write(answer, request);
      });
      const fail = (details: Omit<ConformanceErrorOptions, 'check'>): ConformanceError => new ConformanceError({ check: check.name, ...details });
      const context: CaseContext = {
        check: check.name,
        format,
        server,
        calls,
        enqueue: (...answers) => queue.push(...answers),
        answer: (next) => {
          respond = next;
        },
        client: (choice = {}) => buildClient(createClient, server, format, choice, fail),
        fail,
        waitingFor: (next) => {
          step = next;
        },
        generate: async (client, request, contract) => {
          step = 'waiting for generate() to return';
          try {
            return await client.generate(request);
          } catch (error) {
            throw fail({
              contract,
              expected: 'generate() to resolve with the reply',
              received: `a rejection: ${describeValue(error)}`,
              fix: `read the ${format.name} response the server sent (status 200) and return it as a GenerateResult`,
              cause: error,
            });
          }
        },
        generateError: async (client, request, contract) => {
          step = 'waiting for generate() to reject';
          let result: GenerateResult;
          try {
            result = await client.generate(request);
          } catch (error) {
            return { raw: error, typed: toCallError(error, request.signal) };
          }
          throw fail({
            contract,
            expected: 'generate() to reject',
            received: `a result: ${describeValue(result)}`,
            fix: 'throw when the server answers with an error status or the call fails',
          });
        },
        waitForCalls: async (count, what) => {
          step = `waiting for ${what}`;
          // Bounded by the case's time limit as well; the poll count keeps the loop finite on its own.
          for (let tries = 0; tries < caseTimeout / pollMs && calls.length < count; tries++) await new Promise((resolve) => setTimeout(resolve, pollMs));
          if (calls.length < count) {
            throw fail({
              contract: 'generate() sends its request to the baseURL it was given',
              expected: `${count} request(s) at ${server.url}`,
              received: `${calls.length}`,
              fix: 'build the client with the `baseURL` (or `origin`) and `apiKey` the kit passes to createClient',
            });
          }
        },
      };
      try {
        await within(check.run(context), caseTimeout, () =>
          fail({
            contract: 'every call of the client ends: with a result, an error, a timeout or a cancel',
            expected: `the check to finish within ${caseTimeout} ms`,
            received: `still ${step} after ${caseTimeout} ms`,
            fix: 'make sure generate() settles: honour `timeout` and `signal`, and reject when the connection fails',
          }),
        );
      } finally {
        await server.close();
      }
    },
  };
}

function buildClient(
  createClient: ClientFactory,
  server: LoopbackServer,
  format: WireFormatSpec,
  choice: ClientChoice,
  fail: (details: Omit<ConformanceErrorOptions, 'check'>) => ConformanceError,
): LLMClient {
  const settings: ModelClientSettings = {
    baseURL: `${server.url}${format.basePath}`,
    origin: server.url,
    apiKey: conformanceApiKey,
    ...(choice.timeout !== undefined ? { timeout: choice.timeout } : {}),
    ...(choice.supportsImages !== undefined ? { supportsImages: choice.supportsImages } : {}),
  };
  let client: unknown;
  try {
    client = createClient(settings);
  } catch (error) {
    throw fail({
      contract: 'createClient builds a client from the settings the kit passes',
      expected: 'an LLMClient',
      received: `createClient threw ${describeValue(error)}`,
      fix: `accept ${describeValue(settings)}`,
      cause: error,
    });
  }
  const candidate = client as Partial<LLMClient> | undefined;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.generate !== 'function') {
    throw fail({
      contract: 'createClient returns an LLMClient',
      expected: 'an object with a generate() method',
      received: describeValue(client),
      fix: 'return the client from createClient (not a promise of it)',
    });
  }
  return candidate as LLMClient;
}
