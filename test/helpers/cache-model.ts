// A model stand-in for act()'s instruction form in the action-cache tests: it reads the page state it is sent (the
// `[index]<tag>text` lines of the state text, as the Navigator gets them) and picks the "Add to cart" button of one
// product, as a model would, never by a fixed index. Its answer is written in whichever of the usual shapes the
// request's output schema accepts: the Navigator's `{ current_state, action: [{ click_element: { index } }] }`, or
// `{ action: 'click_element', params: { index } }` (and a few near variants). When the product is not on the page, it
// fails the call, as a careful model would refuse to guess.
import { z } from 'zod';
import { ChatModelError } from '../../src/errors';
import type { GenerateRequest } from '../../src/llm/types';
import { ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../../src/testing/scripted-llm';
import { shopProductNames } from './cache-shop';

/** Every text the request holds (system and user messages), one string. */
export function requestText(request: GenerateRequest): string {
  return request.messages
    .map((message) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    )
    .join('\n');
}

const elementLine = /^\s*\*?\[(\d+)\]<button\b[^>]*>(.*?)(?:\s*\/>)?\s*$/;

/**
 * The index of `product`'s "Add to cart" button in the state text: a button labelled "Add <product> to cart", or the
 * first "Add to cart" button after the line that names the product, before the next product's name.
 */
export function addButtonIndex(text: string, product: string): number | undefined {
  const lines = text.split('\n');
  const own = new RegExp(`^add ${product} to cart$`, 'i');
  for (const line of lines) {
    const match = elementLine.exec(line);
    if (match && own.test(match[2]!.trim())) return Number(match[1]);
  }
  const names = shopProductNames.map((name) => name.toLowerCase());
  for (let at = 0; at < lines.length; at++) {
    if (lines[at]!.trim().toLowerCase() !== product.toLowerCase()) continue;
    for (let next = at + 1; next < lines.length; next++) {
      const line = lines[next]!.trim();
      if (names.includes(line.toLowerCase())) break;
      const match = elementLine.exec(line);
      if (match && /^add to cart$/i.test(match[2]!.trim())) return Number(match[1]);
    }
  }
  return undefined;
}

/** The shapes a model's answer "click element `index`" may take, the Navigator's first. */
function candidates(action: string, params: Record<string, unknown>): Record<string, unknown>[] {
  const index = params.index;
  return [
    { current_state: { evaluation_previous_goal: 'Unknown', memory: '', next_goal: 'Add the product to the cart' }, action: [{ [action]: params }] },
    { action: [{ [action]: params }] },
    { action, params },
    { action, parameters: params },
    { action: { [action]: params } },
    { name: action, params },
    { action_name: action, params },
    { action, ...params },
    { index },
    { element_index: index, action },
    { elementIndex: index, action },
  ];
}

/** The first shape the request's JSON schema accepts; the Navigator's when there is no schema or it cannot be read. */
export function answerFor(request: GenerateRequest, action: string, params: Record<string, unknown>): Record<string, unknown> {
  const shapes = candidates(action, params);
  if (!request.output) return shapes[0]!;
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(request.output.schema);
  } catch {
    return shapes[0]!;
  }
  const fits = shapes.find((shape) => schema.safeParse(shape).success);
  if (!fits) {
    throw new Error(
      `The test's model stand-in cannot write "${action} ${JSON.stringify(params)}" in the output schema ${request.output.name}: ${JSON.stringify(request.output.schema).slice(0, 600)}`,
    );
  }
  return fits;
}

/** Options of {@link productPicker}. */
export interface ProductPickerOptions {
  /** How many calls it answers; later ones fail (a test that expects no more calls sees them in `requests`). @defaultValue no limit */
  readonly maxCalls?: number | undefined;
}

/**
 * A ScriptedLLM that, asked to act, clicks `product`'s "Add to cart" button on the page it is shown. Its calls are in
 * `requests` / `callCount`. Usage: 200 input and 30 output tokens a call.
 */
export function productPicker(product: string, options: ProductPickerOptions = {}): ScriptedLLM {
  return new ScriptedLLM({
    usage: { inputTokens: 200, outputTokens: 30 },
    respond: (request: ScriptedRequest): ScriptedResponse => {
      if (options.maxCalls !== undefined && request.callIndex >= options.maxCalls) {
        return {
          fail: 'error',
          error: new ChatModelError(`The test expected at most ${options.maxCalls} model call(s); this is call ${request.callIndex + 1}.`),
        };
      }
      const index = addButtonIndex(requestText(request), product);
      if (index === undefined) {
        return { fail: 'error', error: new ChatModelError(`There is no ${product} on this page: the model will not guess another product.`) };
      }
      const object = answerFor(request, 'click_element', { index });
      return { object, text: JSON.stringify(object) };
    },
  });
}
