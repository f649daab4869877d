// The shared run set-up of the front doors: from a RunConfig to the models, the browser and the
// Executor's options (URL policy, secrets, limits, output schema), and the run's files at the end.
// It opens and closes what it owns; it prints nothing and never holds a secret's value in a message.

import {
  ConfigError,
  RequestCancelledError,
  UrlPolicy,
  type BrowserDriver,
  type Executor,
  type ExecutorOptions,
  type ExecutorUrlPolicy,
  type LLMClient,
} from '../index';
import { createLLM, providerEnvironment, type LLMProviderName } from '../models/index';
import type { BrowserContextOptions } from 'playwright-core';
import { PlaywrightDriver } from '../playwright/index';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoTask } from '../demo/demo-task';
import { scriptedShopper } from '../demo/scripted-shopper';
import { startDemoShop, type DemoShop } from '../demo/server';
import { checkRunConfig, MissingApiKeyError, type RunConfig } from './run-config';
import { outputSchemaFromJson } from './output-schema';
import { saveRunFiles, withStorageState, type RunFiles } from './run-files';
import { readSecretsFile } from './secrets-file';

/** The most steps a demo task takes unless `maxSteps` says otherwise (the scripted shopper needs about 8). */
const demoMaxSteps = 20;

/** Options a caller adds to the session's for one Executor; the session's browser, models and policy stay. */
export type ExtraExecutorOptions = Partial<Omit<ExecutorOptions, 'task' | 'llm' | 'browser'>>;

/** A run set up and ready: models, a browser, and the options every Executor of this run gets. */
export interface RunSession extends AsyncDisposable {
  /** The browser the run drives; the session owns it and closes it in `close()`. */
  readonly browser: BrowserDriver;
  /** The Navigator's model (the demo's scripted one in demo mode without `model`). */
  readonly llm: LLMClient;
  /** The Planner's model, when `plannerModel` was given. */
  readonly plannerLLM: LLMClient | undefined;
  /** The extraction model, when `extractorModel` was given. */
  readonly extractionLLM: LLMClient | undefined;
  /** Where a task starts: `startUrl`, else the demo shop's home page in demo mode. */
  readonly startUrl: string | undefined;
  /** The demo task (the cheapest blue kitchen item under $25, into the cart), in demo mode. */
  readonly demoTask: string | undefined;
  /** The demo shop, in demo mode: its URL and the cart its server holds. */
  readonly demoShop: DemoShop | undefined;
  /** The URL policy every Executor of the session gets, if any. */
  readonly urlPolicy: ExecutorUrlPolicy | undefined;
  /** The secrets' names (never their values), for people. */
  readonly secretNames: readonly string[];
  /**
   * The words of a task for this session: `task`, or the demo task when it is empty in demo mode;
   * with a start URL the task does not name, a sentence asking to start there. The agent opens the
   * page itself, so the run's history holds that step and replays on its own. `startUrl` replaces
   * the session's for this task (MCP's `start_url`).
   * @throws `ConfigError` when `task` is empty outside demo mode, or the start URL is not one the URL policy allows.
   */
  taskFor(task?: string, startUrl?: string): string;
  /** The Executor's options for `task`: models, browser, URL policy, secrets, step limit, vision, output schema, screenshots kept; `extra` on top. */
  executorOptions(task: string, extra?: ExtraExecutorOptions): ExecutorOptions;
  /** Writes the executor's history, a GIF and an HTML report into `outDir`, and the storage state where `saveStorageState` says. */
  saveRun(executor: Executor, outDir: string): Promise<RunFiles>;
  /** Closes the browser and the demo shop; calling it again does nothing. */
  close(): Promise<void>;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Writes the Playwright trace of the run since the last save as trace.zip in `outDir`; a failure is a warning. */
async function saveRunTrace(browser: PlaywrightDriver, outDir: string): Promise<{ readonly warning?: string }> {
  try {
    mkdirSync(resolve(outDir), { recursive: true });
    await browser.saveTrace({ path: join(resolve(outDir), 'trace.zip') });
    return {};
  } catch (error) {
    return { warning: `No trace: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''}` };
  }
}

/** A model client for `spec`, with a missing key as a {@link MissingApiKeyError} that names the variables. */
export function modelFor(spec: string, field: string, env: Environment): LLMClient {
  try {
    return createLLM(spec, { env });
  } catch (error) {
    if (ConfigError.isInstance(error) && error.field === 'apiKey') {
      const provider = spec.slice(0, spec.indexOf(':')).trim().toLowerCase() as LLMProviderName;
      throw new MissingApiKeyError(spec, providerEnvironment[provider]?.apiKey ?? [], { field, cause: error });
    }
    if (ConfigError.isInstance(error)) throw new ConfigError(error.message, { field, cause: error });
    throw error;
  }
}

function checkNotAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RequestCancelledError('Setting up the run was cancelled.');
}

/** Launches a browser (with the storage state `storageState` names), or connects to the one `cdpUrl` or `wsEndpoint` names. */
export async function openBrowser(
  config: Pick<RunConfig, 'cdpUrl' | 'wsEndpoint' | 'headed' | 'trace' | 'storageState'>,
  traceDir?: string,
): Promise<BrowserDriver> {
  if (config.trace && (config.cdpUrl || config.wsEndpoint)) {
    throw new ConfigError('--trace records a browser that plannav launches: leave out --cdp-url and --ws-endpoint, or --trace.', { field: 'trace' });
  }
  if (config.cdpUrl || config.wsEndpoint) return PlaywrightDriver.connect({ cdpUrl: config.cdpUrl, wsEndpoint: config.wsEndpoint });
  // Playwright's own Ctrl-C handler would close the browser and exit the process (code 130) before
  // the front door could cancel the task and save its history; the door handles SIGINT itself.
  // (PlaywrightDriver.launch passes contextOptions on to launchPersistentContext, which takes it.)
  const launchOnly = { handleSIGINT: false } as BrowserContextOptions;
  return PlaywrightDriver.launch({
    headless: !config.headed,
    contextOptions: launchOnly,
    ...(config.storageState ? { storageState: config.storageState } : {}),
    ...(traceDir ? { trace: { dir: traceDir } } : {}),
  });
}

