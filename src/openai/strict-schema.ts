// Whether a JSON Schema may be sent with `strict: true` to OpenAI's structured outputs. The schema
// is never rewritten: one that does not qualify is sent as is, without strict mode.

import type { JSONSchema } from '../llm/json-schema';

// Keywords strict mode rejects (OpenAI's documented subset, kept conservative: servers that
// mimic the API support less than OpenAI itself).
const unsupportedKeywords = new Set([
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  'minLength',
  'maxLength',
]);

function isObjectSchema(node: Record<string, unknown>): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && 'properties' in node);
}

function qualifies(node: unknown, depth: number): boolean {
  if (depth > 64 || typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) if (unsupportedKeywords.has(key)) return false;
  if (isObjectSchema(record)) {
    if (record.additionalProperties !== false) return false;
    const properties = (record.properties ?? {}) as Record<string, unknown>;
    if (typeof properties !== 'object' || properties === null) return false;
    const required = Array.isArray(record.required) ? record.required : [];
    for (const [name, property] of Object.entries(properties)) {
      if (!required.includes(name) || !qualifies(property, depth + 1)) return false;
    }
  }
  if ('items' in record && !qualifies(record.items, depth + 1)) return false;
  if ('anyOf' in record) {
    if (!Array.isArray(record.anyOf) || !record.anyOf.every((member) => qualifies(member, depth + 1))) return false;
  }
  for (const definitions of [record.$defs, record.definitions]) {
    if (definitions === undefined) continue;
    if (typeof definitions !== 'object' || definitions === null) return false;
    if (!Object.values(definitions).every((definition) => qualifies(definition, depth + 1))) return false;
  }
  return true;
}

/**
 * Whether OpenAI's strict structured outputs accept `schema` as it is: an object at the root,
 * every object closed (`additionalProperties: false`) with all its properties required, and no
 * keyword strict mode rejects.
 */
export function allowsStrictMode(schema: JSONSchema): boolean {
  return schema.type === 'object' && qualifies(schema, 0);
}
