// The history format as a zod schema: what a saved history must hold to be read back, the
// migrations that bring older versions up to this one, and the typed error for the rest.

import { z } from 'zod';
import { HistoryFormatError } from '../errors';
import { historySchemaVersion, type RunHistory } from './types';

const count = z.number().nonnegative();
const time = z.number();

const errorInfoSchema = z.object({ name: z.string(), code: z.string(), message: z.string(), retryable: z.boolean() });

const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  reasoningTokens: count,
  totalTokens: count,
  calls: count,
  // JSON has no undefined: a usage without a price is saved without `costUsd`.
  costUsd: count.optional(),
});

const boxSchema = z.object({ x: time, y: time, width: count, height: count });

/** The fingerprint of an element an action acted on. @public */
export const elementFingerprintSchema = z.object({
  tagName: z.string(),
  role: z.string().optional(),
  name: z.string(),
  text: z.string(),
  attributes: z.record(z.string(), z.string()),
  xpath: z.string(),
  cssPath: z.string(),
  ancestors: z.array(z.object({ tagName: z.string(), role: z.string().optional(), name: z.string().optional(), id: z.string().optional() })),
  box: boxSchema.optional(),
  record: z.object({ name: z.string(), from: z.enum(['label', 'heading', 'link', 'cell']), scope: z.enum(['item', 'page']) }).optional(),
  disabled: z.boolean().optional(),
  checked: z.boolean().optional(),
  frameUrl: z.string(),
});

const actionSchema = z.object({
  name: z.string(),
  params: z.unknown(),
  result: z.string().optional(),
  error: errorInfoSchema.optional(),
  includeInMemory: z.boolean(),
  isDone: z.boolean(),
  success: z.boolean().optional(),
  data: z.unknown().optional(),
  element: z.object({ index: z.number().int(), tagName: z.string(), selector: z.string().optional() }).optional(),
  fingerprint: elementFingerprintSchema.optional(),
  startedAt: time,
  durationMs: count,
});

const planSchema = z.object({
  observation: z.string(),
  challenges: z.string(),
  done: z.boolean(),
  nextSteps: z.string(),
  finalAnswer: z.string(),
  reasoning: z.string(),
  webTask: z.boolean(),
});

const actorSchema = z.enum(['planner', 'navigator', 'validator']);

const stepSchema = z.object({
  taskId: z.string(),
  taskIndex: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  actor: actorSchema,
  startedAt: time,
  endedAt: time,
  durationMs: count,
  browser: z
    .object({
      url: z.string(),
      title: z.string(),
      tabs: z.number().int().nonnegative(),
      tabList: z.array(z.object({ id: z.string(), url: z.string(), title: z.string() })),
      activeTabId: z.string(),
    })
    .optional(),
  modelOutput: z.unknown(),
  plan: planSchema.optional(),
  actions: z.array(actionSchema),
  error: errorInfoSchema.optional(),
  usage: usageSchema,
  modelCalls: z.array(
    z.object({
      actor: actorSchema,
      provider: z.string(),
      model: z.string(),
      attempt: z.number().int().positive(),
      usage: usageSchema,
      durationMs: count,
      error: errorInfoSchema.optional(),
    }),
  ),
  fallbacks: z.array(z.object({ from: z.string(), to: z.string(), error: errorInfoSchema })).optional(),
  screenshot: z
    .object({
      // A file name beside the history: no folders, no way out of it.
      part: z
        .string()
        .regex(/^[\w.-]+$/, 'a file name of letters, digits, "_", "-" and "."')
        .refine((name) => !name.startsWith('.'), 'must not start with "."'),
      mediaType: z.enum(['image/jpeg', 'image/png']),
    })
    .optional(),
  // Downloads (issue 24).
  downloads: z
    .array(
      z.object({
        url: z.string(),
        suggestedFilename: z.string(),
        path: z.string().optional(),
        bytes: count.optional(),
        mimeType: z.string().optional(),
        status: z.enum(['saved', 'blocked', 'too-large', 'failed']),
        reason: z.string().optional(),
      }),
    )
    .optional(),
});

