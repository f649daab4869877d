// Counts what the model calls of one act() or extract() cost: the client given, wrapped so every
// call it answers adds its tokens. It changes nothing of the calls themselves.

import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, normalizeUsage, type TokenUsage } from '../llm/usage';

/** `llm`, counting: `usage()` is the sum of the calls it answered so far (failed calls cost nothing). */
export function countingClient(llm: LLMClient): { readonly client: LLMClient; usage(): TokenUsage } {
  let total = emptyUsage;
  const client: LLMClient = {
    specificationVersion: llm.specificationVersion,
    provider: llm.provider,
    model: llm.model,
    supportsImages: llm.supportsImages,
    generate: async (request) => {
      const result = await llm.generate(request);
      total = addUsage(total, normalizeUsage(result.usage));
      return result;
    },
  };
  // No price table here: the cost is unknown, as an Executor without `prices` reports it.
  return { client, usage: () => ({ ...total, costUsd: total.calls === 0 ? 0 : undefined }) };
}
