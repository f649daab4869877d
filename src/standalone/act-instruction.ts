// act()'s instruction form: the model picks one action and its element on the page it is shown,
// or the action cache replays the one it picked before on this kind of page, once the replay
// matcher has found the same element again. It never acts on an element it could not re-find plainly.

import { z } from 'zod';
import { ActionRegistry } from '../actions/registry';
import type { ActionResult } from '../actions/types';
import type { PageState } from '../browser/page-state';
import { cacheAccess, type ActionCache, type ActionCacheStatus } from '../cache/action-cache';
import type { ActionCacheEntry, CachedAction } from '../cache/cache-entry';
import { hashText, structureOf, textAbove, urlSignature } from '../cache/page-signature';
import { relocate } from '../cache/relocate';
import { readFingerprints, type ReadFingerprint } from '../dom/fingerprint';
import type { ElementFingerprint } from '../history/types';
import { generateObject, type ModelRetryOptions } from '../llm/generate-object';
import { toModelJsonSchema } from '../llm/json-schema';
import type { LLMClient } from '../llm/types';
import type { TokenUsage } from '../llm/usage';
import type { SecretStore } from '../security/secrets';
import type { BrowserSession } from '../session/index';
import { actAnswerSchema, actSystemPrompt, actUserMessage } from './act-prompt';

/** What the instruction form needs of act(): the checked call, and how it runs an action under its URL policy. */
export interface InstructionCall {
  readonly instruction: string;
  /** The model, counting its calls. */
  readonly llm: LLMClient;
  readonly usage: () => TokenUsage;
  readonly cache: ActionCache | undefined;
  readonly secrets: SecretStore;
  readonly registry: ActionRegistry;
  readonly session: BrowserSession;
  readonly signal: AbortSignal;
  readonly retry?: ModelRetryOptions | undefined;
  /** Runs an action on `state` as act() runs one: URL policy, secrets, the page left when denied. */
  readonly run: (name: string, params: Readonly<Record<string, unknown>>, state: PageState) => Promise<ActionResult>;
}

