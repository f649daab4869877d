// Model cassettes: record the calls of a real model to a JSON file once, then replay them in
// deterministic tests. The files are read and written with Node's file system, reached only when a
// cassette is used (node-builtins.ts), so plannav/testing still bundles for a page; no network here.

import { z } from 'zod';
import { CassetteError, CassetteMismatchError, ConfigError, RequestCancelledError } from '../errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import {
  normalizeRequest,
  parseCassette,
  recordedResponse,
  renormalizeRequest,
  replayedResult,
  requestKey,
  serializeCassette,
  type Cassette,
  type CassetteCall,
  type CassetteRequest,
  type ShortHash,
} from './cassette-format';
import { describeMismatch, describeRequest } from './cassette-match';
import { hasNodeBuiltins, nodeBuiltin } from './node-builtins';

/** Options of {@link recordModelCalls}. @public */
export interface RecordModelCallsOptions {
  /**
   * More text to leave out of the recorded requests, as volatile: each match is written as
   * `(ignored)`. plannav's own volatile text (the state message's date and time) is always left
   * out. Give the same patterns to {@link replayModelCalls}.
   * @defaultValue none
   * @example
   * ```ts
   * // A fixture server on a random port: its URLs differ from run to run.
   * recordModelCalls(llm, file, { ignore: [/127\.0\.0\.1:\d+/g] });
   * ```
   */
  readonly ignore?: readonly RegExp[] | undefined;
}

/** Options of {@link replayModelCalls}. @public */
export interface ReplayModelCallsOptions {
  /**
   * `replay` answers only from the cassette: a request it has no answer for fails with a
   * `CassetteMismatchError`. `auto` sends such a request to `llm` and appends the call to the
   * cassette, which need not exist yet.
   * @defaultValue 'replay'
   * @example
   * ```ts
   * const llm = await replayModelCalls(file, { mode: process.env.RECORD ? 'auto' : 'replay', llm: realModel });
   * ```
   */
  readonly mode?: 'replay' | 'auto' | undefined;
  /** The model that answers, in mode `auto`, the requests the cassette has no answer for. Unused in mode `replay`. */
  readonly llm?: LLMClient | undefined;
  /**
   * More text to leave out of matching, as volatile: each match, in the recorded requests and in
   * the new ones, counts as `(ignored)`.
   * @defaultValue none
   * @example
   * ```ts
   * await replayModelCalls(file, { ignore: [/127\.0\.0\.1:\d+/g] });
   * ```
   */
  readonly ignore?: readonly RegExp[] | undefined;
  /**
   * Whether images must have the same bytes to match. Set false when screenshots differ from run
   * to run (a real browser's rendering): images then match by their place and media type alone.
   * @defaultValue true
   * @example
   * ```ts
   * await replayModelCalls(file, { matchImageData: false });
   * ```
   */
  readonly matchImageData?: boolean | undefined;
}

/** The file system a cassette is read from and written to: Node's, loaded on first use. */
interface CassetteFiles {
  readonly readFile: (path: string, encoding: 'utf8') => Promise<string>;
  readonly writeFile: (path: string, text: string) => Promise<void>;
  readonly rename: (from: string, to: string) => Promise<void>;
  readonly unlink: (path: string) => Promise<void>;
  readonly mkdir: (path: string, options: { recursive: true }) => Promise<unknown>;
  readonly dirname: (path: string) => string;
}

let cassetteFiles: Promise<CassetteFiles | undefined> | undefined;

function loadFiles(): Promise<CassetteFiles | undefined> {
  cassetteFiles ??= Promise.all([nodeBuiltin('node:fs/promises'), nodeBuiltin('node:path')]).then(([fs, path]) =>
    fs && path
      ? {
          readFile: (file, encoding) => fs.readFile(file, encoding),
          writeFile: (file, text) => fs.writeFile(file, text, 'utf8'),
          rename: (from, to) => fs.rename(from, to),
          unlink: (file) => fs.unlink(file),
          mkdir: (folder, options) => fs.mkdir(folder, options),
          dirname: (file) => path.dirname(file),
        }
      : undefined,
  );
  return cassetteFiles;
}

