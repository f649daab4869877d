// Shared helper of the action tests: an ActionContext over a real driver and the state the model
// saw, as the Navigator builds it (the element lookup, the URL check, the upload folders).
import { testActionContext } from '../helpers/action-context';
import type { ActionContext, HumanAnswer } from '../../src/actions/types';
import type { PageState } from '../../src/browser/page-state';
import type { LLMClient } from '../../src/llm/types';
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
  return testActionContext({ ...options, driver: fixture.driver });
}
