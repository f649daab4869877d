// The set-up of a replay for the front doors (`plannav replay`, MCP's replay_history): a browser,
// a model only for `ask-model`, and in demo mode a demo shop served anew with the recorded shop's
// origin moved to it. No model is needed otherwise.

import { HistoryReplay, type BrowserDriver, type LLMClient, type ReplayOptions, type RunHistory } from '../index';
import { startDemoShop, type DemoShop } from '../demo/server';
import { checkRunConfig, type RunConfig } from './run-config';
import { modelFor, openBrowser } from './run-session';

/** How a replay is set up. */
export interface ReplayConfig extends Pick<RunConfig, 'headed' | 'cdpUrl' | 'wsEndpoint' | 'env'> {
  /** Serve the demo shop and replay a demo history on it (its recorded origin is moved to the new shop's). */
  readonly demo?: boolean | undefined;
  /** The model for `onStepFailure: 'ask-model'`, as provider:model. */
  readonly model?: string | undefined;
}

/** A replay's browser (and demo shop), ready for {@link ReplaySession.replay}. */
export interface ReplaySession extends AsyncDisposable {
  readonly browser: BrowserDriver;
  /** The model, when `model` was given. */
  readonly llm: LLMClient | undefined;
  /** The demo shop, in demo mode. */
  readonly demoShop: DemoShop | undefined;
  /** A HistoryReplay of `history` in this session's browser; in demo mode on the new shop, kept to it by the URL policy. */
  replay(history: RunHistory, options?: Partial<Omit<ReplayOptions, 'browser'>>): HistoryReplay;
  /** Closes the browser and the demo shop; calling it again does nothing. */
  close(): Promise<void>;
}

/**
 * Opens a browser (and in demo mode the demo shop) for replays.
 * @throws `ConfigError` for a bad option or a missing key of `model`; `BrowserError` when no browser could be started.
 */
export async function openReplaySession(config: ReplayConfig, signal?: AbortSignal): Promise<ReplaySession> {
  checkRunConfig({ ...config, demo: true });
  const llm = config.model ? modelFor(config.model, 'model', config.env ?? process.env) : undefined;
  signal?.throwIfAborted();
  const demoShop = config.demo ? await startDemoShop() : undefined;
  let browser: BrowserDriver;
  try {
    browser = await openBrowser(config);
  } catch (error) {
    await demoShop?.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= Promise.allSettled([browser.close(), demoShop?.close()]).then(() => undefined);
    return closing;
  };
  return {
    browser,
    llm,
    demoShop,
    replay: (history, options = {}) =>
      new HistoryReplay(history, {
        ...(llm ? { llm } : {}),
        ...(demoShop ? { baseURL: demoShop.url, urlPolicy: { allow: [new URL(demoShop.url).hostname] } } : {}),
        ...options,
        browser,
      }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
