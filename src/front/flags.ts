// The command-line flags that set up a run, read one way for every command that starts runs (`plannav run`, `ui` and
// `mcp`): the same names, the same checks and the same one-line messages, whichever door a run comes through.
// Parsing itself is Node's `util.parseArgs`; this module reads its values.

import { readFile } from 'node:fs/promises';
import type { RunConfig } from './run-config';

/** Bad usage of the command line: printed as one `plannav: …` line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Flag values as `util.parseArgs` gives them. */
export type FlagValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * The flags every run-starting command takes, as `util.parseArgs` options. A command adds its own (`plannav run`:
 * `--start-url`, `--output-schema`, `--out`, `--json`; `plannav ui`: `--start-url`, `--port`; …).
 */
export const runFlagOptions = {
  model: { type: 'string' },
  'planner-model': { type: 'string' },
  'extractor-model': { type: 'string' },
  headed: { type: 'boolean' },
  'cdp-url': { type: 'string' },
  'ws-endpoint': { type: 'string' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  scope: { type: 'string' },
  'secrets-file': { type: 'string' },
  'max-steps': { type: 'string' },
  vision: { type: 'boolean' },
  demo: { type: 'boolean' },
  // Issue 24: a Playwright trace of each run, saved beside its history.
  trace: { type: 'boolean' },
  // Staying logged in (issue 24): load a storage state at launch, save it at the end of each run.
  'storage-state': { type: 'string' },
  'save-storage-state': { type: 'string' },
} as const;

/** A string flag's value (the last one when repeated). */
export function stringFlag(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  if (Array.isArray(value)) return value.at(-1) as string | undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string flag's values, each also split on commas (`--allow a.example,b.example`). */
export function listFlag(values: FlagValues, name: string): string[] | undefined {
  const value = values[name];
  const list = Array.isArray(value) ? (value as readonly string[]) : typeof value === 'string' ? [value] : undefined;
  return list
    ?.flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** A boolean flag. */
export function booleanFlag(values: FlagValues, name: string): boolean {
  return values[name] === true;
}

/** A flag whose value must be a whole number from `minimum` to `maximum` (`--max-steps 20`). */
export function integerFlag(values: FlagValues, name: string, command: string, minimum = 1, maximum = Number.MAX_SAFE_INTEGER): number | undefined {
  const text = stringFlag(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `of ${minimum} or more` : `from ${minimum} to ${maximum}`;
    throw new UsageError(`--${name} must be an integer ${range}, got ${JSON.stringify(text)} (see plannav ${command} --help)`);
  }
  return value;
}

/** A flag whose value must be one of `choices`. */
export function choiceFlag<T extends string>(values: FlagValues, name: string, choices: readonly T[], command: string): T | undefined {
  const text = stringFlag(values, name);
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError(`--${name} must be ${choices.join(' or ')}, got ${JSON.stringify(text)} (see plannav ${command} --help)`);
  }
  return text as T;
}

/** Reads `--output-schema`: a JSON file holding a JSON Schema object. */
async function readOutputSchema(path: string): Promise<object> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`--output-schema ${path} could not be read${code === 'ENOENT' ? ': no such file' : ''}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new UsageError(`--output-schema ${path} must hold a JSON Schema object`);
  return schema;
}

/**
 * The run set-up that `values` ask for: {@link runFlagOptions}, and `--start-url` and `--output-schema` where the
 * command takes them. `demo` forces demo mode (`plannav demo`). Throws a {@link UsageError} for a bad value.
 */
export async function runConfigFromFlags(values: FlagValues, command: string, env: RunConfig['env'], demo = false): Promise<RunConfig> {
  const schemaFile = stringFlag(values, 'output-schema');
  return {
    model: stringFlag(values, 'model'),
    plannerModel: stringFlag(values, 'planner-model'),
    extractorModel: stringFlag(values, 'extractor-model'),
    startUrl: stringFlag(values, 'start-url'),
    headed: booleanFlag(values, 'headed') || undefined,
    cdpUrl: stringFlag(values, 'cdp-url'),
    wsEndpoint: stringFlag(values, 'ws-endpoint'),
    allow: listFlag(values, 'allow'),
    deny: listFlag(values, 'deny'),
    scope: choiceFlag(values, 'scope', ['navigation', 'all-requests'] as const, command),
    secretsFile: stringFlag(values, 'secrets-file'),
    maxSteps: integerFlag(values, 'max-steps', command, 1, 10_000),
    vision: booleanFlag(values, 'vision') || undefined,
    outputSchema: schemaFile ? await readOutputSchema(schemaFile) : undefined,
    demo: demo || booleanFlag(values, 'demo') || undefined,
    trace: booleanFlag(values, 'trace') || undefined,
    storageState: stringFlag(values, 'storage-state'),
    saveStorageState: stringFlag(values, 'save-storage-state'),
    env,
  };
}
