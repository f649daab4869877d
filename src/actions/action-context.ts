// Builds the ActionContext a handler receives, the same way for a Navigator step and for a
// standalone act(): the element lookup in the state that was seen and the URL policy check.

import type { PageState } from '../browser/page-state';
import type { ResolvedBrowserDriver } from '../browser/types';
import { ActionError, URLNotAllowedError } from '../errors';
import type { LLMClient } from '../llm/types';
import type { UrlPolicy } from '../security/url-policy';
import type { ActionContext, HumanAnswer } from './types';

/** What an {@link ActionContext} is made of. */
export interface ActionContextInit {
  readonly driver: ResolvedBrowserDriver;
  /** The state whose indexes the action's `index` parameters refer to. */
  readonly state: PageState | undefined;
  readonly signal: AbortSignal;
  readonly extractionLLM: LLMClient;
  readonly taskId: string;
  readonly step: number;
  readonly uploadPaths: readonly string[];
  /** The policy `assertUrlAllowed` checks URLs against. */
  readonly urlPolicy: UrlPolicy;
  askHuman(question: string): Promise<HumanAnswer>;
  /** Hears of each URL the policy refused, before the action gets its `URLNotAllowedError`. */
  onUrlBlocked?(url: string, reason: string): void;
}

/** The context handed to action handlers. */
export function createActionContext(init: ActionContextInit): ActionContext {
  return {
    driver: init.driver,
    state: init.state,
    signal: init.signal,
    extractionLLM: init.extractionLLM,
    taskId: init.taskId,
    step: init.step,
    uploadPaths: init.uploadPaths,
    askHuman: (question) => init.askHuman(question),
    assertUrlAllowed: (url) => {
      const decision = init.urlPolicy.check(url);
      if (decision.allowed) return;
      init.onUrlBlocked?.(url, decision.reason);
      throw new URLNotAllowedError(url, `Navigation to ${url} is not allowed: ${decision.reason}. Choose another page or finish with done.`);
    },
    element: (index) => {
      const element = init.state?.elements.get(index);
      if (!element) {
        throw new ActionError('element', `There is no element with index ${index} on the page you saw. Use an index from the current state.`);
      }
      return element;
    },
  };
}
