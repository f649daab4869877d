// The public face of `plannav/models`: createLLM('provider:model') for the CLI and quick starts.
// Reads keys through globalThis.process?.env; it must not import a `node:` module.

export { createLLM, providerEnvironment } from './create-llm';
export type { CreateLLMOptions, LLMProviderName } from './create-llm';
export type { FetchFunction } from '../providers/http';
