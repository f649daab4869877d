import { describe, expect, it } from 'vitest';
import { shortenLinks, withoutTracking, type PageLink } from './links';

const page = 'https://shop.example/catalog/mugs';

/** The text shortenLinks shows for one link alone on its page; without visible text (an image link) unless given. */
function shown(href: string, text = '', documentUrl = page): string | undefined {
  return shortenLinks([{ href, text, documentUrl }])[0];
}

function link(href: string, text = '', documentUrl = page): PageLink {
  return { href, text, documentUrl };
}

describe('shortenLinks: short links', () => {
  it.each([
    ['a path of the page origin', '/mugs', '/mugs'],
    ['the root', '/', '/'],
    ['a same-document fragment', '#reviews', '#reviews'],
    ['a bare # (a link run by script)', '#', '#'],
    ['a short query', '/search?q=mug', '/search?q=mug'],
    ['an http link to another origin', 'http://other.example/a', 'http://other.example/a'],
    ['a mailto link', 'mailto:help@shop.example', 'mailto:help@shop.example'],
    ['an empty href', '', ''],
    ['a path of exactly 32 characters', `/${'a'.repeat(31)}`, `/${'a'.repeat(31)}`],
  ])('keeps %s as it is', (_case, href, expected) => {
    expect(shown(href)).toBe(expected);
  });

  it('writes an https origin as //host, which go_to_url reads as https too', () => {
    expect(shown('https://other.example/a?b=1')).toBe('//other.example/a?b=1');
    expect(shown('HTTPS://other.example/')).toBe('//other.example/');
  });

  it('keeps a link just over the limit whole when cutting it would save little', () => {
    // 35 characters after the origin, but only one short middle segment to leave out.
    expect(shown('/catalog/kitchen/blue-ceramic-mugs')).toBe('/catalog/kitchen/blue-ceramic-mugs');
  });
});

describe('shortenLinks: tracking parameters', () => {
  it.each([
    ['utm_ parameters, keeping the others in order', '/a?utm_source=news&id=3&utm_medium=mail&b=4', '/a?id=3&b=4'],
    ['the query mark with the last parameter', '/a?fbclid=IwAR0abc', '/a'],
    ['a parameter before the fragment', '/a?gclid=1#top', '/a#top'],
    ['parameters in any letter case', '/a?UTM_Source=x&MC_EID=2&b=2', '/a?b=2'],
    ['a percent-encoded name', '/a?utm%5Fsource=x&b=2', '/a?b=2'],
    ['an absolute link', 'https://other.example/p?msclkid=9&_ga=2.1&q=3', 'https://other.example/p?q=3'],
  ])('drops %s', (_case, href, expected) => {
    expect(withoutTracking(href)).toBe(expected);
  });

  it.each([
    ['names that only start like one', '/a?utmost=1&gclidx=2'],
    ['ref and id, which can change the page', '/a?ref=home&id=7'],
    ['a tracking name in the fragment', '/a#utm_source=x'],
    ['a link without a query', '/a/b'],
  ])('keeps %s', (_case, href) => {
    expect(withoutTracking(href)).toBe(href);
  });

  it('shows the link without them', () => {
    expect(shown('/mugs?utm_source=newsletter&utm_campaign=spring&color=blue')).toBe('/mugs?color=blue');
  });
});

describe('shortenLinks: a visible text that already is the address', () => {
  it.each([
    ['the absolute URL', 'https://shop.example/mugs', 'https://shop.example/mugs'],
    ['the host and path', '/mugs', 'shop.example/mugs'],
    ['a trailing slash more', '/mugs', 'shop.example/mugs/'],
    ['www. on one side', 'https://www.shop.example/mugs', 'shop.example/mugs'],
    ['tracking parameters on the href', '/mugs?utm_source=x', 'https://shop.example/mugs'],
    ['a unicode path written out', '/wiki/K%C3%B6ln', 'https://shop.example/wiki/Köln'],
    ['the e-mail address of a mailto link', 'mailto:help@shop.example', 'help@shop.example'],
  ])('leaves the href out for %s', (_case, href, text) => {
    expect(shown(href, text)).toBeUndefined();
  });

  // Read from a page of another site, so the rule for the page's own links does not apply.
  const blog = 'https://blog.example/post';
  it.each([
    // A link to another site whose text names something shows where it leads: the site.
    ['another host', 'https://evil.example/mugs', 'shop.example/mugs', '//evil.example/…'],
    ['another scheme written in the text', 'http://shop.example/mugs', 'https://shop.example/mugs', 'http://shop.example/…'],
    ['another path', 'https://shop.example/mugs/blue', 'shop.example/mugs', '//shop.example/…'],
    ['a query the text does not have', 'https://shop.example/mugs?color=blue', 'shop.example/mugs', '//shop.example/…'],
    ['a text of words', 'https://shop.example/cups', 'All mugs', '//shop.example/…'],
    ['a text on two lines', 'https://shop.example/mugs', 'shop.example/mugs\nshop.example/mugs', '//shop.example/…'],
    ['a text that names nothing (shown cut, not by host)', 'https://shop.example/mugs', '12', '//shop.example/mugs'],
  ])('keeps the href for %s', (_case, href, text, expected) => {
    expect(shown(href, text, blog)).toBe(expected);
  });
});

