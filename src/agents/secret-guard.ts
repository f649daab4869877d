// The model side of the secrets: every request a model client gets is redacted first (whatever
// path a value took into the conversation, the model never reads it), so is every error it throws,
// and the state message names the secrets the current page may use.

import type { ChatMessage, ContentPart, LLMClient } from '../llm/types';
import { secretPlaceholder, type SecretStore } from '../security/secrets';

/** A message with every known secret value replaced by its placeholder. */
export function redactMessage(message: ChatMessage, secrets: SecretStore): ChatMessage {
  if (typeof message.content === 'string') return { ...message, content: secrets.redact(message.content) };
  return { role: 'user', content: message.content.map((part) => (part.type === 'text' ? { ...part, text: secrets.redact(part.text) } : part)) };
}

/** `llm` with each request's messages redacted; the same client when there is no secret. */
export function redactingClient(llm: LLMClient, secrets: SecretStore): LLMClient;
export function redactingClient(llm: LLMClient | undefined, secrets: SecretStore): LLMClient | undefined;
export function redactingClient(llm: LLMClient | undefined, secrets: SecretStore): LLMClient | undefined {
  if (!llm || secrets.isEmpty) return llm;
  return {
    specificationVersion: llm.specificationVersion,
    provider: llm.provider,
    model: llm.model,
    supportsImages: llm.supportsImages,
    generate: async (request) => {
      try {
        return await llm.generate({ ...request, messages: request.messages.map((message) => redactMessage(message, secrets)) });
      } catch (error) {
        // A provider's error may quote the request or anything else: redacted (in place, with its
        // causes and fields such as `responseBody`) before it reaches a retry, an event or the history.
        throw secrets.redactDeep(error);
      }
    },
  };
}

/** The line of the state message that names the secrets of the page at `url`; empty when there are none. */
export function secretNamesLine(secrets: SecretStore, url: string | undefined): string {
  const names = secrets.namesFor(url);
  if (names.length === 0) return '';
  return `Secrets for this page (you never see their values): ${names.map((name) => secretPlaceholder(name)).join(', ')}. To use one, write its placeholder exactly so in an action's text (for example input_text with text "${secretPlaceholder(names[0] as string)}"); it is filled in when the action runs.`;
}

/** The state message with the secret names of its page added and every known value redacted. */
export function secretStateMessage(content: string | readonly ContentPart[], secrets: SecretStore, url: string): string | ContentPart[] {
  const line = secretNamesLine(secrets, url);
  const text = (body: string): string => secrets.redact(line ? `${body}\n${line}` : body);
  if (typeof content === 'string') return text(content);
  let added = false;
  return content.map((part) => {
    if (part.type !== 'text' || added) return part;
    added = true;
    return { ...part, text: text(part.text) };
  });
}
