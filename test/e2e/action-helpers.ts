// Shared helper of the action tests: an ActionContext over a real driver and the state the model
// saw, as the Navigator builds it (the element lookup, the URL check, the upload folders).
import type { ActionContext, HumanAnswer } from '../../src/actions/types';
import type { PageState } from '../../src/browser/page-state';
import { ActionError, URLNotAllowedError } from '../../src/errors';
import type { LLMClient } from '../../src/llm/types';
import { ScriptedLLM } from '../../src/testing/scripted-llm';
import type { BrowserFixture } from './snapshot-helpers';

export interface LiveContextOptions {
  /** The state the model saw; the element lookup uses it. */
  readonly state: PageState;
  readonly signal?: AbortSignal;
  readonly extractionLLM?: LLMClient;
  /** URLs (exact strings or a predicate) the URL check refuses. */
  readonly denyUrl?: (url: string) => boolean;
  readonly uploadPaths?: readonly string[];
  readonly answer?: HumanAnswer;
}

/** An ActionContext over the fixture's real driver. */
export function liveContext(fixture: BrowserFixture, options: LiveContextOptions): ActionContext {
  return {
    driver: fixture.driver,
    state: options.state,
    signal: options.signal ?? new AbortController().signal,
    extractionLLM: options.extractionLLM ?? new ScriptedLLM(),
    taskId: 'task-1',
    step: 1,
    uploadPaths: options.uploadPaths ?? [],
    element: (index) => {
      const element = options.state.elements.get(index);
      if (!element) throw new ActionError('element', `There is no element with index ${index} on the page you saw. Use an index from the current state.`);
      return element;
    },
    askHuman: async () => options.answer ?? { answer: undefined, timedOut: true },
    assertUrlAllowed: (url) => {
      if (options.denyUrl?.(url)) throw new URLNotAllowedError(url);
    },
  };
}
