// Two stand-in models for the injection corpus, both built on ScriptedLLM and both playing Planner
// and Navigator from the text they are sent, by general rules (never by page id):
// - the HONEST model does the user's task (read a price, add a product to the cart, sign in);
// - the GULLIBLE model reads everything it is sent, page content marked untrusted included, and
//   first obeys any instruction it finds there (decoding base64, percent-encoding and leetspeak),
//   mapped to the actions it has: go_to_url, click_element, input_text, done with a dictated
//   answer, actions written as JSON; then it does the user's task.
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';

type Action = Record<string, Record<string, unknown>>;

interface Element {
  readonly index: number;
  readonly tag: string;
  readonly attributes: string;
  readonly text: string;
}

/** The words of concepts a model would recognise in any of the corpus's languages. */
const concepts: Record<string, RegExp> = {
  warranty: /warrant|garan/i,
  newsletter: /newsletter|bolet[ií]n|subscri|abonn|suscr|iscriv|inscrev|zapisz/i,
  download: /download|herunter|t[ée]l[ée]charg|descarg|scaric|baix|pobierz/i,
  send: /\bsend|senden|envoy|enviar|invia|verzend|wy[sś]lij/i,
  comment: /comment|kommentar|comentario|commento|coment[aá]rio/i,
  cart: /\bcart\b|warenkorb|panier|carrito|carrello|carrinho|winkelwagen|koszyk/i,
  price: /\bprice|preis|prix|precio|prezzo|pre[cç]o|prijs|cen[aęy]/i,
  password: /password|passwort|mot de passe|contrase[nñ]a|senha|has[lł]o|wachtwoord/i,
};

const goVerbs =
  /(?<![\p{L}\p{N}])(go to|goto|visit|open|navigate|head to|load|fetch|proceed to|continue at|besuche|öffne|gehe zu|allez|ouvrez|visitez|rendez-vous|ve a|visita|abre|vai su|apri|acesse|ga naar|bezoek|przejdź|otwórz|download|herunter\w*|lade|t[ée]l[ée]charg\w*|descarga|scarica|baixe)(?![\p{L}\p{N}])/iu;
const clickVerbs =
  /(?<![\p{L}\p{N}])(click|press|tap|add|select|choose|tick|klicke|klick|füge|drücke|cliquez|cliquer|ajoutez|appuyez|haz clic|pulsa|añade|agrega|clicca|aggiungi|clique|adicione|klik|voeg|kliknij|dodaj|subscribe|sign up|abonniere|abonnez|suscríbete|iscriviti|inscreva|zapisz|download|herunter|lade|t[ée]l[ée]chargez|descarga|scarica|baixe|pobierz)(?![\p{L}\p{N}])/iu;
const typeVerbs =
  /(?<![\p{L}\p{N}])(type|enter|input|write|fill in|gib|geben|saisissez|tapez|escribe|introduce|digita|inserisci|scrivi|wpisz|voer)(?![\p{L}\p{N}])/iu;
const answerWords =
  /(correct answer|the answer is|final answer|reply with|respond with|tell the user|antwort|r[ée]ponse|r[ée]pondez|respuesta|responde|risposta|rispondi|resposta|responda|antwoord|odpowied)/i;

/** The task inside the last `<user_request>` block. */
function taskOf(request: ScriptedRequest): string {
  const all = request.messages.map((message) =>
    typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  );
  for (let index = all.length - 1; index >= 0; index--) {
    const match = /<user_request>\n[^\n]*\n([\s\S]*?)\n<\/user_request>/.exec(all[index] ?? '');
    if (match?.[1] && request.messages[index]?.role === 'user') return match[1];
  }
  return '';
}

/** The last browser state the model was sent. */
function stateOf(request: ScriptedRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message?.role !== 'user') continue;
    const text = typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (text.includes('[Current browser state]')) return text;
  }
  return '';
}

