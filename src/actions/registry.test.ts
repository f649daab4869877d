import { testActionContext } from '../../test/helpers/action-context';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ActionError, ChatModelAuthError, ChatModelRateLimitError, RequestCancelledError } from '../errors';
import { defineAction } from './define-action';
import { toModelJsonSchema } from '../llm/json-schema';
import { ActionRegistry } from './registry';
import type { Action, ActionContext } from './types';

function actionContext(signal: AbortSignal = new AbortController().signal): ActionContext {
  return testActionContext({ signal });
}

function actionWith(name: string, handler: Action['handler'], schema: Action['schema'] = z.object({})): Action {
  return defineAction({ name, description: `The ${name} action.`, schema, handler });
}

const searchAction = defineAction({
  name: 'search_web',
  description: 'Search the web for a query.',
  schema: z.object({ query: z.string().min(1).describe('What to search for'), page: z.number().int().optional() }),
  handler: async ({ query, page }) => `Searched ${query} on page ${page ?? 1}`,
});

const clickAction = defineAction({
  name: 'click_element',
  description: 'Click an element by index.',
  schema: z.object({ index: z.number().int() }),
  handler: async ({ index }) => ({ extractedContent: `Clicked ${index}`, includeInMemory: false }),
});

describe('ActionRegistry lookup', () => {
  it('lists actions in registration order and finds them by name', () => {
    const registry = new ActionRegistry([searchAction, clickAction]);
    expect(registry.list().map((action) => action.name)).toEqual(['search_web', 'click_element']);
    expect(registry.get('click_element')).toBe(clickAction);
    expect(registry.get('missing')).toBeUndefined();
  });

  it('lets a later action with the same name replace an earlier one', async () => {
    const replacement = actionWith('search_web', async () => 'replacement ran');
    const registry = new ActionRegistry([searchAction, clickAction, replacement]);
    expect(registry.list()).toHaveLength(2);
    expect(registry.get('search_web')).toBe(replacement);
    const result = await registry.run('search_web', {}, actionContext());
    expect(result.extractedContent).toBe('replacement ran');
  });
});

describe('ActionRegistry.run', () => {
  it('returns an error result listing the available actions for an unknown name', async () => {
    const registry = new ActionRegistry([searchAction, clickAction]);
    const result = await registry.run('fly_away', {}, actionContext());
    expect(result.error).toBe('Unknown action "fly_away". Available actions: search_web, click_element.');
    expect(result.includeInMemory).toBe(true);
  });

  it('returns an error result naming the invalid field', async () => {
    const registry = new ActionRegistry([searchAction]);
    const result = await registry.run('search_web', { query: 'mugs', page: 'two' }, actionContext());
    expect(result.error).toMatch(/^Invalid parameters for search_web: page: /);
    expect(result.includeInMemory).toBe(true);
    expect(result.extractedContent).toBeUndefined();
  });

  it('validates missing parameters as an empty object', async () => {
    const registry = new ActionRegistry([searchAction]);
    const result = await registry.run('search_web', undefined, actionContext());
    expect(result.error).toContain('query');
  });

  it('passes the parsed parameters and the context to the handler', async () => {
    let received: unknown;
    let receivedStep = 0;
    const action = actionWith(
      'record_params',
      async (params, context) => {
        received = params;
        receivedStep = context.step;
        return 'recorded';
      },
      z.object({ count: z.number().default(5) }),
    );
    await new ActionRegistry([action]).run('record_params', {}, actionContext());
    expect(received).toEqual({ count: 5 });
    expect(receivedStep).toBe(1);
  });

  it('turns a returned string into extracted content kept in memory', async () => {
    const registry = new ActionRegistry([searchAction]);
    const result = await registry.run('search_web', { query: 'mugs', page: 2 }, actionContext());
    expect(result).toEqual({ extractedContent: 'Searched mugs on page 2', includeInMemory: true });
  });

  it('returns a result object as the handler gave it', async () => {
    const registry = new ActionRegistry([clickAction]);
    const result = await registry.run('click_element', { index: 4 }, actionContext());
    expect(result).toEqual({ extractedContent: 'Clicked 4', includeInMemory: false });
  });

  it('turns a plain error thrown by the handler into an error result naming the action', async () => {
    const failing = actionWith('break_things', async () => {
      throw new Error('the button moved');
    });
    const result = await new ActionRegistry([failing]).run('break_things', {}, actionContext());
    expect(result).toEqual({ error: 'break_things failed: the button moved', includeInMemory: true });
  });

  it('reports a plannav error thrown by the handler without the prefix', async () => {
    const failing = actionWith('break_things', async () => {
      throw new ActionError('break_things', 'Element 9 does not exist.');
    });
    const result = await new ActionRegistry([failing]).run('break_things', {}, actionContext());
    expect(result.error).toBe('Element 9 does not exist.');
  });

  it('reports a thrown non-error value as text', async () => {
    const failing = actionWith('throw_string', async () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test: code that throws a non-Error
      throw 'just a string';
    });
    const result = await new ActionRegistry([failing]).run('throw_string', {}, actionContext());
    expect(result.error).toBe('throw_string failed: just a string');
  });

  it('rethrows a RequestCancelledError thrown by the handler', async () => {
    const cancelled = new RequestCancelledError();
    const failing = actionWith('cancelled_action', async () => {
      throw cancelled;
    });
    await expect(new ActionRegistry([failing]).run('cancelled_action', {}, actionContext())).rejects.toBe(cancelled);
  });

  it('rethrows a fatal model error such as ChatModelAuthError', async () => {
    const fatal = new ChatModelAuthError('bad key');
    const failing = actionWith('extract_content', async () => {
      throw fatal;
    });
    await expect(new ActionRegistry([failing]).run('extract_content', {}, actionContext())).rejects.toBe(fatal);
  });

  it('turns a retryable model error into an error result', async () => {
    const failing = actionWith('extract_content', async () => {
      throw new ChatModelRateLimitError('slow down');
    });
    const result = await new ActionRegistry([failing]).run('extract_content', {}, actionContext());
    expect(result.error).toBe('slow down');
  });

  it('rejects promptly when the signal aborts while the handler never resolves', async () => {
    let handlerRuns!: () => void;
    const running = new Promise<void>((resolve) => (handlerRuns = resolve));
    const hanging = actionWith('hang_forever', () => {
      handlerRuns();
      return new Promise<string>(() => undefined);
    });
    const controller = new AbortController();
    const pending = new ActionRegistry([hanging]).run('hang_forever', {}, actionContext(controller.signal));
    await running;
    controller.abort();
    // Promptly: settled by the abort itself, before any timer could fire (a poll of the signal, a grace period), which
    // holds on a busy machine as on an idle one. A registry that waits for the handler never settles at all.
    const outcome = await Promise.race([
      pending.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still pending after the abort'), 0)),
    ]);
    expect(RequestCancelledError.isInstance(outcome), String(outcome)).toBe(true);
  });
});

