// The set of actions offered to the Navigator: lookup, the schema the model must follow, and
// running one action with its parameters validated. Errors become results the model can read.

import { z } from 'zod';
import { ActionError, isFatalError, PlannavError } from '../errors';
import type { ErrorInfo } from '../events';
import { toErrorInfo } from '../history/error-info';
import { toModelJsonSchema } from '../llm/json-schema';
import { matchesUrlPattern } from '../security/url-pattern';
import { withDeadline } from '../util/deadline';
import type { Action, ActionContext, ActionResult } from './types';
import { describeThrown } from '../util/describe-thrown';

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`).join('; ');
}

/** One action's result, and its error as plain data when it failed. */
export interface ActionOutcome {
  readonly result: ActionResult;
  /** Set exactly when `result.error` is: its message is `result.error`, the text the model reads. */
  readonly error: ErrorInfo | undefined;
}

/** The outcome of an action that failed for `error`. */
function failed(error: PlannavError): ActionOutcome {
  return { result: { error: error.message, includeInMemory: true }, error: toErrorInfo(error) };
}

/** The outcome of an action that ran; a returned `error` string is an `ACTION_ERROR`. */
export function outcomeOf(result: ActionResult): ActionOutcome {
  return {
    result,
    error: result.error === undefined ? undefined : { name: ActionError.errorName, code: 'ACTION_ERROR', message: result.error, retryable: false },
  };
}

/** How one action runs. */
export interface RunOptions {
  /** Milliseconds the handler may take; past it, the action fails with `ACTION_TIMEOUT`. */
  readonly timeoutMs?: number | undefined;
}

/** The parts of a JSON Schema property the prompt shows. */
interface JsonProperty {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonProperty[];
  readonly items?: JsonProperty;
  readonly default?: unknown;
  readonly description?: string;
}

function typeOf(property: JsonProperty): string {
  if (property.enum) return property.enum.map((value) => JSON.stringify(value)).join('|');
  if (property.anyOf) return property.anyOf.map(typeOf).join(' or ');
  if (property.type === 'array') return `list of ${property.items ? typeOf(property.items) : 'values'}`;
  if (Array.isArray(property.type)) return property.type.join('|');
  return typeof property.type === 'string' ? property.type : 'any';
}

function describeParameter(name: string, property: JsonProperty, required: boolean): string {
  const facts = [typeOf(property)];
  if (property.default !== undefined) facts.push(`default ${JSON.stringify(property.default)}`);
  else if (!required) facts.push('optional');
  const description = property.description?.replace(/\.$/, '');
  return `${name} (${facts.join(', ')})${description ? `: ${description}` : ''}`;
}

/** The active tab's URL, or undefined when the driver cannot tell (the action is then refused). */
async function currentUrl(context: ActionContext): Promise<string | undefined> {
  try {
    return (await context.driver.activeTab({ signal: context.signal })).url;
  } catch (error) {
    if (context.signal.aborted) throw error;
    return undefined;
  }
}

function isAvailable(action: Action, url: string | undefined): boolean {
  if (!action.urlPatterns) return true;
  return url !== undefined && action.urlPatterns.some((pattern) => matchesUrlPattern(url, pattern));
}

/** The actions the Navigator may choose, by name. Later definitions replace earlier ones. */
export class ActionRegistry {
  private readonly actions = new Map<string, Action>();

  constructor(actions: readonly Action[]) {
    for (const action of actions) this.actions.set(action.name, action);
  }

  /** The action called `name`, if registered. */
  get(name: string): Action | undefined {
    return this.actions.get(name);
  }

  /** Every registered action, in registration order. */
  list(): Action[] {
    return [...this.actions.values()];
  }

  /** The actions offered on a page with this URL: those without `urlPatterns`, and those whose patterns match. */
  availableAt(url: string | undefined): Action[] {
    return this.list().filter((action) => isAvailable(action, url));
  }

  /** The zod schema of one action item as the model must write it: `{ "<name>": { …params } }`. */
  itemSchema(actions: readonly Action[] = this.list()): z.ZodType {
    const variants = actions.map((action) => z.object({ [action.name]: action.schema.describe(action.description) }).strict());
    if (variants.length === 1) return variants[0] as z.ZodType;
    return z.union(variants as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }

  /**
   * One line per action for the system prompt: name, description and parameters in a compact
   * form (`name (type, default x): description`); the exact schema goes with the output schema.
   */
  describe(): string {
    return this.list()
      .map((action) => {
        const schema = toModelJsonSchema(action.schema) as { properties?: Record<string, JsonProperty>; required?: string[] };
        const required = new Set(schema.required ?? []);
        const parameters = Object.entries(schema.properties ?? {}).map(([name, property]) => describeParameter(name, property, required.has(name)));
        const where = action.urlPatterns ? ` Only on pages matching: ${action.urlPatterns.join(', ')}.` : '';
        return `- ${action.name}: ${action.description}${where}${parameters.length > 0 ? ` Parameters: ${parameters.join('; ')}.` : ' No parameters.'}`;
      })
      .join('\n');
  }

  /**
   * Runs one action. Unknown names, invalid parameters and failures inside the handler become
   * error results the model reads; a cancel or a fatal model error is thrown.
   */
  async run(name: string, params: unknown, context: ActionContext, options: RunOptions = {}): Promise<ActionResult> {
    return (await this.runWithOutcome(name, params, context, options)).result;
  }

  /** {@link ActionRegistry.run}, with the error as structured data beside the result. */
  async runWithOutcome(name: string, params: unknown, context: ActionContext, options: RunOptions = {}): Promise<ActionOutcome> {
    const action = this.actions.get(name);
    if (!action) {
      const message = `Unknown action "${name}". Available actions: ${[...this.actions.keys()].join(', ')}.`;
      return failed(new ActionError(name, message, { code: 'ACTION_UNKNOWN' }));
    }
    if (action.urlPatterns) {
      // The page may have moved since the model saw it: judge the page the action will act on.
      const url = await currentUrl(context);
      if (!isAvailable(action, context.state?.url) || !isAvailable(action, url)) {
        const message = `Action "${name}" is only available on pages matching ${action.urlPatterns.join(', ')}; the current page is ${url ?? context.state?.url ?? 'unknown'}.`;
        return failed(new ActionError(name, message, { code: 'ACTION_UNAVAILABLE' }));
      }
    }
    const parsed = action.schema.safeParse(params ?? {});
    if (!parsed.success) {
      return failed(new ActionError(name, `Invalid parameters for ${name}: ${describeIssues(parsed.error)}.`, { code: 'ACTION_INVALID_PARAMS' }));
    }
    try {
      const limit = action.timeoutMs ?? options.timeoutMs;
      const timeoutMs = limit !== undefined && Number.isFinite(limit) ? limit : undefined;
      const late = (): ActionError =>
        new ActionError(
          name,
          `${name} did not finish within ${timeoutMs} ms and was stopped; the page may be busy. Read the page again, then retry or try another way.`,
          {
            code: 'ACTION_TIMEOUT',
            retryable: true,
          },
        );
      // The handler gets the deadline's signal: it aborts on a cancel and when the deadline passes.
      const result = await withDeadline(timeoutMs, context.signal, late, (signal) =>
        action.handler(parsed.data, signal === context.signal ? context : { ...context, signal }),
      );
      return outcomeOf(typeof result === 'string' ? { extractedContent: result, includeInMemory: true } : result);
    } catch (error) {
      // Errors no other action can work around end the task instead of becoming results.
      if (isFatalError(error)) throw error;
      const detail = describeThrown(error);
      return failed(PlannavError.isInstance(error) ? error : new ActionError(name, `${name} failed: ${detail}`, { cause: error }));
    }
  }
}