describe('shortenLinks: links whose text says where they go', () => {
  it.each([
    ['a page of the same site', '/catalog/kitchen', 'Kitchen'],
    ['a page of the same site whatever its text', '/p/8812?ref=nav', 'Blue mug'],
    ['an anchor of the page named by its text', '#customer-reviews', 'Customer reviews'],
  ])('leaves the href out for %s', (_case, href, text) => {
    expect(shown(href, text)).toBeUndefined();
  });

  it.each([
    ['a file to download', '/manuals/mug.pdf', 'Care guide', '/manuals/mug.pdf'],
    ['the page itself', '/catalog/mugs', 'Mugs', '/catalog/mugs'],
    ['an anchor its text does not name', '#s3', 'Reviews', '#s3'],
    ['a mail address', 'mailto:help@shop.example', 'Write to us', 'mailto:help@shop.example'],
  ])('keeps the href for %s', (_case, href, text, expected) => {
    expect(shown(href, text)).toBe(expected);
  });

  it('keeps the hrefs of same-site links that share a text but lead to different places, and tells them apart', () => {
    const texts = shortenLinks([
      link('/downloads/app-windows-x64', 'Download'),
      link('/downloads/app-macos-arm64', 'Download'),
      link('/orders/991/cancel', 'Cancel order'),
      link('/orders/992/cancel', 'Cancel order'),
      link('/about', 'About us'),
    ]);
    expect(texts[0]).toBeDefined();
    expect(texts[0]).not.toBe(texts[1]);
    expect(texts[2]).toBeDefined();
    expect(texts[2]).not.toBe(texts[3]);
    expect(texts[4]).toBeUndefined();
  });

  it('shows only the host of another site for a link whose text names it', () => {
    expect(shown('https://dropbox.tech/machine-learning', 'Machine Learning')).toBe('//dropbox.tech/…');
    expect(shown('http://money.cnn.com/2017/05/12/technology/gm-cerv-i/index.html', 'GM unveils a new robot')).toBe('http://money.cnn.com/…');
  });

  it('shows the path of links of another site that have the same text and lead to different pages', () => {
    const texts = shortenLinks([link('https://a.example/news', 'News'), link('https://b.example/news', 'News')]);
    expect(texts).toEqual(['//a.example/…', '//b.example/…']);
    const same = shortenLinks([link('https://a.example/world/news', 'News'), link('https://a.example/sport/news', 'News'), link('https://a.example/', 'Home')]);
    expect(same[0]).not.toBe(same[1]);
    expect(same[0]).toMatch(/^\/\/a\.example\/world/);
    expect(same[2]).toBe('//a.example/');
  });
});

describe('shortenLinks: long links', () => {
  it.each([
    [
      'a deep path: first segment, … , last segment cut between words',
      '/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-with-handle-350ml',
      '/catalog/…/blue…-handle-350ml',
    ],
    ['a long query: the parameters that fit, then …', '/search?q=blue+mug&sort=price&page=2&view=grid&size=48&color=blue', '/search?q=blue+mug&sort=price&…'],
    ['the segments before the last that fit', '/news/2024/05/12/an-article-about-things', '/news/…/an-article-about-things'],
    ['a long fragment, cut between words', `#section-${'long-heading-text-'.repeat(4)}end`, '#section…-text-end'],
    [
      'an absolute link, keeping its origin whole',
      'https://www.example-news.example/world/2024/05/12/a-long-story-of-the-day',
      '//www.example-news.example/world/…/05/12/a-long…-the-day',
    ],
    ['a data URL', `data:image/png;base64,${'iVBORw0KGgo'.repeat(20)}`, 'data:image/png…Rw0KGgo'],
  ])('cuts %s', (_case, href, expected) => {
    expect(shown(href)).toBe(expected);
  });

  it('cuts a 2,000-character link to a few dozen characters', () => {
    const href = `https://cdn.example/${'a1b2c3d4'.repeat(248)}`;
    expect(href).toHaveLength(2004);
    const text = shown(href) as string;
    expect(text.startsWith('//cdn.example/a1b2c3')).toBe(true);
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(40);
  });

  it('cuts a very long run of segments', () => {
    expect(shown(`/x/${'segment/'.repeat(200)}last`)).toBe('/x/…/segment/segment/last');
  });

  it('cuts a long segment between its words', () => {
    expect(shown('/wiki/Geographic_coordinate_system_of_the_earth')).toBe('/wiki/Geographic…_the_earth');
  });

  it('does not cut through a plain word, where the cut would cost more tokens than it saves', () => {
    expect(shown('/wiki/Pneumonoultramicroscopicsilicovolcanoconiosis')).toBe('/wiki/Pneumonoultramicroscopicsilicovolcanoconiosis');
  });

  it('cuts through an id, whose characters cost tokens wherever it is cut', () => {
    expect(shown('/wiki/a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9')).toBe('/wiki/a1b2c3d…6e7f8a9');
  });
});

