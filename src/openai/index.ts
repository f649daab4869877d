// The public face of `plannav/openai`: the OpenAI-compatible chat adapter and its presets.
// Runs in any JavaScript runtime with `fetch`; it must not import a `node:` module.

export { OpenAIChatModel } from './openai-chat-model';
export type { OpenAIChatModelOptions } from './openai-chat-model';
export type { OpenAIStructuredOutput } from './wire';
export { azureOpenAI, deepseek, groq, lmStudio, mistral, ollama, openai, openAIPresets, openRouter, together, vllm } from './presets';
export type { AzureOpenAIOptions, OpenAIPreset, OpenAIPresetName, OpenAIPresetOptions } from './presets';
export type { FetchFunction } from '../providers/http';
export type { HttpModelOptions } from '../providers/options';