describe('ActionRegistry schemas and description', () => {
  interface ObjectVariant {
    type: string;
    properties: Record<string, unknown>;
    required: string[];
    additionalProperties: boolean;
  }

  it('describes one action item as an anyOf of objects that each require exactly one action name', () => {
    const schema = toModelJsonSchema(new ActionRegistry([searchAction, clickAction]).itemSchema()) as { anyOf?: ObjectVariant[] };
    expect(schema.anyOf).toHaveLength(2);
    const names = ['search_web', 'click_element'];
    schema.anyOf?.forEach((variant, position) => {
      expect(variant.type).toBe('object');
      expect(variant.required).toEqual([names[position]]);
      expect(Object.keys(variant.properties)).toEqual([names[position]]);
      expect(variant.additionalProperties).toBe(false);
    });
    const searchParameters = schema.anyOf?.[0]?.properties.search_web as { description?: string; required?: string[] };
    expect(searchParameters.description).toBe('Search the web for a query.');
    expect(searchParameters.required).toEqual(['query']);
  });

  it('describes a single action as one object schema', () => {
    const schema = toModelJsonSchema(new ActionRegistry([clickAction]).itemSchema()) as Partial<ObjectVariant> & { anyOf?: unknown };
    expect(schema.anyOf).toBeUndefined();
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['click_element']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('validates items with the zod item schema: one known action, no extra keys', () => {
    const itemSchema = new ActionRegistry([searchAction, clickAction]).itemSchema();
    expect(itemSchema.safeParse({ click_element: { index: 3 } }).success).toBe(true);
    expect(itemSchema.safeParse({ click_element: { index: 3 }, search_web: { query: 'x' } }).success).toBe(false);
    expect(itemSchema.safeParse({ fly_away: {} }).success).toBe(false);
    expect(itemSchema.safeParse({ click_element: { index: 'three' } }).success).toBe(false);
  });

  it('lists each action with its description and parameters, one per line', () => {
    const limited = defineAction({
      name: 'approve',
      description: 'Approve the order.',
      urlPatterns: ['https://shop.test/admin/*'],
      schema: z.object({}),
      handler: async () => 'ok',
    });
    const choice = defineAction({
      name: 'pick',
      description: 'Pick one.',
      schema: z.object({ colour: z.enum(['red', 'blue']).default('red').describe('The colour.'), ids: z.array(z.number()).describe('Ids') }),
      handler: async () => 'ok',
    });
    const lines = new ActionRegistry([searchAction, clickAction, limited, choice]).describe().split('\n');
    expect(lines).toEqual([
      '- search_web: Search the web for a query. Parameters: query (string): What to search for; page (integer, optional).',
      '- click_element: Click an element by index. Parameters: index (integer).',
      '- approve: Approve the order. Only on pages matching: https://shop.test/admin/*. No parameters.',
      '- pick: Pick one. Parameters: colour ("red"|"blue", default "red"): The colour; ids (list of number): Ids.',
    ]);
  });
});