/**
 * Sets up a run from command-line-like options: checks them, builds the models through
 * `createLLM`, reads the secrets file, converts the output schema, serves the demo shop in demo
 * mode, and launches (or connects to) the browser. `signal` cancels the set-up; what was opened is closed.
 * @throws `ConfigError` for a bad option (`MissingApiKeyError` when a model's key is missing),
 * before anything is opened; `BrowserError` when no browser could be started or reached;
 * `RequestCancelledError` when `signal` aborts.
 */
export async function openRunSession(config: RunConfig, signal?: AbortSignal): Promise<RunSession> {
  checkRunConfig(config);
  const env: Environment = config.env ?? process.env;
  const llm = config.model ? modelFor(config.model, 'model', env) : scriptedShopper({ callDelayMs: config.demoStepDelayMs });
  const plannerLLM = config.plannerModel ? modelFor(config.plannerModel, 'plannerModel', env) : undefined;
  const extractionLLM = config.extractorModel ? modelFor(config.extractorModel, 'extractorModel', env) : undefined;
  const outputSchema = config.outputSchema ? outputSchemaFromJson(config.outputSchema) : undefined;
  const secrets = config.secretsFile ? await readSecretsFile(config.secretsFile) : undefined;
  // The lists are checked before anything opens; the demo shop's host is added once it runs.
  const policyCheck = new UrlPolicy({ allow: config.allow, deny: config.deny });
  if (config.startUrl && !policyCheck.check(config.startUrl).allowed) {
    throw new ConfigError(`The start URL ${config.startUrl} is not allowed by the URL policy: ${policyCheck.check(config.startUrl).reason}.`, {
      field: 'startUrl',
    });
  }
  checkNotAborted(signal);

  const demoShop = config.demo ? await startDemoShop() : undefined;
  // --trace (issue 24): the driver's own trace folder gets only what follows the last run's save; removed on close.
  const traceDir = config.trace ? mkdtempSync(join(tmpdir(), 'plannav-trace-')) : undefined;
  const removeTraceDir = (): void => {
    if (traceDir) rmSync(traceDir, { recursive: true, force: true });
  };
  let browser: BrowserDriver;
  try {
    checkNotAborted(signal);
    browser = await openBrowser(config, traceDir);
  } catch (error) {
    await demoShop?.close();
    removeTraceDir();
    throw error;
  }
  if (signal?.aborted) {
    await Promise.allSettled([browser.close(), demoShop?.close()]);
    checkNotAborted(signal);
  }

  const allow = [...(demoShop ? [new URL(demoShop.url).hostname] : []), ...(config.allow ?? [])];
  const urlPolicy: ExecutorUrlPolicy | undefined =
    allow.length > 0 || config.deny?.length || config.scope
      ? { ...(allow.length > 0 ? { allow } : {}), ...(config.deny?.length ? { deny: [...config.deny] } : {}), ...(config.scope ? { scope: config.scope } : {}) }
      : undefined;
  const startUrl = config.startUrl ?? demoShop?.url;
  const policy = new UrlPolicy(urlPolicy);
  const maxSteps = config.maxSteps ?? (demoShop ? demoMaxSteps : undefined);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= Promise.allSettled([browser.close(), demoShop?.close()]).then(removeTraceDir);
    return closing;
  };
  return {
    browser,
    llm,
    plannerLLM,
    extractionLLM,
    startUrl,
    demoTask: demoShop ? demoTask(demoShop.url) : undefined,
    demoShop,
    urlPolicy,
    secretNames: Object.keys(secrets ?? {}),
    taskFor: (task, taskStartUrl = startUrl) => {
      const words = task?.trim() || (demoShop ? demoTask(demoShop.url) : '');
      if (!words) throw new ConfigError('The task is empty: say in words what the agent should do.', { field: 'task' });
      if (!taskStartUrl || words.includes(taskStartUrl)) return words;
      const decision = policy.check(taskStartUrl);
      if (!decision.allowed)
        throw new ConfigError(`The start URL ${taskStartUrl} is not allowed by the URL policy: ${decision.reason}.`, { field: 'startUrl' });
      return `${words}\nStart at ${taskStartUrl}`;
    },
    executorOptions: (task, extra = {}) => ({
      task,
      llm,
      browser,
      ...(plannerLLM ? { plannerLLM } : {}),
      ...(extractionLLM ? { extractionLLM } : {}),
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(config.vision ? { useVision: true } : {}),
      ...(urlPolicy ? { urlPolicy } : {}),
      ...(secrets ? { secrets } : {}),
      ...(outputSchema ? { outputSchema } : {}),
      // The run's GIF and report show each step's page.
      recordScreenshots: true,
      ...extra,
    }),
    saveRun: async (executor, outDir) => {
      // --trace (issue 24): the run's trace beside its history, before the report that links it.
      const trace = traceDir && browser instanceof PlaywrightDriver ? await saveRunTrace(browser, outDir) : undefined;
      const files = await withStorageState(await saveRunFiles(executor.history, outDir), browser, config.saveStorageState);
      return trace?.warning ? { ...files, warnings: [...files.warnings, trace.warning] } : files;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
