// A small mug shop for the action-cache tests (test/e2e/action-cache.test.ts), served on 127.0.0.1. The same URL
// serves the variant the test sets, so "the same page, changed" is one address with other markup, and the server
// records every product added to the cart: what the browser clicked is read from here, never from what act() says.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How `/shop` looks now.
 * - `base`: Blue mug, Red mug, Green mug; each card a heading and an "Add to cart" button with an id by position (`add-1` …).
 * - `changed`: the same products redesigned: a promotion banner with its own button on top, a wrapper, other order
 *   (Green, Blue, Red), new ids and classes, and a second button per card ("Save for later").
 * - `blue-moved`: Red mug first, with the id `add-1` and the place the Blue mug had; the Blue mug second (`add-2`).
 * - `blue-gone`: no Blue mug: Red mug first (`add-1`), a Blue bowl second, then the Green mug.
 * - `only-red`: one card, the Red mug, with the id `add-1` and the button "Add red mug to cart".
 */
export type ShopVariant = 'base' | 'changed' | 'blue-moved' | 'blue-gone' | 'only-red';

/** The product names the pages may show, for the model stand-in that reads them. */
export const shopProductNames = ['Blue mug', 'Red mug', 'Green mug', 'Blue bowl'] as const;

export interface CacheShop {
  /** The product page, `http://127.0.0.1:<port>/shop`. */
  readonly shopUrl: string;
  /** The price list `extract()` reads, `http://127.0.0.1:<port>/prices`. */
  readonly pricesUrl: string;
  /** The origin. */
  readonly origin: string;
  /** What `/shop` shows from the next load on. */
  variant: ShopVariant;
  /** Prices in dollars by product name, as `/prices` shows them from the next load on. */
  prices: Record<string, number>;
  /** Every product id the server was asked to add, in order (`blue-mug`, …). */
  readonly adds: string[];
  close(): Promise<void>;
}

const slug = (name: string): string => name.toLowerCase().replace(/\s+/g, '-');

function card(name: string, price: number, id: string, classes: { card: string; button: string }, label = 'Add to cart', extra = ''): string {
  return (
    `<section class="${classes.card}"><h2>${name}</h2><p class="price">$${price}</p>` +
    `<form method="post" action="/cart/add"><input type="hidden" name="product" value="${slug(name)}">` +
    `<button type="submit" id="${id}" class="${classes.button}">${label}</button></form>${extra}</section>`
  );
}

const plain = { card: 'card', button: 'btn add' };

function shopBody(variant: ShopVariant): string {
  switch (variant) {
    case 'base':
      return card('Blue mug', 4, 'add-1', plain) + card('Red mug', 6, 'add-2', plain) + card('Green mug', 5, 'add-3', plain);
    case 'changed': {
      const tile = { card: 'tile product-tile', button: 'cta cta-primary' };
      const save = (name: string): string => `<button type="button" class="cta cta-ghost" id="save-${slug(name)}">Save for later</button>`;
      return (
        `<div class="promo" role="region" aria-label="Promotion"><p>Free shipping this week on every mug.</p><button type="button" class="promo-close">Dismiss</button></div>` +
        `<div class="grid">` +
        card('Green mug', 5, 'buy-green-mug', tile, 'Add to cart', save('Green mug')) +
        card('Blue mug', 4, 'buy-blue-mug', tile, 'Add to cart', save('Blue mug')) +
        card('Red mug', 6, 'buy-red-mug', tile, 'Add to cart', save('Red mug')) +
        `</div>`
      );
    }
    case 'blue-moved':
      return card('Red mug', 6, 'add-1', plain) + card('Blue mug', 4, 'add-2', plain) + card('Green mug', 5, 'add-3', plain);
    case 'blue-gone':
      return card('Red mug', 6, 'add-1', plain) + card('Blue bowl', 4, 'add-2', plain) + card('Green mug', 5, 'add-3', plain);
    case 'only-red':
      return card('Red mug', 6, 'add-1', plain, 'Add red mug to cart');
  }
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the shop on 127.0.0.1 on a free port. */
export async function startCacheShop(): Promise<CacheShop> {
  const state = {
    variant: 'base' as ShopVariant,
    prices: { 'Blue mug': 4, 'Red mug': 6, 'Green mug': 5 } as Record<string, number>,
    adds: [] as string[],
  };
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://shop').pathname;
    const html = (body: string): void => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    if (request.method === 'POST' && path === '/cart/add') {
      void bodyOf(request).then((body) => {
        const product = new URLSearchParams(body).get('product') ?? '';
        state.adds.push(product);
        response.writeHead(303, { location: '/cart' }).end();
      });
      return;
    }
    if (path === '/shop') return html(page('Mug shop', shopBody(state.variant)));
    if (path === '/cart') return html(page('Cart', `<ul>${state.adds.map((product) => `<li>${product}</li>`).join('')}</ul><p>${state.adds.length} items</p>`));
    if (path === '/prices') {
      const rows = Object.entries(state.prices)
        .map(([name, price]) => `<tr><td>${name}</td><td>$${price}</td></tr>`)
        .join('');
      return html(page('Price list', `<table><thead><tr><th>Product</th><th>Price</th></tr></thead><tbody>${rows}</tbody></table>`));
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    shopUrl: `${origin}/shop`,
    pricesUrl: `${origin}/prices`,
    get variant() {
      return state.variant;
    },
    set variant(value: ShopVariant) {
      state.variant = value;
    },
    get prices() {
      return state.prices;
    },
    set prices(value: Record<string, number>) {
      state.prices = value;
    },
    adds: state.adds,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
