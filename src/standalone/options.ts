// The boundary checks of observe(), act() and extract(): a bad argument is a ConfigError naming
// the field and what it must be, before the browser or a model is touched. No browser calls here.

import { z } from 'zod';
import { browserDriverProblem } from '../browser/driver-check';
import type { BrowserDriver } from '../browser/types';
import { ConfigError } from '../errors';
import { modelRetryOptionsSchema } from '../llm/retry';

/** The members every BrowserDriver implements; the rest have defaults in the core (resolveDriver). */
/** `{ signal, timeout }`, as every standalone call takes them. */
export const callOptionsShape = {
  signal: z.custom<AbortSignal>((value) => typeof value === 'object' && value !== null && 'aborted' in value, { error: 'must be an AbortSignal' }).optional(),
  timeout: z.number({ error: 'must be a number of milliseconds' }).positive('must be a positive number of milliseconds').optional(),
};

/** A value as a message quotes it: short strings and scalars as written, anything else by its kind. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  return current;
}

/**
 * Checks `input` against `schema`. `call` names the function in messages (`observe()`), `kind`
 * what the input holds: its options, or the fields of a request.
 * @throws `ConfigError` naming the first invalid field, what it must be and what it got.
 */
export function checkArgument<S extends z.ZodType>(schema: S, input: unknown, call: string, kind: 'Option' | 'Field' = 'Option'): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0] ?? ''].join('.');
    throw new ConfigError(`Unknown ${kind.toLowerCase()} \`${field}\` of ${call}. Check its spelling.`, { field });
  }
  const field = issue.path.join('.');
  const value = valueAt(input, issue.path);
  const got = value === undefined ? 'it is missing' : `got ${describeValue(value)}`;
  throw new ConfigError(`${kind} \`${field}\` of ${call} ${issue.message}; ${got}.`, { field });
}

/**
 * Checks that `browser` is a BrowserDriver of this version.
 * @throws `ConfigError` (field `browser`) when it is not.
 */
export function checkBrowser(browser: unknown, call: string): asserts browser is BrowserDriver {
  const problem = browserDriverProblem(browser);
  if (problem !== undefined) throw new ConfigError(`The browser given to ${call} ${problem}.`, { field: 'browser' });
}

/** The `retry` option of act() and extract(): how the model call is retried (the model client's retry options). */
export const modelRetrySchema = modelRetryOptionsSchema.optional();
