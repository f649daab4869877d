// A stand-in for a language model on any collection site, for the corpus tests and the bench: the
// survey reads the page state by general rules (words for "next", numbered links, pager drop-downs,
// cookie walls, categories), as a model would; extraction is the corpus's oracle, a perfect reader
// of the text it is sent. Nothing here knows a page of the corpus.
import { ScriptedLLM, scriptedActions, type ScriptedRequest, type ScriptedResponse } from '../../src/testing/index';
import { readRecordsFromText, type CorpusTruth } from '../fixtures/collect-corpus/index';

/** One indexed element of the page state as the model reads it. */
interface ShownElement {
  readonly index: number;
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly text: string;
  /** The plain text line just before it (a heading, a label). */
  readonly before: string;
}

const elementLine = /^\s*\*?\[(\d+)\]<(\w+)((?:\s+[\w-]+(?:="[^"]*"|=\S+)?)*)>(.*?)\s*\/>\s*$/;
const attributePattern = /([\w-]+)(?:="([^"]*)"|=(\S+))?/g;

function shownElements(text: string): ShownElement[] {
  const elements: ShownElement[] = [];
  let before = '';
  for (const line of text.split('\n')) {
    const match = elementLine.exec(line);
    if (!match) {
      if (line.trim()) before = line.trim();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attribute of (match[3] ?? '').matchAll(attributePattern)) attributes[attribute[1] as string] = attribute[2] ?? attribute[3] ?? '';
    elements.push({ index: Number(match[1]), tag: match[2] as string, attributes, text: (match[4] ?? '').trim(), before });
  }
  return elements;
}

const nextWords = /^(?:next(?: page)?|suivant|weiter|siguiente|avanti|volgende|older(?: posts)?|more results)\b|^[›»→>]+$/i;
const loadMoreWords = /\b(?:load|show|see) more\b|\bmehr laden\b|\bafficher plus\b|\bplus de résultats\b/i;
const acceptWords = /^(?:accept|agree|allow|i agree|ok|got it|alle akzeptieren|tout accepter|accepter)\b/i;
const categoryWords = /categor|departments|sections|browse|rubriques|kategorien/i;

function nameOf(element: ShownElement): string {
  return (element.attributes['aria-label'] || element.attributes.title || element.text).replace(/^[\s«‹<]+|[\s]+$/g, '').trim();
}

/** The survey a careful model would give of the page state `text`. */
export function surveyAnswer(text: string): Record<string, unknown> {
  const elements = shownElements(text);
  const plain = text.replace(/^\s*\*?\[\d+\]<.*$/gm, '');
  const isErrorPage =
    elements.length < 4 && /server error|service unavailable|bad gateway|something went wrong|too many requests|not found|\b(?:429|50\d)\b/i.test(plain);
  const accept = elements.find((element) => element.tag === 'button' && acceptWords.test(nameOf(element)));
  const hasWall = /cookie|consent/i.test(plain) && accept !== undefined;
  const isControl = (element: ShownElement): boolean => ['a', 'button', 'input'].includes(element.tag) || element.attributes.role === 'button';
  const next = elements.filter(
    (element) =>
      isControl(element) &&
      (nextWords.test(
        nameOf(element)
          .replace(/[→›»]+$/, '')
          .trim() || nameOf(element),
      ) ||
        /\bnext\b/i.test(element.attributes.rel ?? '')),
  );
  const pageLinks = elements.filter((element) => element.tag === 'a' && /^\d+$/.test(element.text));
  const pager = elements.find(
    (element) =>
      element.tag === 'select' &&
      (/^(?:p|pg|page|seite|pagina)$/i.test(element.attributes.name ?? '') ||
        /\bpage\b|\bseite\b|\d+\s*(?:of|\/|von)\s*\d+/i.test(element.attributes.options ?? '')),
  );
  const loadMore = elements.find((element) => element.tag === 'button' && loadMoreWords.test(nameOf(element)));
  const listings = elements.filter((element) => element.tag === 'a' && categoryWords.test(element.before) && !nextWords.test(nameOf(element)));
  return {
    page_error: isErrorPage ? 'an error page' : '',
    blocked_by: hasWall ? 'accept the cookie banner' : '',
    blocked_by_index: hasWall ? (accept?.index ?? null) : null,
    next_index: next.at(-1)?.index ?? null,
    page_indices: pageLinks.map((element) => element.index),
    next_pages: [],
    page_select_index: pager?.index ?? null,
    load_more_index: loadMore?.index ?? null,
    infinite_scroll: /loading more|scroll (?:down )?(?:for|to (?:see|load)) more|keep scrolling/i.test(plain),
    listing_indices: listings.map((element) => element.index),
  };
}

/** The page inside the request's untrusted block: what a model reads the records from. */
function pageText(request: ScriptedRequest): string {
  const text = request.lastUserText;
  const blocks = [...text.matchAll(/<untrusted_content>([\s\S]*?)<\/untrusted_content>/g)].map((match) => match[1] as string);
  return blocks.length > 0 ? blocks.join('\n') : text;
}

/** Counts of what the stand-in was asked, by call name, and the characters of each call's prompt. */
export interface ModelLedger {
  readonly calls: Map<string, number>;
  readonly promptChars: Map<string, number>;
}

/**
 * The stand-in model for a corpus site: `truth` is what the oracle reads records against,
 * `origin` the site's address for relative links.
 */
export function corpusModel(
  truth: CorpusTruth,
  origin: string,
  options: { check?: (request: ScriptedRequest) => ScriptedResponse } = {},
): {
  readonly llm: ScriptedLLM;
  readonly ledger: ModelLedger;
} {
  const ledger: ModelLedger = { calls: new Map(), promptChars: new Map() };
  const llm = new ScriptedLLM({
    respond: (request) => {
      const name = request.output?.name ?? request.agent;
      ledger.calls.set(name, (ledger.calls.get(name) ?? 0) + 1);
      const chars = request.messages.reduce(
        (sum, message) => sum + (typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content).length),
        0,
      );
      ledger.promptChars.set(name, (ledger.promptChars.get(name) ?? 0) + chars);
      switch (request.output?.name) {
        case 'collect_survey':
          return { object: surveyAnswer(request.lastUserText) };
        case 'collect_extract':
          return { object: { records: readRecordsFromText(truth, pageText(request), origin) } };
        case 'collect_details':
          // Several records' own pages under [Page N] headings: each page is read alone.
          return {
            object: {
              pages: pageText(request)
                .split(/^(?=\[Page \d+\])/m)
                .flatMap((section) => {
                  const number = /^\[Page (\d+)\]/.exec(section)?.[1];
                  return number === undefined ? [] : readRecordsFromText(truth, section, origin).map((record) => ({ page: Number(number), record }));
                }),
            },
          };
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'the records look right', instruction: '', retry_given_up: false } };
        case 'navigator_output': {
          const accept = shownElements(request.lastUserText).find((element) => element.tag === 'button' && acceptWords.test(nameOf(element)));
          return accept ? scriptedActions([{ click_element: { index: accept.index } }]) : scriptedActions([{ done: { text: 'ready', success: true } }]);
        }
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${name}` };
      }
    },
  });
  return { llm, ledger };
}
