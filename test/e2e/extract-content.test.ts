// extract_content in real headless Chromium: the page script's cleaned HTML (hidden content left
// out, same- and cross-origin frames as sections) through markdown to a scripted extraction model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractContentAction } from '../../src/actions/builtin/extract-content';
import { ActionRegistry } from '../../src/actions/registry';
import { ScriptedLLM, type ScriptedRequest } from '../../src/testing/scripted-llm';
import { liveContext } from './action-helpers';
import { capture, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowser();
});

afterAll(async () => {
  await fixture?.close();
});

const answer = (extracted: string): string => JSON.stringify({ extracted });

/** The page text the model was sent: what stands between the untrusted-content tags. */
function pageTextOf(request: ScriptedRequest | undefined): string {
  const match = /<untrusted_content>\n([\s\S]*)\n<\/untrusted_content>/.exec(request?.lastUserText ?? '');
  if (!match) throw new Error(`no page text in: ${request?.lastUserText}`);
  return match[1] as string;
}

async function extract(path: string, params: Record<string, unknown>, llm: ScriptedLLM, action = extractContentAction()) {
  const state = await capture(fixture, path);
  const registry = new ActionRegistry([action]);
  return registry.run(action.name, params, liveContext(fixture, { state, extractionLLM: llm }));
}

describe('extract_content in a real page', () => {
  it('sends the visible content as markdown: headings, tables, lists, fields, shadow DOM and both frames', async () => {
    const llm = new ScriptedLLM({ responses: [answer('Mug A costs $4, Mug B $6.')] });
    const result = await extract('extract-page.html', { goal: 'mug prices' }, llm);

    expect(result.extractedContent).toBe(
      `Extracted from ${fixture.server.url('extract-page.html')} for "mug prices":\n<untrusted_content>\nMug A costs $4, Mug B $6.\n</untrusted_content>`,
    );
    const text = pageTextOf(llm.requests[0]);
    for (const expected of [
      `Page: Mug shop (${fixture.server.url('extract-page.html')})`,
      '# Mugs and cups',
      'Welcome to the mug catalog. Free shipping over **$20**.',
      '(image: Shop logo) Script link Jump to prices',
      '## Prices\n\n| Name | Price | Colours |\n| --- | --- | --- |\n| Mug A | $4 | • red<br>• blue |\n| Mug \\| B | $6 | green |\n| Mug C is sold out | | |',
      '- Dishwasher safe\n  - Up to 70 °C\n- Microwave safe',
      '3. Third step\n4. Fourth step',
      '**Capacity**\n\n350 ml',
      'Quantity (field: 2) (checked) Gift wrap Size (selected: Large; options: Small / Large) Note (field: Please hurry) Add to cart',
      '```\ncode   keeps   spaces\n```',
      '**Shipping details**',
      'Visible child of a hidden parent',
      '### Slotted title\n\nShadow paragraph',
      'Last paragraph.',
      `## Frame: Reviews (${fixture.server.url('extract-frame.html?name=same')})\n\n## Reviews\n\nReview from the same frame: five stars.`,
      `## Frame: Reviews (${fixture.server.otherOrigin}/extract-frame.html?name=cross)\n\n## Reviews\n\nReview from the cross frame: five stars.`,
    ]) {
      expect(text, expected).toContain(expected);
    }
    // Hidden content, scripts, styles, media, passwords, hidden inputs and the hidden frame stay out.
    expect(text).not.toContain('Secret');
    expect(text).not.toContain('hidden frame');
    expect(text).not.toContain('](http');
  });

  it('keeps absolute link and image URLs on request, without tracking parameters or script links', async () => {
    const llm = new ScriptedLLM({ responses: [answer('The catalog link.')] });
    await extract('extract-page.html', { goal: 'the catalog link', include_links: true }, llm);

    const text = pageTextOf(llm.requests[0]);
    const origin = fixture.server.origin;
    expect(text).toContain(`Welcome to the [mug catalog](${origin}/catalog/mugs.html?page=2).`);
    expect(text).toContain(`![Shop logo](${origin}/img/logo.png)`);
    expect(text).not.toContain('pixel.png');
    expect(text).not.toContain('javascript:');
    // Jumps within the page are no use to the model: their text stays, their URL goes.
    expect(text).toContain('Script link Jump to prices');
    expect(text).not.toContain('#prices');
    expect(text).not.toContain(`${origin}/empty`);
  });

  it('returns structured data for a JSON schema', async () => {
    const prices = {
      prices: [
        { name: 'Mug A', price: '$4' },
        { name: 'Mug | B', price: '$6' },
      ],
    };
    const llm = new ScriptedLLM({ responses: [JSON.stringify(prices)] });
    const schema = { type: 'object', properties: { prices: { type: 'array', items: { type: 'object' } } }, required: ['prices'] };
    const result = await extract('extract-page.html', { goal: 'prices', schema }, llm);
    expect(llm.requests[0]?.output?.schema).toEqual(schema);
    expect(result.data).toEqual(prices);
  });

  it('reads a long page in parts at its headings, merges them, and goes on from start_from_char', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => (request.output?.name === 'extract_content_merge' ? answer('merged') : answer(`part ${request.callIndex + 1}`)),
    });
    // About 16,000 characters of markdown: two parts of at most 4,000 leave the rest for a second call.
    const action = extractContentAction({ maxChunkChars: 4000, maxChunks: 2 });
    const first = await extract('extract-long.html', { goal: 'every price' }, llm, action);

    expect(llm.callCount).toBe(3);
    const parts = llm.requests.slice(0, 2).map((request) => pageTextOf(request));
    parts.forEach((part, index) => {
      const body = part.split('\n').slice(3).join('\n');
      expect(body, `part ${index + 1}`).toMatch(index === 0 ? /^# Catalogue\n\n## Section 0\n/ : /^## Section \d+\n/);
      expect(body.length).toBeLessThanOrEqual(4000);
    });
    expect(first.extractedContent).toMatch(/^Extracted from .* for "every price":\n<untrusted_content>\nmerged\n<\/untrusted_content>\n/);
    const resume = Number(/start_from_char (\d+) to read the rest/.exec(first.extractedContent ?? '')?.[1]);
    expect(resume).toBeGreaterThan(0);

    const lastSection = Number(/## Section (\d+)\n(?![\s\S]*## Section)/.exec(parts[1] as string)?.[1]);
    await extract('extract-long.html', { goal: 'every price', start_from_char: resume }, llm, action);
    const resumed = pageTextOf(llm.requests[3]);
    expect(resumed).toContain(`characters ${resume}-`);
    expect(resumed.split('\n')[3]).toBe(`## Section ${lastSection + 1}`);
    expect(resumed).toContain(`| Item ${lastSection + 1}-0 | $${(lastSection + 1) * 10} |`);
  });
});
