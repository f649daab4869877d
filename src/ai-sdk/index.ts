// The public face of `plannav/ai-sdk`: any Vercel AI SDK language model as an LLMClient.
// Needs the optional peer dependency `ai` (v5 or v6); it must not import a `node:` module.

export { AISDKChatModel } from './ai-sdk-chat-model';
export type { AISDKChatModelOptions } from './ai-sdk-chat-model';
