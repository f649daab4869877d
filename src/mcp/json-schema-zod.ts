// A JSON Schema from outside (an MCP tool's input, a caller's output_schema) as a zod schema, so
// plannav validates against it and hands the model the same JSON Schema back.

import { z } from 'zod';
import { ConfigError } from '../errors';

type FromJsonSchema = (schema: Record<string, unknown>) => z.ZodType;

/** zod's converter (zod 4.2 and later). */
function converter(): FromJsonSchema | undefined {
  const candidate = (z as unknown as { fromJSONSchema?: FromJsonSchema }).fromJSONSchema;
  return typeof candidate === 'function' ? candidate : undefined;
}

/**
 * Converts a JSON Schema to zod.
 * @throws `ConfigError` (naming `field`) when the schema cannot be converted or zod is older than 4.2.
 */
export function jsonSchemaToZod(schema: Record<string, unknown>, field: string): z.ZodType {
  const convert = converter();
  if (!convert) throw new ConfigError(`\`${field}\` needs zod 4.2 or later to read a JSON Schema: npm install zod@^4.2.0`, { field });
  try {
    return convert(schema);
  } catch (error) {
    throw new ConfigError(`\`${field}\` is not a JSON Schema plannav can use: ${error instanceof Error ? error.message : String(error)}`, {
      field,
      cause: error,
    });
  }
}

/**
 * An object schema for an action's parameters from a tool's input schema: zod's conversion when it
 * gives an object, else an object that accepts any fields (the tool checks its own input).
 */
export function jsonSchemaToZodObject(schema: Record<string, unknown>): z.ZodObject {
  const convert = converter();
  if (convert) {
    try {
      const converted = convert({ type: 'object', ...schema });
      if (converted instanceof z.ZodObject) return converted;
    } catch {
      // fall through: a permissive object
    }
  }
  return z.looseObject({});
}
