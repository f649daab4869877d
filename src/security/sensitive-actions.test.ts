import { describe, expect, it } from 'vitest';
import { classifyAction, looksLikeDownload, readableUrl, type ActionTarget } from './sensitive-actions';
import { siteOf, sitesInText, sitesOfEntry, TaskScope } from './task-scope';

describe('the sites a task involves', () => {
  it('takes the registrable domain of a name, and host with port of an address', () => {
    expect(siteOf('https://www.shop.example/a')).toBe('shop.example');
    expect(siteOf('https://cdn.shop.co.uk/x')).toBe('shop.co.uk');
    expect(siteOf('http://127.0.0.1:8080/p')).toBe('127.0.0.1:8080');
    expect(siteOf('http://localhost/')).toBe('localhost:80');
    expect(siteOf('about:blank')).toBeUndefined();
  });

  it('finds the sites a task names, as URLs or bare hosts', () => {
    expect(sitesInText('Buy a mug at https://www.shop.example/mugs, then check news.example.org and 127.0.0.1:3000.').sort()).toEqual(
      ['127.0.0.1:3000', 'example.org', 'shop.example'].sort(),
    );
    expect(sitesInText('Find the cheapest blue mug')).toEqual([]);
    expect(sitesOfEntry('*.pay.example')).toEqual(['pay.example']);
    expect(sitesOfEntry('https://pay.example/checkout/*')).toEqual(['pay.example']);
  });

  it('involves the named sites, added ones and non-web URLs, and nothing else', () => {
    const scope = new TaskScope('Order tea on shop.example', ['127.0.0.1:9000']);
    expect(scope.involves('https://shop.example/cart')).toBe(true);
    expect(scope.involves('https://img.shop.example/x.png')).toBe(true);
    expect(scope.involves('http://127.0.0.1:9000/')).toBe(true);
    expect(scope.involves('http://127.0.0.1:9001/')).toBe(false);
    expect(scope.involves('https://evil.example/')).toBe(false);
    expect(scope.involves('about:blank')).toBe(true);
    scope.add('https://evil.example/');
    expect(scope.involves('https://www.evil.example/')).toBe(true);
  });
});

describe('classifyAction', () => {
  const pageUrl = 'https://shop.example/product';
  const scope = (): TaskScope => new TaskScope('Buy the teapot on shop.example');
  const link = (href: string, extra: Partial<ActionTarget> = {}): ActionTarget => ({ tagName: 'a', href, label: 'Go', ...extra });
  const button = (formAction: string, formMethod: string, label = 'Send'): ActionTarget => ({
    tagName: 'button',
    submits: true,
    formAction,
    formMethod,
    label,
  });

  it('names a URL or a link to a site the task does not involve, decoded, and data in its address', () => {
    const loaded = classifyAction({ action: 'go_to_url', url: 'https://evil.example/c?x=a%20b', pageUrl, scope: scope() });
    expect(loaded).toMatchObject({ kind: 'new-host', url: 'https://evil.example/c?x=a b' });
    expect(loaded?.description).toContain('sending data in its address');
    expect(classifyAction({ action: 'click_element', target: link('https://evil.example/'), pageUrl, scope: scope() })?.kind).toBe('new-host');
    expect(classifyAction({ action: 'click_element', target: link('https://shop.example/cart'), pageUrl, scope: scope() })).toBeUndefined();
  });

  it('names downloads by the download attribute or the file type', () => {
    expect(classifyAction({ action: 'click_element', target: link('https://shop.example/f/setup.exe'), pageUrl, scope: scope() })?.kind).toBe('download');
    expect(classifyAction({ action: 'click_element', target: link('https://shop.example/get', { download: true }), pageUrl, scope: scope() })?.kind).toBe(
      'download',
    );
    expect(looksLikeDownload('https://a.example/report.PDF?x=1')).toBe(true);
    expect(looksLikeDownload('https://a.example/page.html')).toBe(false);
  });

  it('names a form sent to another site, a secret typed into one, and a POST on the task’s site', () => {
    expect(classifyAction({ action: 'click_element', target: button('https://evil.example/join', 'post'), pageUrl, scope: scope() })?.kind).toBe(
      'cross-origin-form',
    );
    const field: ActionTarget = { tagName: 'input', formAction: 'https://evil.example/steal', formMethod: 'post', label: '' };
    expect(classifyAction({ action: 'input_text', target: field, typesSecret: true, pageUrl, scope: scope() })?.kind).toBe('secret');
    // Another site the task involves is still another site for a secret.
    const involved = new TaskScope('Use shop.example and pay.example');
    expect(
      classifyAction({ action: 'input_text', target: { ...field, formAction: 'https://pay.example/x' }, typesSecret: true, pageUrl, scope: involved })?.kind,
    ).toBe('secret');
    expect(
      classifyAction({ action: 'input_text', target: { ...field, formAction: 'https://shop.example/login' }, typesSecret: true, pageUrl, scope: scope() }),
    ).toBeUndefined();
    expect(
      classifyAction({ action: 'click_element', target: button('https://shop.example/cart/add', 'post', 'Add warranty'), pageUrl, scope: scope() }),
    ).toMatchObject({
      kind: 'submit',
      label: 'Add warranty',
    });
    expect(classifyAction({ action: 'click_element', target: button('https://shop.example/search', 'get'), pageUrl, scope: scope() })).toBeUndefined();
  });

  it('names data the agent writes into an address on the task’s site, and a secret in any address', () => {
    expect(classifyAction({ action: 'go_to_url', url: 'https://shop.example/track?price=12', pageUrl, scope: scope() })?.kind).toBe('url-data');
    expect(classifyAction({ action: 'go_to_url', url: 'https://shop.example/cart', pageUrl, scope: scope() })).toBeUndefined();
    // A link the page offers is the page's own address.
    expect(classifyAction({ action: 'click_element', target: link('https://shop.example/list?page=2'), pageUrl, scope: scope() })).toBeUndefined();
    expect(classifyAction({ action: 'go_to_url', url: 'https://shop.example/t?k=<secret>password</secret>', pageUrl, scope: scope() })?.kind).toBe('secret');
  });

  it('reads URLs decoded where that is valid, and as written where not', () => {
    expect(readableUrl('https://a.example/?q=ignore%20this')).toBe('https://a.example/?q=ignore this');
    expect(readableUrl('https://a.example/%E0%A4%A')).toBe('https://a.example/%E0%A4%A');
  });
});
