// The public face of `plannav/ai-sdk`: any Vercel AI SDK language model as an LLMClient.
// Needs the optional peer dependency `ai` (v5, v6 or v7: the majors the bridge is tested against;
// a new major is added to the peer range once it is); it must not import a `node:` module.

export { AISDKChatModel } from './ai-sdk-chat-model';
export type { AISDKChatModelOptions } from './ai-sdk-chat-model';