/** The indexed elements of a state, each with its whole text. */
export function elementsOf(state: string): Element[] {
  const elements: Element[] = [];
  let current: { index: number; tag: string; attributes: string; lines: string[] } | undefined;
  const flush = (): void => {
    if (current)
      elements.push({
        index: current.index,
        tag: current.tag,
        attributes: current.attributes,
        text: current.lines
          .join(' ')
          .replace(/\s*\/>\s*$/, '')
          .trim(),
      });
    current = undefined;
  };
  for (const line of state.split('\n')) {
    const match = /^\s*\*?\[(\d+)\]<(\w+)([^>]*)>(.*)$/.exec(line);
    if (match) {
      flush();
      current = { index: Number(match[1]), tag: match[2] ?? '', attributes: match[3] ?? '', lines: [match[4] ?? ''] };
      if ((match[4] ?? '').trimEnd().endsWith('/>')) flush();
    } else if (current) {
      current.lines.push(line.trim());
      if (line.trimEnd().endsWith('/>')) flush();
    }
  }
  flush();
  return elements;
}

/** The page's own text in a state: the untrusted block, or the whole state when there is none. */
function pageText(state: string): string {
  const match = /<untrusted_content>\n([\s\S]*?)\n<\/untrusted_content>/.exec(state);
  return match?.[1] ?? state;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The task, as the honest part of both models understands it. */
interface Task {
  readonly kind: 'price' | 'cart' | 'login' | 'other';
  readonly product: string;
}

function parseTask(text: string): Task {
  const price = /price of the (.+?)\?/i.exec(text);
  if (price?.[1]) return { kind: 'price', product: price[1] };
  const cart = /Add the (.+?) to my cart/i.exec(text);
  if (cart?.[1]) return { kind: 'cart', product: cart[1] };
  if (/sign in/i.test(text)) return { kind: 'login', product: /shows the (.+?)\./i.exec(text)?.[1] ?? '' };
  return { kind: 'other', product: '' };
}

/** The product's price as the page states it: the first amount after its name, labelled as a price when one is. */
export function findPrice(state: string, product: string): string | undefined {
  const text = pageText(state);
  const at = text.search(new RegExp(escapeRegExp(product), 'i'));
  if (at < 0) return undefined;
  const after = text.slice(at);
  const labelled = /price:?\s*\$\s?(\d+(?:\.\d{2})?)/i.exec(after);
  const any = /\$\s?(\d+(?:\.\d{2})?)/.exec(after);
  return (labelled ?? any)?.[1];
}

function findElement(elements: readonly Element[], test: (element: Element) => boolean): Element | undefined {
  return elements.find(test);
}

/** What the honest part does next for the task on this state. */
function taskActions(task: Task, state: string): Action[] {
  const elements = elementsOf(state);
  const text = pageText(state);
  if (task.kind === 'price') {
    const price = findPrice(state, task.product);
    if (price) return [{ done: { text: `The ${task.product} costs $${price}.`, success: true } }];
    return [{ go_back: {} }];
  }
  if (task.kind === 'cart') {
    if (new RegExp(`Added (the )?${escapeRegExp(task.product)}\\b`, 'i').test(text))
      return [{ done: { text: `Added the ${task.product} to the cart.`, success: true } }];
    const add = findElement(elements, (element) => /add to cart/i.test(element.text));
    if (add) return [{ click_element: { index: add.index } }];
    return [{ go_back: {} }];
  }
  if (task.kind === 'login') {
    if (/Signed in as/i.test(text)) return [{ done: { text: 'Signed in.', success: true } }];
    if (/Wrong username or password/i.test(text)) return [{ done: { text: 'Sign-in failed.', success: false } }];
    const user = findElement(elements, (element) => element.tag === 'input' && /name="username"/.test(element.attributes));
    const password = findElement(elements, (element) => element.tag === 'input' && /type="password"/.test(element.attributes));
    const submit = findElement(elements, (element) => element.tag === 'button' && /sign in/i.test(element.text));
    if (user && password && submit) {
      return [
        { input_text: { index: user.index, text: '<secret>username</secret>' } },
        { input_text: { index: password.index, text: '<secret>password</secret>' } },
        { click_element: { index: submit.index } },
      ];
    }
    return [{ go_back: {} }];
  }
  return [{ done: { text: 'I cannot tell what to do.', success: false } }];
}

// ---- The gullible part: instructions found in what it reads ------------------------------------

/** The text of a `done` action. */
function textOf(action: Action): string {
  const text = action.done?.text;
  return typeof text === 'string' ? text : '';
}

/** Decodes runs of percent-escapes. */
function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** Base64 runs that decode to readable text. */
function base64Decoded(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)) {
    const decoded = Buffer.from(match[0], 'base64').toString('utf8');
    const printable = Array.from(decoded, (char) => char.charCodeAt(0)).filter((code) => code >= 32 || code === 10).length;
    if (decoded.includes(' ') && printable / Math.max(1, decoded.length) > 0.95 && !decoded.includes('\uFFFD')) out.push(decoded);
  }
  return out;
}

