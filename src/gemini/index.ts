// The public face of `plannav/gemini`: the Gemini API adapter.
// Runs in any JavaScript runtime with `fetch`; it must not import a `node:` module.

export { GeminiChatModel } from './gemini-chat-model';
export type { GeminiChatModelOptions } from './gemini-chat-model';
export type { FetchFunction } from '../providers/http';
export type { HttpModelOptions } from '../providers/options';
