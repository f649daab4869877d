// The demo's stand-in for a model: a ScriptedLLM that reads the task and the page state it is
// sent, as a model would, and decides from labels and prices, never from fixed indices.

import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../testing/index';

/** Options of {@link scriptedShopper}. */
export interface ScriptedShopperOptions {
  /**
   * Milliseconds each model call waits before it answers (the abort signal of the call ends the
   * wait), so that a person or a test can see a call in flight, pause or stop. @defaultValue 0
   */
  readonly callDelayMs?: number | undefined;
}

/** The question the Navigator asks once, first, when the task says "ask me". */
export const shopperQuestion = 'Before I start: is there anything I should know about this order?';

/**
 * The scripted stand-in for a model: the Planner's and the Navigator's calls are told apart by
 * the output they ask for. A task with the words "ask me" makes the Navigator ask the user one
 * question (`ask_human`) before anything else.
 */
export function scriptedShopper(options: ScriptedShopperOptions = {}): ScriptedLLM {
  // What the Navigator's calls showed: whether `done` must carry structured data (an output schema).
  // The Planner then leaves the end to the Navigator's `done`, which carries it.
  let doneNeedsData = false;
  return new ScriptedLLM({
    confirmations: 'script',
    // ScriptedLLM's own wait: the call's abort signal (a cancel) ends it at once.
    latencyMs: options.callDelayMs ?? 0,
    respond: (request) => {
      if (request.output?.name === 'planner_confirmation') return confirm(request);
      if (request.agent === 'planner') return plan(request, doneNeedsData);
      doneNeedsData = doneDataSchema(request) !== undefined;
      return navigate(request);
    },
  });
}

/**
 * A confirmation (the `sensitiveActions` policy asks before a purchase form is sent and before the
 * task ends): shown only the user's words and the action, it confirms a cart or checkout form of
 * a buying task and an answer that names an item, and turns down anything else.
 */
function confirm(request: ScriptedRequest): { object: { confirmed: boolean; reason: string } } {
  const text = request.lastUserText;
  const buying = /\b(?:buy|order|purchase|cart)\b/i.test(/<user_request>([\s\S]*?)<\/user_request>/.exec(text)?.[1] ?? '');
  const answer = /would end the task with this answer/.test(text);
  const purchaseStep = /"(?:Add to cart|Place order|Checkout|Check out|Buy now)"/i.test(text);
  const confirmed = answer || (buying && purchaseStep);
  return { object: { confirmed, reason: confirmed ? 'The request asks for this.' : 'The request does not ask for this.' } };
}

/** One indexed element of the state text, with the page text just above and below it. */
interface ElementLine {
  readonly index: number;
  readonly tag: string;
  readonly attributes: string;
  readonly text: string;
  readonly above: string;
  readonly below: string;
}

