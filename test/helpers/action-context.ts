// The ActionContext the action tests hand to handlers, built the way the Navigator builds one:
// the element lookup in the state the model saw, the URL check, the upload folders, the person.
import type { ActionContext, HumanAnswer } from '../../src/actions/types';
import type { PageState } from '../../src/browser/page-state';
import type { BrowserDriver } from '../../src/browser/types';
import { resolveDriver } from '../../src/dom/driver-defaults';
import { ActionError, URLNotAllowedError } from '../../src/errors';
import type { LLMClient } from '../../src/llm/types';
import { FakeBrowserDriver } from '../../src/testing/fake-browser-driver';
import { ScriptedLLM } from '../../src/testing/scripted-llm';

export interface TestContextOptions {
  /** @defaultValue a new FakeBrowserDriver */
  readonly driver?: BrowserDriver;
  /** The state the model saw; `element(index)` looks indices up in it. */
  readonly state?: PageState;
  readonly signal?: AbortSignal;
  readonly extractionLLM?: LLMClient;
  readonly uploadPaths?: readonly string[];
  /** URLs the URL check refuses. */
  readonly denyUrl?: (url: string) => boolean;
  /** Collects every URL the action checked. */
  readonly checkedUrls?: string[];
  /** What `askHuman` answers; no one answers by default. */
  readonly answer?: HumanAnswer;
  /** Collects the questions asked. */
  readonly questions?: string[];
}

export function testActionContext(options: TestContextOptions = {}): ActionContext {
  return {
    driver: resolveDriver(options.driver ?? new FakeBrowserDriver()),
    state: options.state,
    signal: options.signal ?? new AbortController().signal,
    extractionLLM: options.extractionLLM ?? new ScriptedLLM(),
    taskId: 'task-1',
    step: 1,
    uploadPaths: options.uploadPaths ?? [],
    element: (index) => {
      const element = options.state?.elements.get(index);
      if (!element) throw new ActionError('element', `There is no element with index ${index} on the page you saw. Use an index from the current state.`);
      return element;
    },
    askHuman: async (question) => {
      options.questions?.push(question);
      return options.answer ?? { answer: undefined, timedOut: true };
    },
    assertUrlAllowed: (url) => {
      options.checkedUrls?.push(url);
      if (options.denyUrl?.(url)) throw new URLNotAllowedError(url);
    },
  };
}
