// Shared set-up for the loop's tests: a small fake site, a click action defined the way a host
// would, and a Navigator that reads indices from the state text it receives.

import { z } from 'zod';
import { defineAction, type ExecutorOptions } from '../../src/index';
import { FakeBrowserDriver, type FakePage, type ScriptedRequest } from '../../src/testing/index';

export const shopPages: Record<string, FakePage> = {
  'https://shop.test/': {
    title: 'Shop',
    content: [
      'Welcome to the shop',
      { tag: 'a', text: 'Mugs', href: 'https://shop.test/mugs' },
      { tag: 'a', text: 'Plates', href: 'https://shop.test/plates' },
    ],
  },
  'https://shop.test/mugs': {
    title: 'Mugs',
    content: ['Blue mug $12', { tag: 'button', text: 'Add blue mug' }, 'Red mug $9', { tag: 'button', text: 'Add red mug' }],
  },
};

export function shopBrowser(): FakeBrowserDriver {
  return new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages: shopPages });
}

/** A click action as a host would define it with the public API. */
export const clickAction = defineAction({
  name: 'click_element',
  description: 'Click the element with this index',
  schema: z.object({ index: z.number().int().describe('The element index') }),
  handler: async ({ index }, context) => {
    await context.driver.click(context.element(index), { signal: context.signal });
    return `Clicked element ${index}`;
  },
});

/** Finds the index of the first element line whose text contains `label`. */
export function indexOf(stateText: string, label: string): number | undefined {
  for (const line of stateText.split('\n')) {
    const match = /\[(\d+)\]<[^>]*>(.*) \/>/.exec(line);
    if (match && match[2]?.includes(label)) return Number(match[1]);
  }
  return undefined;
}

/** The text of every message of a request, joined: to check what a model was shown. */
export function conversationText(request: ScriptedRequest): string {
  return request.messages
    .map((message) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(''),
    )
    .join('\n');
}

/** Options with fast retries, so tests of transient failures take milliseconds. */
export const fastRetry: ExecutorOptions['modelRetry'] = { retries: 2, minTimeout: 1, maxTimeout: 2 };