/** Says, as a `CassetteError` naming `file`, that this runtime has no file system for cassettes. */
function noFileSystem(file: string): CassetteError {
  return new CassetteError(
    `The cassette ${file} cannot be read or written here: cassettes are files, and this runtime (a page or an extension's worker) has no file system. ` +
      'Record and replay cassettes in tests run by Node (or Bun, Deno); in a page or an extension, script the model with ScriptedLLM.',
    { file },
  );
}

/** The file system for the cassette `file`; a `CassetteError` where there is none. */
async function filesFor(file: string): Promise<CassetteFiles> {
  const files = await loadFiles();
  if (!files) throw noFileSystem(file);
  return files;
}

/** SHA-256 of `text` (UTF-8) in hex, cut to 16 characters, with the Web Crypto API (Node, Bun, Deno and browsers have it). */
const shortHash: ShortHash = async (text) => {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, 16);
};

/**
 * Writes the cassette to a temporary file beside `file`, then renames it over `file`: a crash
 * leaves the previous complete cassette, never half of one.
 */
async function writeCassette(file: string, cassette: Cassette): Promise<void> {
  const node = await filesFor(file);
  const temporary = `${file}.${globalThis.crypto.randomUUID()}.tmp`;
  try {
    await node.mkdir(node.dirname(file), { recursive: true });
    await node.writeFile(temporary, serializeCassette(cassette));
    await node.rename(temporary, file);
  } catch (error) {
    await node.unlink(temporary).catch(() => undefined);
    throw new CassetteError(`The cassette ${file} could not be written: ${(error as Error).message}`, { file, cause: error });
  }
}

/** Runs writes one after the other, each with the cassette as it is when its turn comes. */
function serialWriter(file: string, snapshot: () => Cassette): () => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const write = last.then(() => writeCassette(file, snapshot()));
    last = write.catch(() => undefined);
    return write;
  };
}

function checkFile(file: unknown, functionName: string): asserts file is string {
  if (typeof file !== 'string' || file.length === 0) {
    throw new ConfigError(`The file of ${functionName} must be a non-empty path, got ${JSON.stringify(file) ?? String(file)}.`, { field: 'file' });
  }
}

const llmSchema = z.custom<LLMClient>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { generate?: unknown }).generate === 'function',
  'must be an LLMClient (an object with a generate method)',
);
const ignoreSchema = z.array(z.instanceof(RegExp, { error: 'must be a regular expression' })).optional();
const recordOptionsSchema = z.object({ ignore: ignoreSchema }).strict();
const replayOptionsSchema = z
  .object({ mode: z.enum(['replay', 'auto']).optional(), llm: llmSchema.optional(), ignore: ignoreSchema, matchImageData: z.boolean().optional() })
  .strict();

function checkOptions<T>(schema: z.ZodType<T>, options: unknown, typeName: string): T {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    throw new ConfigError(`Unknown option \`${issue.keys[0] ?? ''}\` of ${typeName}.`, { field: issue.keys[0] });
  }
  const field = issue?.path.join('.') ?? '';
  throw new ConfigError(`Option \`${field}\` of ${typeName} is invalid: ${issue?.message ?? 'unexpected value'}.`, { field });
}

function throwIfCancelled(request: GenerateRequest): void {
  if (request.signal?.aborted) throw new RequestCancelledError('The model call was cancelled.', { cause: request.signal.reason });
}