/** The page as the state text shows it: the current tab's URL and title, and its elements. */
function readPage(state: string): { url: string; title: string; elements: ElementLine[] } {
  const tab = JSON.parse(/^Current tab: (.+)$/m.exec(state)?.[1] ?? '{}') as { url?: string; title?: string };
  const elements: ElementLine[] = [];
  let textAbove = '';
  for (const line of state.split('\n').map((text) => text.trim())) {
    const match = /^\*?\[(\d+)\]<(\w+)((?: [\w-]+(?:="(?:[^"\\]|\\.)*")?)*)>(.*) \/>/.exec(line);
    if (match) {
      elements.push({ index: Number(match[1]), tag: match[2] ?? '', attributes: match[3] ?? '', text: match[4] ?? '', above: textAbove, below: '' });
    } else {
      const last = elements.at(-1);
      if (last && !last.below) elements[elements.length - 1] = { ...last, below: line };
      textAbove = line;
    }
  }
  return { url: tab.url ?? '', title: tab.title ?? '', elements };
}

/** Everything the user side of the conversation said: the task, page states, action results. */
function userText(request: ScriptedRequest): string {
  const text = (content: ScriptedRequest['messages'][number]['content']): string =>
    typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return request.messages.map((message) => (message.role === 'user' ? text(message.content) : '')).join('\n');
}

/** The finding the Navigator saved with `cache_content`, once it did. */
function cachedFinding(request: ScriptedRequest): string | undefined {
  return /Cached findings: (Cheapest .+)/.exec(userText(request))?.[1];
}

/** What the task asks for, read from its words. */
function readTask(request: ScriptedRequest): { shopUrl: string; colour: string; maxPrice: number; section: string } {
  const task = [...userText(request).matchAll(/<user_request>([\s\S]*?)<\/user_request>/g)].at(-1)?.[1] ?? '';
  return {
    shopUrl: /https?:\/\/\S+\//.exec(task)?.[0] ?? '',
    colour: /cheapest (\w+) item/i.exec(task)?.[1] ?? '',
    maxPrice: Number(/under \$(\d+(?:\.\d+)?)/.exec(task)?.[1] ?? Number.NaN),
    section: /in the (.+?) section/i.exec(task)?.[1] ?? '',
  };
}

const sameWords = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The cart's lines, as the cart page writes them: `Blue bowl Colour: Blue $11.50 Quantity: 1`. */
function cartLines(state: string): { name: string; colour: string; price: number }[] {
  return [...state.matchAll(/^\s*(.+?) Colour: (\w+) \$(\d+(?:\.\d+)?) Quantity: \d+$/gm)].map((match) => ({
    name: match[1] ?? '',
    colour: match[2] ?? '',
    price: Number(match[3]),
  }));
}

type JsonSchemaNode = { readonly [key: string]: unknown };

const isNode = (value: unknown): value is JsonSchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema `node` stands for, its `$ref` (`#/$defs/…`, `#/definitions/…`) followed within `root`. */
function resolved(node: unknown, root: JsonSchemaNode): JsonSchemaNode | undefined {
  if (!isNode(node)) return undefined;
  if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  let target: unknown = root;
  for (const part of node.$ref.slice(2).split('/')) target = isNode(target) ? target[part] : undefined;
  return isNode(target) ? target : undefined;
}

/** The schema of the `done` action's `data`, when the Navigator's output schema asks for structured data (an `outputSchema`). */
function doneDataSchema(request: ScriptedRequest): JsonSchemaNode | undefined {
  const root = request.output?.schema as unknown;
  if (!isNode(root)) return undefined;
  const seen = new Set<unknown>();
  const search = (node: unknown): JsonSchemaNode | undefined => {
    const schema = resolved(node, root);
    if (!schema || seen.has(schema)) return undefined;
    seen.add(schema);
    const done = isNode(schema.properties) ? resolved(schema.properties.done, root) : undefined;
    const data = done && isNode(done.properties) ? resolved(done.properties.data, root) : undefined;
    if (data && isNode(data.properties)) return data;
    for (const child of Object.values(schema)) {
      const found = Array.isArray(child) ? child.map(search).find(Boolean) : search(child);
      if (found) return found;
    }
    return undefined;
  };
  return search(root);
}

/**
 * The `data` of `done` for an output schema, filled as a model would: each property from what its
 * name and description ask for (the item's name, its price, colour, the page's URL), else the answer
 * in words for a string, the price for a number, true for a boolean. Undefined without a schema.
 */
function structuredData(
  request: ScriptedRequest,
  item: { name: string; colour: string; price: number; url: string; text: string },
): Record<string, unknown> | undefined {
  const schema = doneDataSchema(request);
  if (!schema || !isNode(schema.properties)) return undefined;
  const data: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const node = isNode(property) ? property : {};
    const type = typeof node.type === 'string' ? node.type : 'string';
    const words = `${key} ${typeof node.description === 'string' ? node.description : ''}`.toLowerCase();
    if (type === 'number' || type === 'integer') data[key] = type === 'integer' ? Math.round(item.price) : item.price;
    else if (type === 'boolean') data[key] = true;
    else if (/price|cost|amount/.test(words)) data[key] = `$${item.price.toFixed(2)}`;
    else if (/colou?r/.test(words)) data[key] = item.colour;
    else if (/url|link|page/.test(words)) data[key] = item.url;
    else if (/name|item|product|title/.test(words)) data[key] = item.name;
    else data[key] = item.text;
  }
  return data;
}

