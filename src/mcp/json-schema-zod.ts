// An MCP tool's input JSON Schema as the zod object of an action's parameters, so plannav checks
// the model's parameters against it and hands the model the same JSON Schema back.

import { z } from 'zod';

type FromJsonSchema = (schema: Record<string, unknown>) => z.ZodType;

/** zod's converter (zod 4.2 and later). */
function converter(): FromJsonSchema | undefined {
  const candidate = (z as unknown as { fromJSONSchema?: FromJsonSchema }).fromJSONSchema;
  return typeof candidate === 'function' ? candidate : undefined;
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
