// The instruction that carries a JSON Schema in the prompt, for JSON modes that take no schema
// (OpenAI-compatible `json_object`). Text only; no provider format here.

import type { StructuredOutputRequest } from '../llm/types';

/**
 * The instruction that asks for one JSON object of the requested shape, for APIs whose JSON mode
 * does not take a schema (it then travels in the prompt).
 */
export function schemaInstruction(output: StructuredOutputRequest): string {
  const what = output.description ? ` (${output.description})` : '';
  return [
    `Reply with exactly one JSON object named ${output.name}${what}, and nothing else: no prose, no code fences.`,
    'It must follow this JSON Schema:',
    JSON.stringify(output.schema),
  ].join('\n');
}