describe('shortenLinks: unicode', () => {
  it('cuts between words of an unencoded unicode path', () => {
    expect(shown('/wiki/Köln_Hauptbahnhof_und_die_Geschichte_des_Bahnhofs_im_Zweiten_Weltkrieg')).toBe('/wiki/Köln…_Weltkrieg');
  });

  it('never splits a surrogate pair', () => {
    const text = shown(`/t/${'😀'.repeat(40)}`) as string;
    expect(text).toContain('…');
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('never splits a %XX escape', () => {
    const text = shown(`/t/${'%E2%82%AC'.repeat(20)}`) as string;
    expect(text).toContain('…');
    for (const part of text.split('…')) expect(part).not.toMatch(/%[0-9A-F]?$|^[0-9A-F]?[0-9A-F](?=%|$)/);
    expect(text.split('…')[1]).toMatch(/^%/);
  });
});

describe('shortenLinks: two links never read the same unless they lead to the same place', () => {
  it('shows the first differing segment of two long links alike after the cut', () => {
    expect(
      shortenLinks([link('/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-350ml'), link('/catalog/kitchen/glassware/mugs/blue-ceramic-mug-350ml')]),
    ).toEqual(['/catalog/…/drinkware/mugs/blue…-mug-350ml', '/catalog/…/glassware/mugs/blue…-mug-350ml']);
  });

  it('shows the query parameter that tells them apart', () => {
    const base = '/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-350ml';
    expect(shortenLinks([link(`${base}?theme=dark`), link(`${base}?theme=light`)])).toEqual([
      '/catalog/…/blue…-mug-350ml?theme=dark',
      '/catalog/…/blue…-mug-350ml?theme=light',
    ]);
  });

  it('lengthens a cut inside a long piece until it differs', () => {
    const id = 'x'.repeat(300);
    const texts = shortenLinks([link(`/p?id=${id}1&page=1`), link(`/p?id=${id}2&page=1`)]);
    expect(texts[0]).not.toBe(texts[1]);
    expect(texts[0]).toContain('1');
    expect((texts[0] as string).length).toBeLessThan(80);
  });

  it('shows links alike in form: each day of a calendar reads its date', () => {
    const days = Array.from({ length: 31 }, (_, day) => link(`/view-calendar.html?date=2025-03-${String(day + 1).padStart(2, '0')}`));
    expect(shortenLinks(days)).toEqual(days.map(({ href }) => href));
  });

  it('lets links to the same place read the same, tracking parameters or not', () => {
    const texts = shortenLinks([
      link('/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-350ml'),
      link('/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-350ml?utm_source=x'),
    ]);
    expect(texts[0]).toBe('/catalog/…/mugs/blue…-mug-350ml');
    expect(texts[1]).toBe(texts[0]);
  });

  it('shows the same relative href of two frames of different origins absolute', () => {
    expect(shortenLinks([link('/login'), link('/login', '', 'https://pay.example/form')])).toEqual(['https://shop.example/login', 'https://pay.example/login']);
  });

  it('keeps the same relative href of two frames of the same origin as it is', () => {
    expect(shortenLinks([link('/login'), link('/login', '', 'https://shop.example/frame')])).toEqual(['/login', '/login']);
  });

  it('holds over many similar generated links', () => {
    // A fixed pseudo-random sequence, so a failure can be replayed.
    let seed = 7;
    const next = (bound: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % bound;
    };
    const words = ['news', 'world', 'a', 'long-article-slug', 'id1234567890', 'x', 'blue-mug'];
    const links = Array.from({ length: 400 }, () => {
      const path = Array.from({ length: 1 + next(6) }, () => words[next(words.length)]).join('/');
      const query = next(2) ? `?page=${next(4)}&sort=${words[next(words.length)]}` : '';
      const fragment = next(3) === 0 ? `#${words[next(words.length)]}` : '';
      const origin = ['', '', 'https://other.example', 'http://other.example'][next(4)];
      return link(`${origin}/${path}${query}${fragment}`, '', next(5) === 0 ? 'https://frame.example/' : page);
    });
    const texts = shortenLinks(links);
    const destinations = new Map<string, string>();
    links.forEach(({ href, documentUrl }, position) => {
      const destination = new URL(withoutTracking(href), documentUrl).href;
      const text = texts[position] as string;
      expect(destinations.get(text) ?? destination, `${text} shown for ${destination} and ${destinations.get(text)}`).toBe(destination);
      destinations.set(text, destination);
    });
    expect(texts.some((text) => text?.includes('…'))).toBe(true);
  });
});

describe('shortenLinks: options', () => {
  it('cuts from maxLength on', () => {
    const href = '/news/2024/05/12/an-article-about-things';
    expect(shown(href)).not.toBe(href);
    expect(shortenLinks([link(href)], { maxLength: 60 })).toEqual([href]);
  });
});