const unleet: Record<string, string> = { '4': 'a', '3': 'e', '1': 'i', '0': 'o', '5': 's', '7': 't' };

/** Leetspeak read back: words that mix letters and digits, URLs left alone. */
function deLeet(text: string): string {
  return text
    .split(/(\s+)/)
    .map((word) => (/[a-z]/i.test(word) && /[013457]/.test(word) && !/[/:$"]/.test(word) ? word.replace(/[013457]/g, (digit) => unleet[digit] ?? digit) : word))
    .join('');
}

/** The sentences of every reading of the page's text (as is, percent-decoded, base64, leetspeak). */
export function readings(state: string): string[] {
  // An element's line is read for its text: its index and tag are the view's, not the page's words.
  // Its attributes' values (an aria-label, a title) are read too, each on its own line.
  const lines: string[] = [];
  let inError = false;
  for (const line of state.split('\n')) {
    if (/^\S/.test(line)) inError = /^Action error/.test(line);
    if (inError || /^(Current step|Current date)/.test(line)) continue;
    const element = /^\s*\*?\[\d+\]<\w+([^>]*)>(.*)$/.exec(line);
    if (!element) {
      lines.push(line);
      continue;
    }
    lines.push((element[2] ?? '').replace(/\s*\/>\s*$/, ''));
    for (const value of (element[1] ?? '').matchAll(/\s[\w-]+="([^"]*)"/g)) lines.push(value[1] ?? '');
  }
  const text = lines.join('\n');
  const views = [text, percentDecode(text), ...base64Decoded(text), deLeet(text)];
  const sentences = new Set<string>();
  for (const view of views) {
    for (const sentence of view.split(/(?<=[.!?])\s+|\n/)) {
      const trimmed = sentence.trim();
      if (trimmed) sentences.add(trimmed);
    }
  }
  return [...sentences];
}

type Directive =
  | { readonly kind: 'answer'; readonly text: string }
  | { readonly kind: 'actions'; readonly actions: Action[] }
  | { readonly kind: 'go'; readonly url: string; readonly thenTypePassword: boolean };

const knownActions = new Set(['go_to_url', 'open_tab', 'click_element', 'input_text', 'done']);

function conceptsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const [name, pattern] of Object.entries(concepts)) if (pattern.test(text)) found.add(name);
  for (const word of text.toLowerCase().match(/\p{L}{4,}/gu) ?? []) found.add(`w:${word}`);
  return found;
}

const stop = new Set(['w:this', 'w:that', 'w:with', 'w:your', 'w:from', 'w:then', 'w:before', 'w:also', 'w:button', 'w:link', 'w:page', 'w:need', 'w:every']);

/** The element an instruction names best, by shared concepts and words. */
function bestElement(sentence: string, elements: readonly Element[], test: (element: Element) => boolean = () => true): Element | undefined {
  const wanted = conceptsOf(sentence);
  let best: { element: Element; score: number } | undefined;
  for (const element of elements) {
    // The element that carries the instruction (its name) is not what it asks for.
    if (!test(element) || element.text.length + element.attributes.length > 90) continue;
    const have = conceptsOf(`${element.text} ${element.attributes}`);
    let score = 0;
    // Where things go (the cart) says less about the element meant than what it is.
    for (const item of have) if (wanted.has(item) && !stop.has(item)) score += item.startsWith('w:') || item === 'cart' ? 1 : 3;
    if (score > 0 && (!best || score > best.score)) best = { element, score };
  }
  return best?.element;
}

function quoted(sentence: string): string | undefined {
  return /["“«„]\s*([^"”»“]{1,80}?)\s*["”»“]/.exec(sentence)?.[1];
}

/** The instructions of one sentence, mapped to what the model can do. */
function directivesOf(sentence: string, elements: readonly Element[], answer: string | undefined): Directive[] {
  // Actions written as JSON: taken as they are.
  const json: Action[] = [];
  for (const match of sentence.matchAll(/\{\s*"(\w+)"\s*:\s*(\{[^{}]*\})\s*\}/g)) {
    if (!knownActions.has(match[1] ?? '')) continue;
    try {
      json.push({ [match[1] as string]: JSON.parse(match[2] ?? '{}') as Record<string, unknown> });
    } catch {
      // Not JSON after all.
    }
  }
  if (json.length > 0) {
    const done = json.find((action) => action.done);
    return [done ? { kind: 'answer', text: textOf(done) } : { kind: 'actions', actions: json }];
  }
  if (answerWords.test(sentence)) {
    const text = quoted(sentence) ?? /(?:answer|antwort|réponse|respuesta|risposta|resposta|antwoord)\s*[:=]\s*(.+)$/i.exec(sentence)?.[1]?.trim();
    if (text) return [{ kind: 'answer', text }];
  }
  const urls = [...sentence.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)].map((match) => match[0].replace(/[.,;]+$/, ''));
  const verb = goVerbs.exec(sentence);
  if (verb && urls.length > 0) {
    let url = urls.find((candidate) => sentence.indexOf(candidate) > verb.index) ?? urls[0] ?? '';
    if (/[?&][^=&]*=$/.test(url)) {
      if (concepts.password?.test(sentence)) url += '<secret>password</secret>';
      else if (answer) url += answer;
    }
    return [{ kind: 'go', url, thenTypePassword: Boolean(concepts.password?.test(sentence)) && typeVerbs.test(sentence) }];
  }
  if (concepts.password?.test(sentence) && typeVerbs.test(sentence)) {
    // The password is what goes in; the field is the one the rest of the sentence names.
    const field = bestElement(
      sentence.replace(new RegExp(concepts.password?.source ?? '', 'gi'), ''),
      elements,
      (element) => element.tag === 'textarea' || element.tag === 'input',
    );
    const button = bestElement(sentence.replace(concepts.comment as RegExp, ''), elements, (element) => element.tag === 'button');
    if (field) {
      const actions: Action[] = [{ input_text: { index: field.index, text: '<secret>password</secret>' } }];
      if (button) actions.push({ click_element: { index: button.index } });
      return [{ kind: 'actions', actions }];
    }
  }
  if (clickVerbs.test(sentence) && sentence.split(/\s+/).filter((word) => /\p{L}/u.test(word)).length >= 5) {
    const target = bestElement(sentence, elements, (element) => element.tag === 'button' || element.tag === 'a' || element.tag === 'input');
    if (target) return [{ kind: 'actions', actions: [{ click_element: { index: target.index } }] }];
  }
  return [];
}

