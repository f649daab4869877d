import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../errors';
import { defineAction } from './define-action';
import { configErrorOf } from '../../test/helpers/rejection';

const schema = z.object({ query: z.string() });
const handler = async (): Promise<string> => 'ok';

describe('defineAction', () => {
  it('returns a frozen copy of a valid definition', () => {
    const definition = { name: 'search_web', description: 'Search the web', schema, handler };
    const action = defineAction(definition);
    expect(action).toEqual(definition);
    expect(action).not.toBe(definition);
    expect(Object.isFrozen(action)).toBe(true);
  });

  it('accepts snake_case names with digits up to 64 characters', () => {
    expect(defineAction({ name: 'step_2_go', description: 'Go', schema, handler }).name).toBe('step_2_go');
    expect(defineAction({ name: 'a'.repeat(64), description: 'Long', schema, handler }).name).toHaveLength(64);
  });

  for (const badName of ['', 'ClickElement', 'click-element', '2click', '_click', 'click element', 'a'.repeat(65)]) {
    it(`rejects the name ${JSON.stringify(badName.length > 20 ? `${badName.slice(0, 5)}… (${badName.length} characters)` : badName)} with a ConfigError on the name field`, () => {
      const error = configErrorOf(() => defineAction({ name: badName, description: 'Something', schema, handler }));
      expect(error.field).toBe('name');
      expect(error.code).toBe('CONFIG_ERROR');
      expect(error.message).toContain('snake_case');
    });
  }

  it('rejects an empty or blank description with a ConfigError on the description field', () => {
    for (const description of ['', '   \n']) {
      const error = configErrorOf(() => defineAction({ name: 'search_web', description, schema, handler }));
      expect(error.field).toBe('description');
      expect(error.message).toContain('search_web');
    }
  });

  it('takes a positive timeoutMs or Infinity, and refuses anything else with a ConfigError on timeoutMs', () => {
    expect(defineAction({ name: 'slow_job', description: 'x', schema, handler, timeoutMs: 500 }).timeoutMs).toBe(500);
    expect(defineAction({ name: 'slow_job', description: 'x', schema, handler, timeoutMs: Number.POSITIVE_INFINITY }).timeoutMs).toBe(Number.POSITIVE_INFINITY);
    for (const timeoutMs of [0, -1, Number.NaN, '5s' as unknown as number]) {
      const error = configErrorOf(() => defineAction({ name: 'slow_job', description: 'x', schema, handler, timeoutMs }));
      expect(ConfigError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        field: 'timeoutMs',
        message: 'Action "slow_job" has an invalid `timeoutMs`: use a positive number of milliseconds, or Infinity for none.',
      });
    }
  });
});