/** What the instruction resolved to, and how the cache served it. */
export interface InstructionOutcome {
  readonly result: ActionResult;
  readonly action: string;
  /** The parameters the action ran with, placeholders where the model wrote secrets. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly cache: ActionCacheStatus;
}

/** Actions the model is not offered: act() has no person to ask and no memory to keep. */
const notOffered = new Set(['ask_human', 'cache_content']);
/** Actions never replayed from the cache: `done` is the model's refusal, `extract_content` calls a model itself. */
const notCached = new Set(['done', 'extract_content', 'ask_human', 'cache_content']);

/** The instruction as a key reads it: case and spacing do not make another instruction. */
function keyedInstruction(instruction: string): string {
  return instruction.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The address without its fragment: a page with other query values is another page. */
function wholeAddress(url: string): string {
  return url.replace(/#.*$/s, '');
}

/** The parameters that hold an element's index: `index`, and any `…Index` (`targetIndex`) with an index of the state. */
function elementParameters(params: Readonly<Record<string, unknown>>, state: PageState): [string, number][] {
  return Object.entries(params).flatMap(([name, value]): [string, number][] =>
    (name === 'index' || /Index$/.test(name)) && typeof value === 'number' && Number.isInteger(value) && state.elements.has(value) ? [[name, value]] : [],
  );
}

/** The page as the cache sees it: its elements' fingerprints, and the signature of its structure. */
interface CachePage {
  readonly key: string;
  readonly url: string;
  readonly pageHash: string;
  readonly structure: string;
  readonly prints: ReadonlyMap<number, ReadFingerprint>;
}

async function readCachePage(call: InstructionCall, state: PageState, instruction: string): Promise<CachePage> {
  const refs = [...state.elements.values()];
  const read = await readFingerprints(call.session.driver, refs, { signal: call.signal });
  const prints = new Map<number, ReadFingerprint>();
  refs.forEach((ref, position) => {
    const print = read[position];
    if (print) prints.set(ref.index, print);
  });
  const url = urlSignature(state.url);
  return {
    url,
    key: await hashText(JSON.stringify(['act', 1, keyedInstruction(instruction), url])),
    pageHash: await hashText(wholeAddress(state.url)),
    structure: await hashText(structureOf(read)),
    prints,
  };
}

/** Why a cached action cannot run on this page, or its parameters with the elements' indexes now. */
function replayable(
  entry: ActionCacheEntry,
  page: CachePage,
  state: PageState,
  registry: ActionRegistry,
): { readonly params: Record<string, unknown> } | { readonly reason: string } {
  const action = entry.action as CachedAction;
  if (entry.signature !== page.structure) return { reason: 'the structure of the page changed since the entry was written' };
  const known = registry.availableAt(state.url).some((item) => item.name === action.name);
  if (!known) return { reason: `the action ${action.name} is not available on this page` };
  const candidates = [...page.prints].map(([index, fingerprint]) => ({ index, fingerprint }));
  const found = relocate(action, state, candidates, entry.pageHash !== page.pageHash);
  if (!found.found) return { reason: found.reason };
  return { params: { ...action.params, ...found.indexes } };
}

/** The entry for an action the model chose and that ran without error; `undefined` when it cannot be replayed. */
function entryFor(
  call: InstructionCall,
  page: CachePage,
  state: PageState,
  instruction: string,
  name: string,
  params: Readonly<Record<string, unknown>>,
  previous: ActionCacheEntry | undefined,
): ActionCacheEntry | undefined {
  if (notCached.has(name)) return undefined;
  const elements: Record<string, ElementFingerprint> = {};
  const context: Record<string, string> = {};
  const rest: Record<string, unknown> = { ...params };
  for (const [parameter, index] of elementParameters(params, state)) {
    const print = page.prints.get(index);
    // An element without a fingerprint could not be checked on a hit: nothing is cached.
    if (!print) return undefined;
    // The frame's address keeps no query values: they may be tokens.
    elements[parameter] = { ...print, frameUrl: urlSignature(print.frameUrl) };
    context[parameter] = textAbove(state.elementsText, index);
    delete rest[parameter];
  }
  const now = Date.now();
  const entry: ActionCacheEntry = {
    version: 1,
    kind: 'act',
    instruction,
    url: page.url,
    pageHash: page.pageHash,
    signature: page.structure,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    action: { name, params: rest, elements, context },
  };
  // A value the model wrote, or an element showed, stays out of the store: its placeholder goes in.
  return call.secrets.redactDeep(entry);
}

/** Asks the model for the one action that carries out the instruction on `state`. */
async function askModel(call: InstructionCall, state: PageState): Promise<{ name: string; params: Record<string, unknown> }> {
  const offered = call.registry.availableAt(state.url).filter((action) => !notOffered.has(action.name));
  const registry = new ActionRegistry(offered);
  const jsonSchema = toModelJsonSchema(z.object({ action: z.array(registry.itemSchema(offered)).min(1).max(1) }));
  const { object } = await generateObject({
    client: call.llm,
    messages: [
      { role: 'system', content: actSystemPrompt(registry.describe()) },
      actUserMessage(call.instruction, state, call.secrets.namesFor(state.url), (text) => call.secrets.redact(text)),
    ],
    // Named as the Navigator's call: it is the Navigator's choice of one action, without the loop.
    name: 'navigator_act',
    description: 'The one action that carries out the instruction on the current page',
    schema: actAnswerSchema,
    jsonSchema,
    signal: call.signal,
    retry: call.retry,
  });
  const [first] = object.action;
  const [name, params] = Object.entries(first ?? {})[0] ?? ['', undefined];
  const record = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  return { name, params: record };
}

/**
 * Carries out `call.instruction` with one action: from the cache when its entry fits the page and
 * its elements are found again plainly (no model call), else as the model chooses; the entry is
 * then written, or replaced when there was one.
 */
export async function actOnInstruction(call: InstructionCall): Promise<InstructionOutcome> {
  const { cache, secrets, signal } = call;
  const state = await call.session.readPage({ signal, screenshot: false, settle: true });
  // The instruction as stored and reported: a value the app wrote into it becomes its placeholder.
  const instruction = secrets.redact(call.instruction);
  const store = cache ? cacheAccess(cache) : undefined;
  let page: CachePage | undefined;
  let previous: ActionCacheEntry | undefined;
  let reason: string | undefined;
  let storeError: string | undefined;
  if (store) {
    page = await readCachePage(call, state, instruction);
    const read = await store.read(page.key, 'act');
    storeError = read.error;
    previous = read.entry?.action ? read.entry : undefined;
    if (previous) {
      const replay = replayable(previous, page, state, call.registry);
      if ('params' in replay) {
        const result = await call.run(previous.action?.name ?? '', replay.params, state);
        store.report({ type: 'cache-hit', call: 'act', instruction, url: page.url, key: page.key, usage: call.usage(), storeError });
        return { result, action: previous.action?.name ?? '', params: replay.params, cache: 'hit' };
      }
      reason = replay.reason;
    }
  }

  const chosen = await askModel(call, state);
  const status: ActionCacheStatus = !store ? 'off' : previous ? 'healed' : 'miss';
  let result: ActionResult;
  if (chosen.name === 'done') {
    const said = typeof chosen.params.text === 'string' && chosen.params.text.trim() ? chosen.params.text.trim() : 'it gave no reason';
    result = { error: secrets.redact(`The model did not act on the instruction: ${said}`), includeInMemory: true };
  } else {
    result = await call.run(chosen.name, chosen.params, state);
  }
  if (store && page) {
    const entry = result.error === undefined ? entryFor(call, page, state, instruction, chosen.name, chosen.params, previous) : undefined;
    if (entry) storeError = (await store.write(page.key, entry)) ?? storeError;
    store.report({
      type: status === 'healed' ? 'cache-heal' : 'cache-miss',
      call: 'act',
      instruction,
      url: page.url,
      key: page.key,
      reason,
      usage: call.usage(),
      storeError,
    });
  }
  return { result, action: chosen.name, params: secrets.redactDeep(chosen.params), cache: status };
}
