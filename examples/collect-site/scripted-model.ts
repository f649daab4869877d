// A scripted model for the collection site (this folder) in headless Chromium: it
// decides only from what it is shown, as a model would. Used by examples/collect.ts, the bench and the e2e tests.
import { z } from 'zod';
import { ScriptedLLM, type ScriptedRequest, type ScriptedResponse, scriptedActions } from 'plannav/testing';

/** One posting of the collection site. */
export const Job = z.object({
  id: z.string().describe('The posting id, the last part of its link'),
  title: z.string(),
  company: z.string(),
  salary: z.string(),
  link: z.string(),
});
export type Job = z.output<typeof Job>;

/** The survey: reads the indexed elements of the page state, as a model would. */
function survey(text: string): ScriptedResponse {
  const pageError = /error 500|Something went wrong/.test(text) ? '500 Internal Server Error' : '';
  const blocked = /Accept the cookies/.test(text) ? 'accept the cookie banner' : '';
  // Numbered page links show their href; a "Next" link's text names it, so the view shows it without one: named by its index.
  const nextPages = [...text.matchAll(/<a[^>]*href=["']?([^"'\s>]*\/jobs\?page=\d+)["']?[^>]*>/g)].map((match) => match[1] as string);
  const next = /\[(\d+)\]<a(?![^>]*\bhref=)[^>]*>Next(?: page)? \/>/.exec(text);
  const loadMore = /\[(\d+)\]<button[^>]*>Load more/.exec(text);
  return {
    object: {
      page_error: pageError,
      blocked_by: blocked,
      next_index: next ? Number(next[1]) : null,
      page_indices: [],
      next_pages: nextPages,
      page_select_index: null,
      listing_indices: [],
      load_more_index: loadMore ? Number(loadMore[1]) : null,
      infinite_scroll: /Scroll down for more jobs/.test(text),
    },
  };
}

/** The extraction: the postings of the page's markdown, each a heading link then company, location and salary. */
function extract(text: string): ScriptedResponse {
  const records: Job[] = [];
  const pattern = /\[([^\]]+)\]\(((?:https?:\/\/[^)\s/]*)?\/job\/(job-\d+))\)\s+([^\n]+)\s+([^\n]+)\s+(\$[^\n]+ a year)/g;
  for (const match of text.matchAll(pattern)) {
    records.push({
      id: match[3] as string,
      title: match[1] as string,
      company: (match[4] as string).trim(),
      salary: (match[6] as string).trim(),
      // A link of the site's own is sent as a path; the collection makes a path field whole again.
      link: match[2] as string,
    });
  }
  return { object: { records } };
}

/** The model of the survey, extraction, interaction and progress check on the collection site. */
export function collectSiteModel(options: { check?: (request: ScriptedRequest) => ScriptedResponse } = {}): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request) => {
      const text = request.lastUserText;
      switch (request.output?.name) {
        case 'collect_survey':
          return survey(text);
        case 'collect_extract':
          return extract(text);
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'the postings look right', instruction: '' } };
        case 'navigator_output': {
          const accept = /\[(\d+)\]<button[^>]*>Accept/.exec(text);
          return accept ? scriptedActions([{ click_element: { index: Number(accept[1]) } }]) : scriptedActions([{ done: { text: 'ready', success: true } }]);
        }
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? request.agent}` };
      }
    },
  });
}
