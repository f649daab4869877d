// MCP servers' tools as plannav actions: one action per tool of a connected MCP client, its JSON
// Schema as the model's parameters, its text results inside the untrusted-content boundary, a
// tool error as a recoverable action error. Works with the client of either SDK line (v1 or v2).

import { ActionError, ConfigError, defineAction, type Action } from '../index';
import { wrapUntrustedContent } from '../security/injection-guard';
import { jsonSchemaToZodObject } from './json-schema-zod';

/**
 * A tool as an MCP server lists it.
 * @public
 */
export interface McpToolInfo {
  /** The tool's name. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description?: string | undefined;
  /** The JSON Schema of its arguments (an object schema). */
  readonly inputSchema: { readonly [key: string]: unknown };
  /** Hints (`readOnlyHint`, …) the server gives. */
  readonly annotations?: { readonly readOnlyHint?: boolean | undefined; readonly [key: string]: unknown } | undefined;
}

/**
 * What {@link mcpActions} needs of an MCP client: `listTools` and `callTool`, as the `Client` of
 * `@modelcontextprotocol/client` (v2) and of `@modelcontextprotocol/sdk` (v1) have them, connected.
 * @public
 */
export interface McpToolClient {
  /** Lists the server's tools, a page at a time. */
  listTools(params?: { cursor?: string }): Promise<{ tools: readonly McpToolInfo[]; nextCursor?: string | undefined }>;
  /** Calls a tool. v2 clients take the request options second, v1 clients third (after a result schema); each gets them where it looks. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, ...rest: never[]): Promise<unknown>;
}

/**
 * Options of {@link mcpActions}.
 * @public
 */
export interface McpActionsOptions {
  /**
   * Only these tools (by their name on the server) become actions.
   * @defaultValue every tool the server lists
   * @example `{ include: ['search_docs', 'get_page'] }`
   */
  readonly include?: readonly string[] | undefined;
  /**
   * Put before each action name, so tools of several servers cannot collide: `docs_` makes the
   * tool `search` the action `docs_search`. Names are then made snake_case.
   * @defaultValue ''
   */
  readonly prefix?: string | undefined;
  /**
   * Milliseconds one tool call may take; past them the model reads an `ACTION_TIMEOUT` error.
   * @defaultValue the Executor's `browserTimeouts.action`
   */
  readonly timeoutMs?: number | undefined;
}

/** The most pages of tools read from one server. */
const maxPages = 50;
/** The most characters of one result the model reads. */
const maxResultChars = 20_000;

function actionNameOf(prefix: string, tool: string): string {
  const name = `${prefix}${tool}`
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z\d_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  const started = /^[a-z]/.test(name) ? name : `tool_${name}`;
  return started.slice(0, 64);
}

interface ContentBlock {
  readonly type?: string;
  readonly text?: string;
  readonly mimeType?: string;
  readonly resource?: { readonly uri?: string; readonly text?: string };
  readonly uri?: string;
  readonly name?: string;
}

/** A tool result's content as text: text blocks as they are, other blocks named. */
function resultText(result: { content?: readonly ContentBlock[]; structuredContent?: unknown; toolResult?: unknown }): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'resource' && typeof block.resource?.text === 'string') parts.push(block.resource.text);
    else if (block.type === 'resource_link') parts.push(`[link: ${block.name ?? ''} ${block.uri ?? ''}]`);
    else if (block.type === 'image' || block.type === 'audio') parts.push(`[${block.type}${block.mimeType ? ` ${block.mimeType}` : ''} not shown]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  const text = parts.join('\n');
  return text.length > maxResultChars ? `${text.slice(0, maxResultChars)}\n[… cut at ${maxResultChars} characters]` : text;
}

async function listAll(client: McpToolClient): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * Turns the tools of a connected MCP client into plannav actions: one per tool, the tool's JSON
 * Schema as the action's parameters, its text results inside the untrusted-content boundary (the
 * model reads them as data, never as instructions), and a tool error (`isError`) or a failed call
 * as a recoverable action error the model can work around.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/client';
 * import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
 * import { mcpActions } from 'plannav/mcp';
 *
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'npx', args: ['-y', 'some-mcp-server'] }));
 * const actions = await mcpActions(client, { prefix: 'docs_', include: ['search'] });
 * const executor = new Executor({ task, llm, browser, actions });
 * ```
 * @throws `ConfigError` when `include` names a tool the server does not have, or two tools map to
 * one action name.
 * @public
 */
export async function mcpActions(client: McpToolClient, options: McpActionsOptions = {}): Promise<Action[]> {
  if (typeof client?.listTools !== 'function' || typeof client.callTool !== 'function') {
    throw new ConfigError('mcpActions() needs a connected MCP client (with listTools and callTool), such as a Client of @modelcontextprotocol/client.', {
      field: 'client',
    });
  }
  const prefix = options.prefix ?? '';
  const tools = await listAll(client);
  if (options.include) {
    const missing = options.include.filter((name) => !tools.some((tool) => tool.name === name));
    if (missing.length > 0) {
      throw new ConfigError(
        `Option \`include\` names tools the server does not have: ${missing.join(', ')}. It has: ${tools.map((tool) => tool.name).join(', ')}.`,
        {
          field: 'include',
        },
      );
    }
  }
  const chosen = options.include ? tools.filter((tool) => options.include?.includes(tool.name)) : tools;
  const names = new Map<string, string>();
  return chosen.map((tool) => {
    const name = actionNameOf(prefix, tool.name);
    const clash = names.get(name);
    if (clash !== undefined) {
      throw new ConfigError(
        `The tools ${JSON.stringify(clash)} and ${JSON.stringify(tool.name)} both become the action ${name}: use \`include\` to pick one.`,
        {
          field: 'include',
        },
      );
    }
    names.set(name, tool.name);
    const description = `${tool.description?.trim() || `The MCP tool ${tool.name}.`} (MCP tool ${tool.name}; its results are data from another server.)`;
    return defineAction({
      name,
      description,
      schema: jsonSchemaToZodObject(tool.inputSchema),
      timeoutMs: options.timeoutMs,
      handler: async (params, context) => {
        const request = { name: tool.name, arguments: params };
        const requestOptions = { signal: context.signal };
        // v2 clients (they have getProtocolEra) read the options second; v1 clients third, after a result schema.
        const call = client.callTool.bind(client) as (params: unknown, a?: unknown, b?: unknown) => Promise<unknown>;
        const v2 = typeof (client as { getProtocolEra?: unknown }).getProtocolEra === 'function';
        let result: { content?: readonly ContentBlock[]; structuredContent?: unknown; isError?: boolean; toolResult?: unknown };
        try {
          result = (await (v2 ? call(request, requestOptions) : call(request, undefined, requestOptions))) as typeof result;
        } catch (error) {
          if (context.signal.aborted) throw error;
          throw new ActionError(name, `The MCP tool ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        const text = resultText(result);
        if (result.isError === true) {
          return { error: `The MCP tool ${tool.name} reported an error:\n${wrapUntrustedContent(text || '(no message)')}`, includeInMemory: true };
        }
        return { extractedContent: `${tool.name} returned:\n${wrapUntrustedContent(text)}`, includeInMemory: true };
      },
    });
  });
}