const taskSchema = z.object({
  taskId: z.string(),
  task: z.string(),
  startedAt: time,
  endedAt: time.optional(),
  status: z.enum(['ok', 'failed', 'cancelled', 'timed-out', 'max-steps']).optional(),
  finalAnswer: z.string().optional(),
  error: errorInfoSchema.optional(),
  data: z.unknown().optional(),
});

/**
 * The JSON form of a {@link RunHistory} of the current {@link historySchemaVersion}: everything
 * but the screenshot bytes, which are saved beside it. Older versions are read by
 * {@link parseHistory}, which migrates them first.
 * @public
 */
export const runHistorySchema = z.object({
  schemaVersion: z.literal(historySchemaVersion),
  tasks: z.array(taskSchema),
  steps: z.array(stepSchema),
});

/** A history as JSON, before its migration to the current version. */
type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Version 1 (plannav 0.1) to 2: `version` became `schemaVersion`; steps gained `modelCalls` (one
 * entry per call was not kept: left empty), the browser's tab list and active tab (only the tab
 * count was kept: empty); actions gained `startedAt` (taken as the step's start).
 */
function migrateFrom1(history: JsonObject): JsonObject {
  const { version: _version, ...rest } = history;
  const steps = Array.isArray(history.steps) ? history.steps : [];
  return {
    ...rest,
    schemaVersion: 2,
    steps: steps.map((step: unknown) => {
      if (!isObject(step)) return step;
      const browser = isObject(step.browser) ? { ...step.browser, tabList: [], activeTabId: '' } : step.browser;
      const actions = Array.isArray(step.actions) ? step.actions : [];
      return {
        ...step,
        browser,
        modelCalls: [],
        actions: actions.map((action: unknown) => (isObject(action) ? { startedAt: step.startedAt, ...action } : action)),
      };
    }),
  };
}

/** The migrations, by the version they read; each returns the next version. */
const migrations: Readonly<Record<number, (history: JsonObject) => JsonObject>> = { 1: migrateFrom1 };

/** The declared version of a history: `schemaVersion`, or `version` in version 1 files. */
function versionOf(history: JsonObject): unknown {
  return history.schemaVersion ?? history.version;
}

/** The path of a zod issue, as `steps[3].actions[0].name`. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
}

/**
 * Reads a history from its JSON form, of this version or an older one (migrated on the way).
 * `screenshots` are the bytes of the parts its steps name, when the caller has them.
 * @throws `HistoryFormatError`: `HISTORY_VERSION` for a history of a newer version than this
 * release reads, `HISTORY_INVALID` naming the first field at fault.
 * @public
 */
export function parseHistory(json: unknown, screenshots: ReadonlyMap<string, Uint8Array> = new Map()): RunHistory {
  if (!isObject(json)) throw new HistoryFormatError(`A history must be a JSON object; got ${Array.isArray(json) ? 'an array' : typeof json}.`);
  let history = json;
  let version = versionOf(history);
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new HistoryFormatError(`The history has no valid \`schemaVersion\` (got ${JSON.stringify(version) ?? 'none'}); it is not a plannav history.`, {
      field: 'schemaVersion',
    });
  }
  if (version > historySchemaVersion) {
    throw new HistoryFormatError(
      `The history has schema version ${version}, newer than the version ${historySchemaVersion} this release of plannav reads: upgrade plannav to read it.`,
      { code: 'HISTORY_VERSION', field: 'schemaVersion', schemaVersion: version },
    );
  }
  const declared = version;
  while (version < historySchemaVersion) {
    const migrate = migrations[version];
    if (!migrate) throw new HistoryFormatError(`No migration reads schema version ${version}.`, { field: 'schemaVersion', schemaVersion: declared });
    history = migrate(history);
    version++;
  }
  const parsed = runHistorySchema.safeParse(history);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? fieldPath(issue.path) : undefined;
    throw new HistoryFormatError(`The history is invalid at \`${field || '(root)'}\`: ${issue?.message ?? 'it does not match the format'}.`, {
      field,
      schemaVersion: declared,
      cause: parsed.error,
    });
  }
  // Validated: the JSON form is the history without its undefined fields, which JSON drops.
  return { ...(parsed.data as unknown as Omit<RunHistory, 'screenshots'>), screenshots };
}
