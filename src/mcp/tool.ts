// One MCP tool of plannav's server: its name, description, input schema (zod, published as JSON
// Schema), annotations and handler; and the shape of what a handler returns.

import { z } from 'zod';
import { PlannavError } from '../index';

/** A JSON Schema object. */
type JSONSchema = { readonly [key: string]: unknown };

/** The JSON Schema of a tool's input as a client reads it: inlined, without `$schema`. */
function toModelJsonSchema(schema: z.ZodType): JSONSchema {
  const converted = z.toJSONSchema(schema, { io: 'input', reused: 'inline', unrepresentable: 'any' }) as Record<string, unknown>;
  delete converted.$schema;
  return converted;
}

/** A tool result as MCP carries it. */
export interface ToolResult {
  readonly content: readonly ToolContent[];
  readonly structuredContent?: Record<string, unknown> | undefined;
  readonly isError?: boolean | undefined;
  readonly [key: string]: unknown;
}

/** One content block of a result: text, or an image. */
export type ToolContent = { readonly type: 'text'; readonly text: string } | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/** What a handler gets besides its arguments. */
export interface ToolCall {
  /** Aborted when the client cancels the request, or the server closes. */
  readonly signal: AbortSignal;
  /** Sends one progress notification, when the request asked for them (else does nothing). */
  progress(progress: number, message: string, total?: number): Promise<void>;
  /**
   * Asks the person at the client through MCP elicitation; `undefined` when the client cannot
   * (it did not declare the capability), and the answer's text, or `undefined` when declined.
   */
  readonly elicit: ((question: string, options: { readonly signal: AbortSignal; readonly timeout: number }) => Promise<string | undefined>) | undefined;
}

/** Hints a client may show or act on (`readOnlyHint` marks tools that change nothing). */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** A tool of the server. */
export interface ToolSpec<S extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
  run(args: z.output<S>, call: ToolCall): Promise<ToolResult>;
}

/** Declares a tool; its arguments are checked against `input` before `run`. */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): ToolSpec {
  // The list holds tools of different inputs; each one's run() only ever gets what its input parsed.
  return spec;
}

/**
 * The JSON Schema a client sees for a tool's input: an object, never a top-level
 * `oneOf`/`anyOf`/`allOf` (some clients reject those), no `$schema` key.
 */
export function toolInputSchema(input: z.ZodObject): JSONSchema & { readonly type: 'object' } {
  const schema = toModelJsonSchema(input) as Record<string, unknown>;
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    if (key in schema) throw new Error(`Tool input schemas may not have a top-level ${key}.`);
  }
  return { ...schema, type: 'object' };
}

/** A successful result: the text summary first, the same facts as structured content. */
export function toolResult(summary: string, structured?: Record<string, unknown>): ToolResult {
  return structured === undefined
    ? { content: [{ type: 'text', text: summary }] }
    : { content: [{ type: 'text', text: summary }], structuredContent: structured };
}

/** A tool error: the client's model reads the message and may try something else. */
export function toolError(message: string, structured?: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, ...(structured ? { structuredContent: structured } : {}) };
}

/** A thrown error as a tool error: plannav's errors by their message, others with their kind. */
export function errorResult(error: unknown): ToolResult {
  if (PlannavError.isInstance(error)) return toolError(error.message, { error: { name: error.name, code: error.code } });
  return toolError(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/** zod issues as one line: `field: problem; field: problem`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(arguments)'}: ${issue.message}`).join('; ');
}