/**
 * Wraps a model client so that each call it answers is stored in a cassette file, for
 * {@link replayModelCalls} to answer the same requests later without the model.
 *
 * @remarks
 * The file is written after every call, to a temporary file renamed over `file`, so a run that
 * crashes keeps every call answered before it. A new recording replaces the file at its first
 * call; its folder is created if need be. Each call is stored as its normalised request (see
 * {@link replayModelCalls}) and the answer's `text`, `object`, `usage` and `finishReason`: never
 * the provider's `raw` response, request id, headers or API key, nor the call's signal or timeout.
 *
 * Only successful answers are recorded: a call that fails is passed on to the caller as it is and
 * leaves no entry. When the Executor retries such a call, the answer of the try that succeeded is
 * what a replay gives at once. Use one file per client (a Planner and a Navigator on different
 * models need two).
 *
 * @param llm - The real model client, whose answers are recorded.
 * @param file - The cassette file to write, such as `test/cassettes/checkout.json`.
 * @returns A client with `llm`'s `provider`, `model` and `supportsImages`.
 * @throws `ConfigError` at once for an invalid `file` or option; `CassetteError` at once in a runtime
 * with no file system (a page, an extension's worker), and from `generate` when the file cannot be written.
 * @example
 * ```ts
 * import { createLLM } from 'plannav/models';
 * import { recordModelCalls } from 'plannav/testing';
 *
 * const llm = recordModelCalls(createLLM('openai:gpt-4.1-mini'), 'test/cassettes/mugs.json');
 * const result = await new Executor({ task: 'What does the blue mug cost?', llm, browser }).execute();
 * ```
 * @public
 */
export function recordModelCalls(llm: LLMClient, file: string, options?: RecordModelCallsOptions): LLMClient {
  checkFile(file, 'recordModelCalls');
  if (!hasNodeBuiltins()) throw noFileSystem(file);
  if (!llmSchema.safeParse(llm).success) {
    throw new ConfigError('The llm of recordModelCalls must be an LLMClient (an object with a generate method).', { field: 'llm' });
  }
  const client = llm;
  const { ignore = [] } = checkOptions(recordOptionsSchema, options, 'RecordModelCallsOptions');
  const calls: CassetteCall[] = [];
  const snapshot = (): Cassette => ({
    provider: client.provider,
    model: client.model,
    ...(client.supportsImages === undefined ? {} : { supportsImages: client.supportsImages }),
    calls,
  });
  const save = serialWriter(file, snapshot);
  return {
    specificationVersion: 'v1',
    provider: client.provider,
    model: client.model,
    ...(client.supportsImages === undefined ? {} : { supportsImages: client.supportsImages }),
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const result = await client.generate(request);
      calls.push({ request: await normalizeRequest(request, ignore, shortHash), response: recordedResponse(result) });
      await save();
      return result;
    },
  };
}

async function readCassette(file: string, allowMissing: boolean): Promise<Cassette | undefined> {
  const files = await filesFor(file);
  let text: string;
  try {
    text = await files.readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') {
      if (allowMissing) return undefined;
      throw new CassetteError(
        `The cassette ${file} does not exist. Record it first with recordModelCalls, or replay with mode 'auto' and an llm to record the missing calls.`,
        { file, cause: error },
      );
    }
    throw new CassetteError(`The cassette ${file} could not be read: ${(error as Error).message}`, { file, cause: error });
  }
  return parseCassette(text, file);
}

/** A recorded call as replay keeps it: renormalised, with its key and whether it was used. */
interface ReplayEntry {
  readonly call: CassetteCall;
  readonly request: CassetteRequest;
  readonly key: string;
  used: boolean;
}