/** A Navigator reply: the goal of this step and its actions. */
function act(nextGoal: string, ...actions: Record<string, unknown>[]): string {
  return scriptedActions(actions, { nextGoal });
}

/** Whether the task asks to be asked ("ask me"), and the Navigator has not asked yet. */
function mustAskFirst(request: ScriptedRequest): boolean {
  const task = [...userText(request).matchAll(/<user_request>([\s\S]*?)<\/user_request>/g)].at(-1)?.[1] ?? '';
  // The ask_human action's result names the question, answered or not.
  return (
    /\bask me\b/i.test(task) && !userText(request).includes(`question "${shopperQuestion}"`) && !userText(request).includes(`answered "${shopperQuestion}"`)
  );
}

/** The Navigator: one decision per page, from what the page shows. */
function navigate(request: ScriptedRequest): string {
  if (mustAskFirst(request)) return act('Ask the user before starting', { ask_human: { question: shopperQuestion } });
  const goal = readTask(request);
  const state = request.lastUserText;
  const page = readPage(state);
  const find = (test: (element: ElementLine) => boolean): ElementLine | undefined => page.elements.find(test);
  const button = (label: RegExp): ElementLine | undefined => find((element) => element.tag === 'button' && label.test(element.text));

  // A task that names no shop is done on the shop the browser shows (a front door opens it first).
  const shopUrl = goal.shopUrl || (/^https?:/.test(page.url) ? `${new URL(page.url).origin}/` : '');
  if (!shopUrl) return scriptedActions([{ done: { text: 'The task names no shop to go to.', success: false } }], { nextGoal: 'Say there is no shop' });
  if (!page.url.startsWith(shopUrl)) return act('Open the shop', { go_to_url: { url: shopUrl } });
  const accept = button(/accept/i);
  if (accept) return act('Accept the cookie banner that covers the page', { click_element: { index: accept.index } });

  const added = cartLines(state).find((line) => sameWords(line.colour, goal.colour) && line.price < goal.maxPrice);
  if (/cart/i.test(page.title) && added) {
    const text = `The cart holds ${added.name} at $${added.price.toFixed(2)}.`;
    const data = structuredData(request, { ...added, url: page.url, text });
    return scriptedActions([{ done: { text, success: true, ...(data === undefined ? {} : { data }) } }], {
      evaluation: 'Success - the item is in the cart',
      nextGoal: 'Report the cart',
    });
  }

  // A product page: add it only if it is what the task asks for ("Buy now" is how the shop's broken variant says it).
  const addToCart = button(/add to (?:cart|basket)|buy now/i);
  const colour = /^\s*Colour: (\w+)$/m.exec(state)?.[1] ?? '';
  const price = Number(/^\s*Price: \$([\d.]+)$/m.exec(state)?.[1]);
  if (addToCart && sameWords(colour, goal.colour) && price < goal.maxPrice) {
    return act(`Add ${page.title.split(' - ')[0]} to the cart`, { click_element: { index: addToCart.index } });
  }

  // The section's listing: filter it, then pick the cheapest match from the prices shown.
  const colourSelect = find((element) => element.tag === 'select' && /options=/.test(element.attributes));
  const colourOption = /options="([^"]*)"/
    .exec(colourSelect?.attributes ?? '')?.[1]
    ?.split('|')
    .find((option) => sameWords(option, goal.colour));
  if (colourSelect && colourOption && page.title.toLowerCase().startsWith(goal.section.toLowerCase())) {
    const priceInput = find((element) => element.tag === 'input' && /price/i.test(element.above + element.attributes));
    const apply = button(/apply|filter/i);
    const filtered = colourSelect.attributes.includes(`selected="${colourOption}"`) && priceInput?.attributes.includes(`value="${goal.maxPrice}"`);
    if (!filtered && priceInput && apply) {
      return act(
        `Filter the list: colour ${colourOption}, max price $${goal.maxPrice}`,
        { select_dropdown_option: { index: colourSelect.index, text: colourOption } },
        { input_text: { index: priceInput.index, text: String(goal.maxPrice) } },
        { click_element: { index: apply.index } },
      );
    }
    // Each product is a link with "Colour: … $price" on the line below. The filter is not trusted: every line is checked.
    const candidates = page.elements
      .map((element) => ({ element, colour: /Colour: (\w+)/.exec(element.below)?.[1] ?? '', price: Number(/\$(\d+(?:\.\d+)?)/.exec(element.below)?.[1]) }))
      .filter((candidate) => candidate.element.tag === 'a' && sameWords(candidate.colour, goal.colour) && candidate.price < goal.maxPrice)
      .sort((a, b) => a.price - b.price);
    const cheapest = candidates[0];
    if (!cheapest)
      return act('Report that nothing matches', { done: { text: `No ${goal.colour} item under $${goal.maxPrice} in ${goal.section}.`, success: false } });
    if (!cachedFinding(request)) {
      const listed = candidates.map((candidate) => `${candidate.element.text} $${candidate.price.toFixed(2)}`).join(', ');
      const finding = `Cheapest ${goal.colour} item under $${goal.maxPrice} in ${goal.section}: ${cheapest.element.text} at $${cheapest.price.toFixed(2)} (listed: ${listed})`;
      return act('Note the cheapest match before leaving the list', { cache_content: { content: finding } });
    }
    return act(`Open ${cheapest.element.text}`, { click_element: { index: cheapest.element.index } });
  }

  const sectionLink = find((element) => element.tag === 'a' && sameWords(element.text, goal.section));
  if (sectionLink) return act(`Open the ${goal.section} section`, { click_element: { index: sectionLink.index } });
  return act('Start again from the home page', { go_to_url: { url: shopUrl } });
}

