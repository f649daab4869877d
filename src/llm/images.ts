// Removes image parts from a conversation, for models without vision or agents told not to look.

import type { ChatMessage, ContentPart } from './types';

/** Whether any message carries an image. */
export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => Array.isArray(message.content) && message.content.some((part: ContentPart) => part.type === 'image'));
}

/** The same conversation with every image part removed. */
export function withoutImages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== 'user' || typeof message.content === 'string') return message;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    return { role: 'user', content: text };
  });
}
