// defineAction: the one way to declare an action, built-in or the host's own.
// It validates the definition at once so a mistake surfaces before a task runs.

import { ConfigError } from '../errors';
import { validateUrlPattern } from '../security/url-pattern';
import type { Action, ActionSchema } from './types';

const actionName = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Declares an action the Navigator may choose.
 *
 * @example
 * ```ts
 * const addToCart = defineAction({
 *   name: 'add_to_cart',
 *   description: 'Add the product with this SKU to the cart',
 *   schema: z.object({ sku: z.string() }),
 *   handler: async ({ sku }) => { await cart.add(sku); return `Added ${sku}`; },
 * });
 * ```
 * @throws `ConfigError` when the name is not snake_case, the description is empty, a URL pattern is invalid or `timeoutMs` is not a positive number.
 * @public
 */
export function defineAction<S extends ActionSchema>(definition: Action<S>): Action<S> {
  if (!actionName.test(definition.name)) {
    throw new ConfigError(`Action name "${definition.name}" is invalid: use snake_case letters, digits and underscores, starting with a letter (at most 64).`, {
      field: 'name',
    });
  }
  if (!definition.description.trim()) {
    throw new ConfigError(`Action "${definition.name}" needs a description: the model chooses actions by it.`, { field: 'description' });
  }
  if (definition.urlPatterns !== undefined) {
    if (definition.urlPatterns.length === 0) {
      throw new ConfigError(`Action "${definition.name}" has an empty \`urlPatterns\` list: leave it out to offer the action everywhere.`, {
        field: 'urlPatterns',
      });
    }
    for (const pattern of definition.urlPatterns) validateUrlPattern(pattern);
  }
  const { timeoutMs } = definition;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0)) {
    throw new ConfigError(`Action "${definition.name}" has an invalid \`timeoutMs\`: use a positive number of milliseconds, or Infinity for none.`, {
      field: 'timeoutMs',
    });
  }
  return Object.freeze({ ...definition, urlPatterns: definition.urlPatterns ? Object.freeze([...definition.urlPatterns]) : undefined });
}
