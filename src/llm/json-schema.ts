// JSON Schema as plannav passes it to model adapters, and the conversion from zod.
// zod v4 converts natively; this module only fixes the shape adapters need.

import { z } from 'zod';

/** A JSON Schema object (draft 2020-12 subset). @public */
export type JSONSchema = { readonly [key: string]: unknown };

/**
 * Converts a zod schema to the JSON Schema sent to models: inlined (no `$ref`), without the
 * `$schema` key, and describing the input a model must write.
 */
export function toModelJsonSchema(schema: z.ZodType): JSONSchema {
  const converted = z.toJSONSchema(schema, { io: 'input', reused: 'inline', unrepresentable: 'any' }) as Record<string, unknown>;
  delete converted.$schema;
  return converted;
}
