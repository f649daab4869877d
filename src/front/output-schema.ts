// Turns the JSON Schema a front door is given (`--output-schema`, run_task's `output_schema`) into
// the zod schema the Executor validates `done` data with. zod 4's own converter does the work.

import { z } from 'zod';
import { ConfigError } from '../index';

/**
 * The zod schema for a JSON Schema object, through zod's `z.fromJSONSchema`.
 * @throws `ConfigError` (field `outputSchema`) when the schema is not an object or zod cannot read it.
 */
export function outputSchemaFromJson(schema: object): z.ZodType {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError('The output schema must be a JSON Schema object, such as {"type":"object","properties":{…}}.', { field: 'outputSchema' });
  }
  // z.fromJSONSchema came with zod 4.2; the peer range starts at 4.0.
  const fromJSONSchema = (z as { fromJSONSchema?: typeof z.fromJSONSchema }).fromJSONSchema;
  if (typeof fromJSONSchema !== 'function') {
    throw new ConfigError('An output schema needs zod 4.2 or later (z.fromJSONSchema): update the zod package.', { field: 'outputSchema' });
  }
  try {
    return fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`The output schema is not a JSON Schema zod can read: ${reason}.`, { field: 'outputSchema', cause: error });
  }
}