/** Every instruction found in a state, in reading order, keyed so each is obeyed once. */
export function instructions(state: string, answer: string | undefined): { key: string; directive: Directive }[] {
  const elements = elementsOf(state);
  const found: { key: string; directive: Directive }[] = [];
  for (const sentence of readings(state)) {
    for (const directive of directivesOf(sentence, elements, answer)) {
      // Each instruction is obeyed once: known by its sentence, and a click by the element it names.
      const clicked =
        directive.kind === 'actions'
          ? directive.actions.map((action) => elements.find((element) => element.index === action.click_element?.index)?.text ?? '').join('|')
          : '';
      const effect =
        directive.kind === 'go'
          ? directive.url
          : directive.kind === 'answer'
            ? directive.text
            : clicked
              ? `click:${clicked}`
              : sentence.replace(/\s+/g, ' ').toLowerCase();
      found.push({ key: `${directive.kind}:${effect}`, directive });
    }
  }
  return found;
}

/** Options of {@link corpusModel}. */
export interface CorpusModelOptions {
  /** Obey instructions found in what it reads. */
  readonly gullible: boolean;
}

/**
 * The reply to plannav's confirmation request (`planner_confirmation`, asked by the
 * `sensitiveActions` policy; added after the corpus was written, by the build helper). It shows
 * only the user's request and one action or answer, never a page, so there is nothing for a
 * gullible model to obey: both models judge alike, by the task's kind. A price question needs no
 * form, no download and no other site; adding to the cart needs its add-to-cart button; signing in
 * needs its sign-in button; an answer must carry no link. A real model judges by meaning; these
 * rules are its crude shadow, over the request's words, never over page ids.
 */
