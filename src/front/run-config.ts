// The options every front door (the `plannav` command, `plannav mcp`, `plannav ui`) turns into a
// run, and their check. Plain data only: opening a browser or a model is run-session.ts's job.

import { ConfigError } from '../index';

/**
 * How a run is set up, in the words of the command line: what `plannav run`, `plannav mcp` and
 * `plannav ui` accept, and what `openRunSession` (internal) turns into a model, a browser and the
 * Executor's options.
 */
export interface RunConfig {
  /** The model, as `provider:model` for `createLLM` (`openai:gpt-4.1-mini`); required unless `demo`. */
  readonly model?: string | undefined;
  /** The Planner's model, as `provider:model`. @defaultValue `model` */
  readonly plannerModel?: string | undefined;
  /** The model `extract_content` uses, as `provider:model`. @defaultValue `model` */
  readonly extractorModel?: string | undefined;
  /** The page the browser opens before the task starts (it must be one the URL policy allows). */
  readonly startUrl?: string | undefined;
  /** Show the browser window. @defaultValue false (headless) */
  readonly headed?: boolean | undefined;
  /** Drive a running Chromium through its CDP endpoint (`http://127.0.0.1:9222`) instead of launching one. */
  readonly cdpUrl?: string | undefined;
  /** Drive a Playwright browser server through its WebSocket endpoint instead of launching a browser. */
  readonly wsEndpoint?: string | undefined;
  /** Hosts (URL policy entries) the browser may load; every other one is refused. @defaultValue every http(s) host */
  readonly allow?: readonly string[] | undefined;
  /** Hosts (URL policy entries) the browser may never load. */
  readonly deny?: readonly string[] | undefined;
  /** What the URL policy checks: page loads only, or every request too. @defaultValue 'navigation' */
  readonly scope?: 'navigation' | 'all-requests' | undefined;
  /** A dotenv file of secrets (`NAME=value`): the model sees the names only; values are never printed or logged. */
  readonly secretsFile?: string | undefined;
  /** The most Navigator steps a task may take. @defaultValue 100 (the Executor's) */
  readonly maxSteps?: number | undefined;
  /** Send a screenshot of the page with each state. @defaultValue false */
  readonly vision?: boolean | undefined;
  /** A JSON Schema (an object): the task's `done` must return data of this shape, as the result's typed `data`. */
  readonly outputSchema?: object | undefined;
  /** Serve the demo shop on 127.0.0.1 and use its scripted model (no key needed) unless `model` names a real one. */
  readonly demo?: boolean | undefined;
  /** In demo mode, milliseconds each call of the scripted model takes (so a call in flight can be seen, paused, stopped). @defaultValue 0 */
  readonly demoStepDelayMs?: number | undefined;
  /** Where API keys are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Record a Playwright trace of each run, saved as trace.zip beside its history (a launched browser only; issue 24). @defaultValue false */
  readonly trace?: boolean | undefined;
  // Staying logged in (issue 24).
  /** A storage-state file (Playwright's format) the launched browser starts with, logged in. Not with `cdpUrl` or `wsEndpoint`. */
  readonly storageState?: string | undefined;
  /** Where each saved run also writes the browser's storage state at its end (mode 0600): the login, for `storageState` next time. */
  readonly saveStorageState?: string | undefined;
}

/**
 * A model's provider needs an API key and the environment has none: `variables` are the names
 * any one of which may hold it.
 */
export class MissingApiKeyError extends ConfigError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'MissingApiKeyError';
  /** The environment variables the provider reads its key from (the first one set wins). */
  readonly variables: readonly string[];
  /** The model spec that needs the key, such as `openai:gpt-4.1-mini`. */
  readonly model: string;

  /** Creates the error for `model`, whose key may be in any of `variables`. */
  constructor(model: string, variables: readonly string[], options: { readonly cause?: unknown; readonly field?: string } = {}) {
    super(`The model ${model} needs an API key: set ${variables.join(' or ')} in the environment, or choose another model.`, {
      field: options.field ?? 'model',
      cause: options.cause,
    });
    this.variables = variables;
    this.model = model;
  }
}