/** The `done` the Navigator proposed in its latest reply, if it did. */
function proposedDone(request: ScriptedRequest): { text?: string; success?: boolean } | undefined {
  const reply = request.messages.findLast(
    (message) => message.role === 'assistant' && typeof message.content === 'string' && message.content.includes('"action"'),
  );
  try {
    const parsed = JSON.parse(typeof reply?.content === 'string' ? reply.content : '{}') as { action?: { done?: { text?: string; success?: boolean } }[] };
    return parsed.action?.find((action) => action.done)?.done;
  } catch {
    return undefined;
  }
}

/**
 * The Planner: it sets the plan, and declares the task done once the cart page shows the item (and,
 * when `done` must carry data, the Navigator proposed it with the data) or the Navigator found none.
 */
function plan(request: ScriptedRequest, doneNeedsData: boolean): string {
  const goal = readTask(request);
  const page = readPage(request.lastUserText);
  const proposal = proposedDone(request);
  if (proposal?.success === false) return scriptedPlan({ done: true, observation: 'No item matches.', finalAnswer: proposal.text ?? '' });
  const added = cartLines(request.lastUserText).find((line) => sameWords(line.colour, goal.colour) && line.price < goal.maxPrice);
  if (/cart/i.test(page.title) && added && doneNeedsData && !proposal) {
    return scriptedPlan({ observation: 'The cart page shows the item.', nextSteps: 'Report the item in the cart, with the structured data asked for.' });
  }
  if (/cart/i.test(page.title) && added) {
    // "The cheapest" only when the Navigator's own note named this item.
    const noted = cachedFinding(request)?.includes(`: ${added.name} at $`);
    const answer = `${added.name} ($${added.price.toFixed(2)}) is in the cart${noted ? `: the cheapest ${goal.colour} item under $${goal.maxPrice} in the ${goal.section} section` : ''}.`;
    return scriptedPlan({ done: true, observation: 'The cart page shows the item.', finalAnswer: answer });
  }
  const steps = [
    `Open the shop and its ${goal.section} section`,
    `filter by colour ${goal.colour} and max price $${goal.maxPrice}`,
    'open the cheapest result',
    'add it to the cart and check the cart.',
  ];
  // Where the page shows we are: on a product page, in the section, or not there yet.
  const reached = /^\s*Price: \$/m.test(request.lastUserText) ? 3 : page.title.toLowerCase().startsWith(goal.section.toLowerCase()) ? 1 : 0;
  const nextSteps = steps.slice(reached).join(', then ');
  return scriptedPlan({
    observation: page.title ? `On ${page.title}.` : 'Nothing is open yet.',
    nextSteps: nextSteps.charAt(0).toUpperCase() + nextSteps.slice(1),
  });
}
