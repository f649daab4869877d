// The demo shop's web server: node:http on 127.0.0.1 and a free port, real pages and real forms,
// and a cart kept on the server so a test can check what was really bought. Loopback only.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../index';
import { catalogue, categories, colours, type Product } from './catalogue';
import { cartPage, homePage, listingPage, notFoundPage, productPage, type CartLine, type PageFrame } from './pages';
import { shopLook, shopVariants, type ShopVariant } from './variants';

/** Options of {@link startDemoShop}. */
export interface DemoShopOptions {
  /** The port on 127.0.0.1; a replay test serves a changed shop where the recorded one was. @defaultValue a free one */
  readonly port?: number | undefined;
  /** Shuffle each section's order and deal its prices out anew; the same seed gives the same shop. @defaultValue the fixed catalogue */
  readonly seed?: number | undefined;
  /**
   * Which look to serve: `changed` is the shop after a redesign (ids renamed, listings reordered, a
   * button reworded, a promotional banner), `broken` that and a product page whose "Add to cart" is
   * replaced by a "Buy now" elsewhere on it. Products, prices, URLs and the cart stay the same; the
   * list of changes is at the top of variants.ts. For replay tests.
   * @defaultValue 'original'
   */
  readonly variant?: ShopVariant | undefined;
}

/** A running demo shop. */
export interface DemoShop {
  /** The home page, such as `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** Every product the shop sells, in the order its pages list them. */
  readonly products: readonly Product[];
  /** What the cart holds now, as the server knows it. */
  cart(): CartLine[];
  /** Stops the server; calling it again does nothing. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Reads a small form body; anything longer than a form of this shop is cut off. */
async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 4096) break;
  }
  return new URLSearchParams(body);
}

/** `colour` and `max_price` from the query string, applied to a list of products. */
function filtered(products: readonly Product[], query: URLSearchParams): { products: Product[]; colour: string; maxPrice: string } {
  const colour = colours.find((name) => name === query.get('colour')) ?? '';
  const maxPrice = query.get('max_price')?.trim() ?? '';
  const maxCents = maxPrice && Number.isFinite(Number(maxPrice)) ? Math.round(Number(maxPrice) * 100) : undefined;
  return {
    products: products.filter((product) => (!colour || product.colour === colour) && (maxCents === undefined || product.priceCents <= maxCents)),
    colour,
    maxPrice: maxCents === undefined ? '' : maxPrice,
  };
}

/** Starts the shop on 127.0.0.1 and a free port. */
export async function startDemoShop(options: DemoShopOptions = {}): Promise<DemoShop> {
  const variant = options.variant ?? 'original';
  if (!shopVariants.includes(variant))
    throw new ConfigError(`Option \`variant\` must be one of ${shopVariants.join(', ')}, got ${JSON.stringify(variant)}.`, { field: 'variant' });
  const look = shopLook(variant);
  const products = look.reversedListings ? catalogue(options.seed).reverse() : catalogue(options.seed);
  const cart = new Map<string, number>();
  const cartLines = (): CartLine[] => [...cart].map(([id, quantity]) => ({ product: products.find((product) => product.id === id) as Product, quantity }));

  const respond = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://shop');
    const frame: PageFrame = {
      cartCount: [...cart.values()].reduce((sum, quantity) => sum + quantity, 0),
      consented: /(?:^|;\s*)consent=yes(?:;|$)/.test(request.headers.cookie ?? ''),
      look,
    };
    const send = (status: number, html: string): void => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    };
    const [, section, id] = url.pathname.split('/');

    if (request.method === 'POST' && url.pathname === '/cart') {
      const wanted = (await readForm(request)).get('product');
      const product = products.find((candidate) => candidate.id === wanted);
      if (product) cart.set(product.id, (cart.get(product.id) ?? 0) + 1);
      // Post/redirect/get, as real shops do: the browser lands on the cart.
      response.writeHead(303, { location: '/cart' }).end();
      return;
    }
    if (request.method !== 'GET') return send(405, notFoundPage(frame));
    if (url.pathname === '/') return send(200, homePage(frame));
    if (url.pathname === '/cart') return send(200, cartPage(cartLines(), frame));
    if (section === 'category' && id) {
      const category = categories.find((candidate) => candidate.id === id);
      if (!category) return send(404, notFoundPage(frame));
      const listing = filtered(
        products.filter((product) => product.category === id),
        url.searchParams,
      );
      return send(200, listingPage({ heading: category.name, action: `/category/${id}`, ...listing }, frame));
    }
    if (url.pathname === '/search') {
      const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const matches = products.filter((product) => words.every((word) => product.name.toLowerCase().includes(word)));
      const heading = words.length > 0 ? `Results for "${words.join(' ')}"` : 'All products';
      return send(200, listingPage({ heading, action: '/search', hidden: { q: words.join(' ') }, ...filtered(matches, url.searchParams) }, frame));
    }
    if (section === 'product' && id) {
      const product = products.find((candidate) => candidate.id === id);
      return product ? send(200, productPage(product, frame)) : send(404, notFoundPage(frame));
    }
    send(404, notFoundPage(frame));
  };

  const server = createServer((request, response) => {
    respond(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`Server error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closing;
  };
  return { url: `http://127.0.0.1:${port}/`, products, cart: cartLines, close, [Symbol.asyncDispose]: close };
}
