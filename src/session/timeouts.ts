// Every deadline of a browser session in one object: the defaults live here and nowhere else,
// an entry point overrides some of them once (its options), and a single call may override one
// more (its own `timeout`). Nothing else in the core writes a number of milliseconds for these.

/** The deadlines of a session's browser and model calls, in milliseconds. */
export interface SessionTimeouts {
  /** Reading the page (a snapshot, a fingerprint, installing the URL guard). */
  readonly pageState: number;
  /** One action, from its start to its end. */
  readonly action: number;
  /** The best-effort wait for the page to settle before it is read. */
  readonly settle: number;
  /** One model call (each attempt). */
  readonly model: number;
}

/** The defaults every entry point starts from (the Executor's documented `browserTimeouts` and `modelTimeoutMs`). */
export const defaultTimeouts: SessionTimeouts = Object.freeze({ pageState: 30_000, action: 180_000, settle: 15_000, model: 120_000 });

/**
 * A collection's own deadlines over the defaults: its interaction tasks (a cookie wall, a filter
 * form) take a few short actions, not a journey, and make model calls without a deadline of their
 * own (the page's deadline bounds them).
 */
export const collectionTimeouts = Object.freeze({ action: 60_000 });

/** What an entry point or a call may override: any deadline left undefined keeps the one above it. */
export type TimeoutOverrides = { readonly [K in keyof SessionTimeouts]?: number | undefined };

/**
 * The deadlines of one session: the defaults, then the overrides it was made with. `with()`
 * derives the settings of a narrower scope (an interaction task that gets shorter actions) without
 * changing these; each getter takes a per-call override.
 */
export class TimeoutSettings {
  private readonly values: SessionTimeouts;

  constructor(overrides: TimeoutOverrides = {}, parent: SessionTimeouts = defaultTimeouts) {
    this.values = Object.freeze({
      pageState: overrides.pageState ?? parent.pageState,
      action: overrides.action ?? parent.action,
      settle: overrides.settle ?? parent.settle,
      model: overrides.model ?? parent.model,
    });
  }

  /** The deadline of a page read; `override` (a call's own) wins when given. */
  pageState(override?: number): number {
    return override ?? this.values.pageState;
  }

  /** The deadline of one action. */
  action(override?: number): number {
    return override ?? this.values.action;
  }

  /** The deadline of the wait for the page to settle. */
  settle(override?: number): number {
    return override ?? this.values.settle;
  }

  /** The deadline of one model call. */
  model(override?: number): number {
    return override ?? this.values.model;
  }

  /** The browser deadlines as the agents read them (`AgentSettings.browserTimeouts`). */
  get browser(): { readonly pageState: number; readonly action: number; readonly settle: number } {
    const { pageState, action, settle } = this.values;
    return { pageState, action, settle };
  }

  /** Settings for a narrower scope: these, with `overrides` on top. */
  with(overrides: TimeoutOverrides): TimeoutSettings {
    return new TimeoutSettings(overrides, this.values);
  }
}
