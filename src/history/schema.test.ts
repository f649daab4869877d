import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../errors';
import { parseHistory, runHistorySchema } from './schema';
import { historySchemaVersion } from './types';

const v1 = JSON.parse(readFileSync('test/fixtures/history-migrations/v1.json', 'utf8')) as Record<string, unknown>;

function thrown(run: () => unknown): HistoryFormatError {
  try {
    run();
  } catch (error) {
    if (HistoryFormatError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a HistoryFormatError');
}

describe('parseHistory', () => {
  it('migrates a version 1 file: schemaVersion, tab list, model calls and action start times filled in', () => {
    const history = parseHistory(v1);
    expect(history.schemaVersion).toBe(historySchemaVersion);
    expect(history.tasks[0]?.finalAnswer).toBe('Added the Blue bowl ($12.50) to the cart.');
    const navigator = history.steps[1];
    expect(navigator?.browser).toEqual({ url: 'http://127.0.0.1:41234/category/kitchen', title: 'Kitchen - Demo Shop', tabs: 1, tabList: [], activeTabId: '' });
    expect(navigator?.modelCalls).toEqual([]);
    expect(navigator?.actions[0]?.startedAt).toBe(1764547200600);
    expect(navigator?.actions[0]?.name).toBe('click_element');
    expect(navigator?.fallbacks?.[0]?.to).toBe('anthropic:claude-sonnet-4-5');
    expect(history.screenshots.size).toBe(0);
    // The migrated form is what this version writes.
    expect(runHistorySchema.safeParse({ ...history, screenshots: undefined }).success).toBe(true);
  });

  it('refuses a newer version with HISTORY_VERSION, saying to upgrade', () => {
    const error = thrown(() => parseHistory({ ...v1, version: undefined, schemaVersion: historySchemaVersion + 1 }));
    expect(error.code).toBe('HISTORY_VERSION');
    expect(error.schemaVersion).toBe(historySchemaVersion + 1);
    expect(error.message).toMatch(/newer .*upgrade plannav/);
  });

  it('names the field at fault', () => {
    const broken = structuredClone(v1) as { steps: { actions: { name: unknown }[] }[] };
    broken.steps[1]!.actions[0]!.name = 42;
    const error = thrown(() => parseHistory(broken));
    expect(error.code).toBe('HISTORY_INVALID');
    expect(error.field).toBe('steps[1].actions[0].name');
    expect(error.message).toContain('steps[1].actions[0].name');
  });

  it('refuses what is not a history, and a screenshot part that leaves its folder', () => {
    expect(thrown(() => parseHistory([])).message).toMatch(/JSON object; got an array/);
    expect(thrown(() => parseHistory({ tasks: [] })).field).toBe('schemaVersion');
    const current = parseHistory(v1);
    const escaping = {
      ...current,
      screenshots: undefined,
      steps: [{ ...current.steps[1], screenshot: { part: '../../etc/passwd', mediaType: 'image/jpeg' } }],
    };
    expect(thrown(() => parseHistory(escaping)).field).toBe('steps[0].screenshot.part');
  });
});