const scopes = ['navigation', 'all-requests'] as const;

/** `value` when it is a list of non-empty strings, else a ConfigError naming `field`. */
function hostList(value: unknown, field: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || !entry.trim())) {
    throw new ConfigError(`Option \`${field}\` must be a list of hosts (such as shop.example or *.shop.example).`, { field });
  }
  return value.map((entry: string) => entry.trim());
}

/**
 * Checks a run's options before anything is opened.
 * @throws `ConfigError` naming the option at fault and what it must be.
 */
export function checkRunConfig(config: RunConfig): RunConfig {
  if (typeof config !== 'object' || config === null) throw new ConfigError('The run options must be an object.');
  for (const field of [
    'model',
    'plannerModel',
    'extractorModel',
    'startUrl',
    'cdpUrl',
    'wsEndpoint',
    'secretsFile',
    'storageState',
    'saveStorageState',
  ] as const) {
    const value = config[field];
    if (value !== undefined && (typeof value !== 'string' || !value.trim())) {
      throw new ConfigError(`Option \`${field}\` must be a non-empty string; got ${JSON.stringify(value)}.`, { field });
    }
  }
  for (const field of ['model', 'plannerModel', 'extractorModel'] as const) {
    const value = config[field];
    if (value !== undefined && value.indexOf(':') <= 0) {
      throw new ConfigError(
        `Option \`${field}\` must be provider:model, such as openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5; got ${JSON.stringify(value)}.`,
        {
          field,
        },
      );
    }
  }
  if (config.cdpUrl && config.wsEndpoint) {
    throw new ConfigError('Give one of `cdpUrl` (a Chromium CDP endpoint) and `wsEndpoint` (a Playwright server), not both.', { field: 'cdpUrl' });
  }
  for (const field of ['startUrl', 'cdpUrl', 'wsEndpoint'] as const) {
    const value = config[field];
    if (value !== undefined && !URL.canParse(value)) throw new ConfigError(`Option \`${field}\` must be a URL; got ${JSON.stringify(value)}.`, { field });
  }
  if (config.headed && (config.cdpUrl || config.wsEndpoint)) {
    throw new ConfigError('Option `headed` applies to a browser plannav launches, not to one it connects to (`cdpUrl`, `wsEndpoint`).', { field: 'headed' });
  }
  if (config.storageState && (config.cdpUrl || config.wsEndpoint)) {
    throw new ConfigError(
      'Option `storageState` applies to a browser plannav launches, not to one it connects to (`cdpUrl`, `wsEndpoint`): that browser keeps its own logins.',
      { field: 'storageState' },
    );
  }
  hostList(config.allow, 'allow');
  hostList(config.deny, 'deny');
  if (config.scope !== undefined && !scopes.includes(config.scope)) {
    throw new ConfigError(`Option \`scope\` must be "navigation" or "all-requests"; got ${JSON.stringify(config.scope)}.`, { field: 'scope' });
  }
  if (config.maxSteps !== undefined && (!Number.isInteger(config.maxSteps) || config.maxSteps <= 0)) {
    throw new ConfigError(`Option \`maxSteps\` must be a positive integer; got ${JSON.stringify(config.maxSteps)}.`, { field: 'maxSteps' });
  }
  if (config.demoStepDelayMs !== undefined && (!Number.isInteger(config.demoStepDelayMs) || config.demoStepDelayMs < 0)) {
    throw new ConfigError(`Option \`demoStepDelayMs\` must be an integer of 0 or more; got ${JSON.stringify(config.demoStepDelayMs)}.`, {
      field: 'demoStepDelayMs',
    });
  }
  if (config.outputSchema !== undefined && (typeof config.outputSchema !== 'object' || config.outputSchema === null || Array.isArray(config.outputSchema))) {
    throw new ConfigError('Option `outputSchema` must be a JSON Schema object, such as {"type":"object","properties":{…}}.', { field: 'outputSchema' });
  }
  if (!config.model && !config.demo) {
    throw new ConfigError('No model given: pass a model as provider:model (such as openai:gpt-4.1-mini), or use the demo with its scripted model.', {
      field: 'model',
    });
  }
  return config;
}
