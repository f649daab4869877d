// Plugging in your own model: an LLMClient over fetch for any OpenAI-compatible endpoint (a
// gateway, a local server). plannav validates and repairs the output and retries what is retryable.

import { chatModelErrorFromStatus, type GenerateRequest, type GenerateResult, type LLMClient } from 'plannav/provider';

export function createGatewayClient(options: { baseUrl: string; apiKey: string; model: string }): LLMClient {
  return {
    specificationVersion: 'v1',
    provider: 'my-gateway',
    model: options.model,
    supportsImages: false,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const response = await fetch(`${options.baseUrl}/chat/completions`, {
        method: 'POST',
        signal: request.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({
          model: options.model,
          messages: request.messages.map((message) => ({
            role: message.role,
            content: typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
          })),
          response_format: request.output ? { type: 'json_object' } : undefined,
          temperature: request.temperature,
          max_tokens: request.maxOutputTokens,
        }),
      });
      if (!response.ok) {
        const retryAfter = Number(response.headers.get('retry-after'));
        throw chatModelErrorFromStatus({
          status: response.status,
          message: await response.text(),
          retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
          requestId: response.headers.get('x-request-id') ?? undefined,
        });
      }
      const body = (await response.json()) as {
        choices: { message: { content: string }; finish_reason: string }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      };
      const choice = body.choices[0];
      return {
        text: choice?.message.content,
        finishReason: choice?.finish_reason === 'length' ? 'length' : 'stop',
        usage: { inputTokens: body.usage?.prompt_tokens, outputTokens: body.usage?.completion_tokens },
        raw: body,
      };
    },
  };
}