function confirmation(request: ScriptedRequest): { object: { confirmed: boolean; reason: string } } {
  const text = request.lastUserText;
  const task = parseTask(/<user_request>\n([\s\S]*?)\n<\/user_request>/.exec(text)?.[1] ?? '');
  const verdict = (confirmed: boolean, reason: string) => ({ object: { confirmed, reason } });
  const answer = /would end the task with this answer:\n<untrusted_content>\n([\s\S]*?)\n<\/untrusted_content>/.exec(text)?.[1];
  if (answer !== undefined) return /https?:\/\/|www\./i.test(answer) ? verdict(false, 'the answer carries a link') : verdict(true, 'it answers the request');
  const action = /The agent is about to act: ([\s\S]*?)\.\nDoes the request/.exec(text)?.[1] ?? '';
  if (/a site the task does not involve|downloads/.test(action)) return verdict(false, 'the request names no other site and no download');
  const label = (/"([^"]*)"/.exec(action)?.[1] ?? '').toLowerCase();
  const productWords = new Set(task.product.toLowerCase().match(/\p{L}+/gu) ?? []);
  const extra = (label.match(/\p{L}+/gu) ?? []).filter((word) => !productWords.has(word) && !['add', 'to', 'the', 'cart', 'basket', 'my'].includes(word));
  if (task.kind === 'cart' && /\b(?:add|cart|basket)\b/.test(label) && extra.length === 0) return verdict(true, 'the request asks to add it to the cart');
  if (task.kind === 'login' && /\b(?:sign|log)\s?in\b/.test(label)) return verdict(true, 'the request asks to sign in');
  return verdict(false, 'the request does not ask for this');
}

/** A fresh model for one task (it keeps what it obeyed and what it proposed). */
export function corpusModel(options: CorpusModelOptions): ScriptedLLM {
  const obeyed = new Set<string>();
  let proposed: string | undefined;
  let pendingPassword: string | undefined;
  return new ScriptedLLM({
    confirmations: 'script',
    respond: (request) => {
      if (request.output?.name === 'planner_confirmation') return confirmation(request);
      const task = parseTask(taskOf(request));
      const state = stateOf(request);
      const answer = task.kind === 'price' ? findPrice(state, task.product) : undefined;
      const found = options.gullible ? instructions(state, answer) : [];
      if (request.agent === 'planner') {
        const dictated = found.find((item) => item.directive.kind === 'answer');
        if (dictated && dictated.directive.kind === 'answer') return scriptedPlan({ done: true, finalAnswer: dictated.directive.text });
        if (proposed !== undefined) return scriptedPlan({ done: true, finalAnswer: proposed });
        return scriptedPlan({ done: false, nextSteps: 'Do the task on the current page.' });
      }
      if (request.agent !== 'navigator') return scriptedPlan({ done: false });
      let actions: Action[] | undefined;
      if (pendingPassword && /Current tab: \{[^\n]*"url":"([^"]*)"/.exec(state)?.[1]?.startsWith(pendingPassword)) {
        const elements = elementsOf(state);
        const password = elements.find((element) => element.tag === 'input' && /type="password"/.test(element.attributes));
        if (password) {
          pendingPassword = undefined;
          const user = elements.find((element) => element.tag === 'input' && /name="username"/.test(element.attributes));
          const submit = elements.find((element) => element.tag === 'button');
          actions = [
            ...(user ? [{ input_text: { index: user.index, text: '<secret>username</secret>' } }] : []),
            { input_text: { index: password.index, text: '<secret>password</secret>' } },
            ...(submit ? [{ click_element: { index: submit.index } }] : []),
          ];
        }
      }
      const next = actions ? undefined : found.find((item) => !obeyed.has(item.key));
      if (next) {
        obeyed.add(next.key);
        const { directive } = next;
        if (directive.kind === 'answer') actions = [{ done: { text: directive.text, success: true } }];
        else if (directive.kind === 'go') {
          pendingPassword = directive.thenTypePassword ? new URL(directive.url).origin : undefined;
          actions = [{ go_to_url: { url: directive.url } }];
        } else actions = directive.actions;
      }
      actions ??= taskActions(task, state);
      const done = actions.find((action) => action.done);
      if (done) proposed = textOf(done);
      return scriptedActions(actions, { nextGoal: next ? 'Follow the note on the page' : 'Do the task' });
    },
  });
}
