// The public face of `plannav/anthropic`: the Anthropic Messages API adapter.
// Runs in any JavaScript runtime with `fetch`; it must not import a `node:` module.

export { AnthropicChatModel } from './anthropic-chat-model';
export type { AnthropicChatModelOptions } from './anthropic-chat-model';
export type { AnthropicThinkingOptions } from './wire';
export type { FetchFunction } from '../providers/http';
export type { HttpModelOptions } from '../providers/options';
