// A small shop and order form on a loopback server, for replay tests: product cards with an
// "Add to cart" button each, product pages, a cart that takes a POST and an order form with every
// kind of field. Variants change it the way sites change between a recording and a replay; what
// the server received (the cart, the orders) is what a test judges.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReplayShopVariant =
  /** As recorded. */
  | 'original'
  /** The Blue teapot is gone (out of stock): two other cards, each with an "Add to cart" button. */
  | 'teapot-gone'
  /** Only one other product is listed. */
  | 'one-other'
  /** The product page's "Add to cart" button is put in by a script 1.5 s after load. */
  | 'late'
  /** The teapot's price went up. */
  | 'price'
  /** The products have other numbers in their URLs. */
  | 'renumbered'
  /** The order form's fields are reordered and relabelled in French, with other ids. */
  | 'translated';

export interface ReplayShopOptions {
  readonly variant?: ReplayShopVariant | undefined;
  /** A path every page is served under, such as `/store/v2`. @defaultValue '' */
  readonly prefix?: string | undefined;
  /** A port to listen on (the recording's, to replay on the same URLs). @defaultValue a free one */
  readonly port?: number | undefined;
}

export interface ReplayShop {
  /** Such as `http://127.0.0.1:41234` (no prefix). */
  readonly origin: string;
  /** The shop's home page: the origin, the prefix and `/`. */
  readonly url: string;
  /** The product ids posted to the cart, in order. */
  readonly cart: string[];
  /** Every order form posted, as its fields. */
  readonly orders: Record<string, string>[];
  close(): Promise<void>;
}

interface Product {
  readonly id: string;
  readonly name: string;
  readonly price: string;
}

const products: readonly Product[] = [
  { id: '1', name: 'Blue teapot', price: '$12.00' },
  { id: '2', name: 'Blue tray', price: '$8.00' },
  { id: '3', name: 'Red mug', price: '$5.00' },
];

function listed(variant: ReplayShopVariant): Product[] {
  const renumber = (product: Product): Product => (variant === 'renumbered' ? { ...product, id: String(Number(product.id) + 6) } : product);
  const priced = (product: Product): Product => (variant === 'price' && product.id === '1' ? { ...product, price: '$14.50' } : product);
  if (variant === 'teapot-gone') return products.slice(1);
  if (variant === 'one-other') return products.slice(1, 2);
  return products.map(renumber).map(priced);
}

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

function listing(variant: ReplayShopVariant, base: string): string {
  const cards = listed(variant)
    .map(
      (product) =>
        `<li class="card"><h3><a href="${base}/item/${product.id}">${product.name}</a></h3><p>${product.price}</p>` +
        `<form method="post" action="${base}/cart"><input type="hidden" name="product" value="${product.id}"><button type="submit">Add to cart</button></form></li>`,
    )
    .join('');
  return page('Shop', `<main><h1>Teas and pots</h1><ul class="products">${cards}</ul></main>`);
}

function productPage(variant: ReplayShopVariant, base: string, product: Product): string {
  const button = '<button type="submit" id="add">Add to cart</button>';
  const late =
    variant === 'late'
      ? `<script>setTimeout(() => document.querySelector('form.buy').insertAdjacentHTML('beforeend', ${JSON.stringify(button)}), 1500);</script>`
      : '';
  return page(
    product.name,
    `<main><h1>${product.name}</h1><p class="price">${product.price}</p>` +
      `<form class="buy" method="post" action="${base}/cart"><input type="hidden" name="product" value="${product.id}">${variant === 'late' ? '' : button}</form>${late}</main>`,
  );
}

function orderPage(variant: ReplayShopVariant, base: string): string {
  const fr = variant === 'translated';
  const fields = [
    `<label>${fr ? 'Nom' : 'Name'} <input name="name" id="${fr ? 'f-nom' : 'name'}"></label>`,
    `<label>${fr ? 'Livraison' : 'Shipping'} <select name="shipping"><option value="standard">${fr ? 'Normale' : 'Standard'}</option><option value="express">Express</option></select></label>`,
    `<label><input type="checkbox" name="gift"> ${fr ? 'Paquet cadeau' : 'Gift wrap'}</label>`,
    `<fieldset><legend>${fr ? 'Paiement' : 'Payment'}</legend><label><input type="radio" name="payment" value="card"> ${fr ? 'Carte' : 'Card'}</label><label><input type="radio" name="payment" value="cash"> ${fr ? 'Espèces' : 'Cash'}</label></fieldset>`,
    `<label>${fr ? 'Remarque' : 'Note'} <textarea name="note"></textarea></label>`,
    `<div contenteditable="true" role="textbox" aria-label="${fr ? 'Message' : 'Message'}" id="message"></div><input type="hidden" name="message">`,
  ];
  const ordered = fr ? [fields[1], fields[0], ...fields.slice(2)] : fields;
  return page(
    fr ? 'Commande' : 'Order',
    `<main><h1>${fr ? 'Votre commande' : 'Your order'}</h1><form method="post" action="${base}/order" onsubmit="this.message.value = document.getElementById('message').textContent">${ordered.join('')}<button type="submit">${fr ? 'Envoyer' : 'Send'}</button></form></main>`,
  );
}

async function readBody(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Starts the shop on 127.0.0.1. */
export async function startReplayShop(options: ReplayShopOptions = {}): Promise<ReplayShop> {
  const variant = options.variant ?? 'original';
  const prefix = options.prefix ?? '';
  const cart: string[] = [];
  const orders: Record<string, string>[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const html = (status: number, body: string): void => void response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (!url.pathname.startsWith(`${prefix}/`)) return html(404, page('Not found', '<h1>Not found</h1>'));
      const path = url.pathname.slice(prefix.length);
      if (request.method === 'POST' && path === '/cart') {
        const id = (await readBody(request)).get('product');
        if (id) cart.push(listed(variant).find((product) => product.id === id)?.name ?? id);
        return void response.writeHead(303, { location: `${prefix}/cart` }).end();
      }
      if (request.method === 'POST' && path === '/order') {
        orders.push(Object.fromEntries(await readBody(request)));
        return void response.writeHead(303, { location: `${prefix}/thanks` }).end();
      }
      if (path === '/') return html(200, listing(variant, prefix));
      if (path === '/cart') return html(200, page('Cart', `<main><h1>Your cart</h1><ul>${cart.map((name) => `<li>${name}</li>`).join('')}</ul></main>`));
      if (path === '/order') return html(200, orderPage(variant, prefix));
      if (path === '/thanks') return html(200, page('Thanks', '<main><h1>Thank you</h1><p>Your order was sent.</p></main>'));
      const item = /^\/item\/(\d+)$/.exec(path);
      const product = item ? listed(variant).find((candidate) => candidate.id === item[1]) : undefined;
      if (product) return html(200, productPage(variant, prefix, product));
      return html(404, page('Not found', '<main><h1>Not found</h1></main>'));
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', done);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${prefix}/`,
    cart,
    orders,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