/**
 * Reads a cassette written by {@link recordModelCalls} and returns a model client that answers
 * from it: the same requests get the same answers (`text`, `object`, `usage`, `finishReason`),
 * with no model and no network.
 *
 * @remarks
 * Requests are matched on a normalised form: each message's role and text, exactly, with images
 * by a short SHA-256 hash of their data (not the base64 itself); the requested output's name,
 * description and a hash of its schema (keys in any order); `temperature` and `maxOutputTokens`.
 * The signal and `timeout` of a call do not count. Volatile text is left out, written as
 * `(ignored)`: the date and time of the state message (`Current date and time: 2025-01-31 14:05`)
 * and whatever the `ignore` patterns match. Nothing else of plannav's prompts changes between
 * runs: tab ids are counted from `tab-1` in each run, and task ids never reach the model.
 *
 * Identical requests are answered in recorded order: the third identical request gets the third
 * recorded answer. A request with no answer left fails with a `CassetteMismatchError` that names
 * the closest recorded call and where the request first differs from it (message, role, and the
 * text around the first differing character); the Executor ends the task with it at once, with no
 * retry. In mode `auto`, such a request goes to `options.llm` instead, and the call is appended
 * to the cassette.
 *
 * The client's `provider`, `model` and `supportsImages` are the recorded client's (in mode `auto`
 * without a file yet, those of `options.llm`).
 *
 * @param file - The cassette file to read.
 * @throws `CassetteError` when the file is missing (unless mode is `auto`), unreadable, not JSON,
 * malformed or of a newer cassette version, or in a runtime with no file system (a page, an
 * extension's worker); `ConfigError` for invalid options.
 * @example
 * ```ts
 * import { FakeBrowserDriver, replayModelCalls } from 'plannav/testing';
 *
 * const llm = await replayModelCalls('test/cassettes/mugs.json');
 * const result = await new Executor({ task: 'What does the blue mug cost?', llm, browser: new FakeBrowserDriver({ pages }) }).execute();
 * expect(result.finalAnswer).toBe('The blue mug costs $12.');
 * ```
 * @public
 */
export async function replayModelCalls(file: string, options?: ReplayModelCallsOptions): Promise<LLMClient> {
  checkFile(file, 'replayModelCalls');
  const { mode = 'replay', llm, ignore = [], matchImageData = true } = checkOptions(replayOptionsSchema, options, 'ReplayModelCallsOptions');
  if (mode === 'auto' && llm === undefined) {
    throw new ConfigError("Option `llm` of ReplayModelCallsOptions is required in mode 'auto': it answers the requests the cassette has none for.", {
      field: 'llm',
    });
  }
  const loaded = await readCassette(file, mode === 'auto');
  const cassette: Cassette = loaded ?? {
    provider: llm?.provider ?? 'unknown',
    model: llm?.model ?? 'unknown',
    ...(llm?.supportsImages === undefined ? {} : { supportsImages: llm.supportsImages }),
    calls: [],
  };
  const entries: ReplayEntry[] = cassette.calls.map((call) => {
    const request = renormalizeRequest(call.request, ignore);
    return { call, request, key: requestKey(request, matchImageData), used: false };
  });
  const save = serialWriter(file, () => ({ ...cassette, calls: entries.map((entry) => entry.call) }));
  return {
    specificationVersion: 'v1',
    provider: cassette.provider,
    model: cassette.model,
    ...(cassette.supportsImages === undefined ? {} : { supportsImages: cassette.supportsImages }),
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      throwIfCancelled(request);
      const normalized = await normalizeRequest(request, ignore, shortHash);
      const key = requestKey(normalized, matchImageData);
      const entry = entries.find((candidate) => !candidate.used && candidate.key === key);
      if (entry) {
        entry.used = true;
        return replayedResult(entry.call.response);
      }
      if (mode === 'auto' && llm) {
        const result = await llm.generate(request);
        entries.push({ call: { request: normalized, response: recordedResponse(result) }, request: normalized, key, used: true });
        await save();
        return result;
      }
      const mismatch = describeMismatch(normalized, key, entries, matchImageData);
      throw new CassetteMismatchError(
        `No recorded call in the cassette ${file} answers this model call (${describeRequest(normalized)}). ${mismatch.report}\n` +
          "Record the cassette again (recordModelCalls, or replayModelCalls with mode 'auto' and an llm), or find what made the request change.",
        { file, closestCall: mismatch.closestCall, difference: mismatch.difference },
      );
    },
  };
}
