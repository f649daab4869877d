// Converts a JSON Schema to the OpenAPI-style subset Gemini's `responseSchema` accepts: no $ref,
// no type arrays or const, nullable instead of null, no empty objects. Pure function.

import type { JSONSchema } from '../llm/json-schema';

type Node = Record<string, unknown>;
type GeminiSchema = Record<string, unknown>;

const maxDepth = 32;

/** Gemini refuses an OBJECT without properties; this optional one stands in for "no fields". */
const emptyObjectProperties = { _: { type: 'BOOLEAN', nullable: true, description: 'Unused; leave out.' } };

const typeNames: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveRef(ref: string, root: Node): Node | undefined {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const definitions = root[match[1] as string];
  const name = decodeURIComponent((match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~'));
  const found = isNode(definitions) ? definitions[name] : undefined;
  return isNode(found) ? found : undefined;
}

/** Merges the members of an `allOf` into one schema: properties and required lists are joined. */
function mergeAllOf(node: Node): Node {
  const { allOf, ...rest } = node;
  const merged: Node = { ...rest };
  const properties: Node = isNode(rest.properties) ? { ...rest.properties } : {};
  const required = new Set<string>(Array.isArray(rest.required) ? (rest.required as string[]) : []);
  for (const member of Array.isArray(allOf) ? allOf : []) {
    if (!isNode(member)) continue;
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isNode(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) for (const name of value) required.add(String(name));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function common(node: Node): GeminiSchema {
  const result: GeminiSchema = {};
  if (typeof node.description === 'string') result.description = node.description;
  if (typeof node.title === 'string') result.title = node.title;
  return result;
}

function convertTyped(type: string, node: Node, root: Node, depth: number): GeminiSchema {
  const result: GeminiSchema = { ...common(node), type: typeNames[type] ?? 'STRING' };
  if (type === 'object') {
    const properties = isNode(node.properties) ? node.properties : {};
    const converted: GeminiSchema = {};
    for (const [name, property] of Object.entries(properties)) converted[name] = convert(property, root, depth + 1);
    if (Object.keys(converted).length === 0) {
      result.properties = emptyObjectProperties;
      return result;
    }
    result.properties = converted;
    // Gemini orders output alphabetically otherwise; the schema's order puts reasoning before actions.
    result.propertyOrdering = Object.keys(converted);
    const required = Array.isArray(node.required) ? node.required.filter((name) => typeof name === 'string' && name in converted) : [];
    if (required.length > 0) result.required = required;
  } else if (type === 'array') {
    result.items = node.items === undefined || Array.isArray(node.items) ? { type: 'STRING' } : convert(node.items, root, depth + 1);
    if (typeof node.minItems === 'number') result.minItems = node.minItems;
    if (typeof node.maxItems === 'number') result.maxItems = node.maxItems;
  } else if (type === 'string') {
    if (Array.isArray(node.enum)) result.enum = node.enum.filter((value) => typeof value === 'string');
    if (node.format === 'date-time') result.format = 'date-time';
  } else if (type === 'number' || type === 'integer') {
    if (typeof node.minimum === 'number') result.minimum = node.minimum;
    if (typeof node.maximum === 'number') result.maximum = node.maximum;
  }
  if (Array.isArray(result.enum) && result.enum.length > 0) result.format = 'enum';
  else delete result.enum;
  return result;
}

function typeOfValue(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return 'string';
}

function convert(input: unknown, root: Node, depth: number): GeminiSchema {
  if (!isNode(input) || depth > maxDepth) return { type: 'STRING' };
  let node: Node = input;
  if (typeof node.$ref === 'string') {
    const target = resolveRef(node.$ref, root);
    const { $ref: _ref, ...rest } = node;
    node = target ? { ...target, ...rest } : rest;
  }
  if (Array.isArray(node.allOf)) node = mergeAllOf(node);

  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives) {
    const nullable = alternatives.some((member) => isNode(member) && member.type === 'null');
    const members = alternatives.filter((member) => !(isNode(member) && member.type === 'null'));
    const base = common(node);
    if (members.length === 0) return { ...base, type: 'STRING', nullable: true };
    if (members.length === 1) return { ...convert(members[0], root, depth + 1), ...base, ...(nullable ? { nullable: true } : {}) };
    return { ...base, anyOf: members.map((member) => convert(member, root, depth + 1)), ...(nullable ? { nullable: true } : {}) };
  }

  if ('const' in node) {
    const value = node.const;
    if (value === null) return { ...common(node), type: 'STRING', nullable: true };
    const type = typeOfValue(value);
    return type === 'string' ? { ...common(node), type: 'STRING', enum: [value], format: 'enum' } : convertTyped(type, node, root, depth);
  }

  let types = Array.isArray(node.type)
    ? node.type.filter((type): type is string => typeof type === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : [];
  if (types.length === 0 && Array.isArray(node.enum)) types = [...new Set(node.enum.filter((value) => value !== null).map(typeOfValue))];
  if (types.length === 0) types = isNode(node.properties) ? ['object'] : node.items !== undefined ? ['array'] : [];
  const nullable = types.includes('null') || (Array.isArray(node.enum) && node.enum.includes(null));
  const nonNull = types.filter((type) => type !== 'null');
  const nullability = nullable ? { nullable: true } : {};
  if (nonNull.length === 0) return { ...common(node), type: 'STRING', ...nullability };
  if (nonNull.length === 1) return { ...convertTyped(nonNull[0] as string, node, root, depth), ...nullability };
  return { ...common(node), anyOf: nonNull.map((type) => convertTyped(type, node, root, depth)), ...nullability };
}

/**
 * Converts a JSON Schema to a Gemini `responseSchema`: `$ref`s inlined, `allOf` merged, `oneOf`
 * read as `anyOf`, `null` members and type arrays turned into `nullable`, `const` into a one-value
 * enum, keywords Gemini refuses (`additionalProperties`, `pattern`, …) left out, and an empty
 * object given one optional placeholder property, since Gemini refuses objects without properties.
 */
export function toGeminiSchema(schema: JSONSchema): Record<string, unknown> {
  return convert(schema, schema, 0);
}
