// The demo shop's HTML: a home page, a product listing with a filter form, product pages and the
// cart. Plain server-rendered pages with a little inline CSS; no state lives here.

import { categories, colours, formatPrice, type Product } from './catalogue';
import type { ShopLook } from './variants';

/** One line of the cart: a product and how many of it. */
export interface CartLine {
  readonly product: Product;
  readonly quantity: number;
}

/** What every page needs besides its own content. */
export interface PageFrame {
  /** Items in the cart, shown in the header. */
  readonly cartCount: number;
  /** Whether the visitor has answered the cookie banner; until then it covers the lower part of the page. */
  readonly consented: boolean;
  /** How this variant of the shop differs from the original (variants.ts). */
  readonly look: ShopLook;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const style = `
  body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
  header { display: flex; gap: 24px; align-items: center; padding: 12px 24px; background: #1d3557; }
  header a { color: #fff; text-decoration: none; font-weight: 600; }
  header form { flex: 1; }
  main { padding: 16px 24px; max-width: 900px; }
  .filters { display: flex; gap: 16px; align-items: end; padding: 12px; background: #f1f4f8; }
  .filters label { display: flex; flex-direction: column; font-size: 14px; }
  ul.products { list-style: none; padding: 0; }
  ul.products li { display: flex; gap: 24px; padding: 10px 0; border-bottom: 1px solid #ddd; }
  ul.products li > :first-child { width: 220px; }
  .promo { display: flex; gap: 16px; align-items: center; padding: 8px 24px; background: #ffd166; }
  #cookie-banner { position: fixed; left: 0; right: 0; bottom: 0; height: 55vh; padding: 24px;
    background: #fff; box-shadow: 0 -4px 24px rgba(0, 0, 0, 0.3); }
`;

// The redesign's banner (variants.ts, change 4): a link of its own, and a button that only hides it.
const promotionBanner = `
  <div class="promo" id="promo-banner" role="region" aria-label="Promotion">
    <strong>Garden week:</strong> new garden products are in store.
    <a href="/category/garden" id="promo-link">Visit the garden</a>
    <button type="button" onclick="document.getElementById('promo-banner').remove()">Dismiss</button>
  </div>`;

// Accepting only sets a cookie and removes the banner: no navigation, as on most real shops.
const cookieBanner = `
  <div id="cookie-banner" role="dialog" aria-label="Cookie consent">
    <h2>We value your privacy</h2>
    <p>We use cookies to keep your cart between visits and to count visitors.</p>
    <button type="button" onclick="document.cookie = 'consent=yes; path=/'; document.getElementById('cookie-banner').remove()">Accept cookies</button>
  </div>`;

function layout(title: string, frame: PageFrame, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} - Demo Shop</title><style>${style}</style></head>
<body>${frame.look.promotion ? promotionBanner : ''}
  <header>
    <a href="/" id="${frame.look.ids.homeLink}">Demo Shop</a>
    <form method="get" action="/search" role="search">
      <input type="search" name="q" id="${frame.look.ids.searchField}" placeholder="Search products" aria-label="Search products">
    </form>
    <a href="/cart" id="${frame.look.ids.cartLink}">Cart (${frame.cartCount})</a>
  </header>
  <main>${body}</main>
  ${frame.consented ? '' : cookieBanner}
</body>
</html>`;
}

/** The home page: the sections of the shop. */
export function homePage(frame: PageFrame): string {
  const links = categories.map(({ id, name }) => `<li><a href="/category/${id}">${escapeHtml(name)}</a></li>`).join('');
  return layout('Home', frame, `<h1>Welcome to the Demo Shop</h1><p>Browse a section:</p><ul>${links}</ul>`);
}

/** Which products a listing shows and how it was filtered. */
export interface Listing {
  readonly heading: string;
  /** Where the filter form submits (GET): the listing's own path. */
  readonly action: string;
  /** Extra fields the form carries along, such as the search query. */
  readonly hidden?: Readonly<Record<string, string>>;
  readonly colour: string;
  readonly maxPrice: string;
  readonly products: readonly Product[];
}

/** A section or search results: the filter form, then one line per product. */
export function listingPage(listing: Listing, frame: PageFrame): string {
  const hidden = Object.entries(listing.hidden ?? {})
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const options = ['', ...colours]
    .map((colour) => `<option value="${colour}"${colour === listing.colour ? ' selected' : ''}>${colour || 'Any colour'}</option>`)
    .join('');
  const rows = listing.products
    .map(
      (product) =>
        `<li><a href="/product/${product.id}">${escapeHtml(product.name)}</a><span>Colour: ${product.colour}</span><span>${formatPrice(product.priceCents)}</span></li>`,
    )
    .join('');
  const count = listing.products.length === 1 ? '1 product' : `${listing.products.length} products`;
  const { ids } = frame.look;
  return layout(
    listing.heading,
    frame,
    `<h1>${escapeHtml(listing.heading)}</h1>
    <form class="filters" id="${ids.filterForm}" method="get" action="${listing.action}">${hidden}
      <label>Colour <select name="colour" id="${ids.colourSelect}">${options}</select></label>
      <label>Max price ($) <input type="number" name="max_price" id="${ids.maxPriceField}" min="0" step="0.01" placeholder="Any price" value="${escapeHtml(listing.maxPrice)}"></label>
      <button type="submit" id="${ids.applyButton}">${frame.look.applyLabel}</button>
    </form>
    <p>${count}</p>
    <ul class="products">${rows}</ul>`,
  );
}

/** One product, with its "Add to cart" form (in the broken variant, a "Buy now" box above its name instead). */
export function productPage(product: Product, frame: PageFrame): string {
  const section = categories.find(({ id }) => id === product.category);
  const { ids, buyNowInsteadOfAddToCart } = frame.look;
  const toCart = (button: string): string => `<form method="post" action="/cart"><input type="hidden" name="product" value="${product.id}">${button}</form>`;
  const quickBuy = `<section class="quick-buy" aria-label="Quick buy"><p>In stock, ships tomorrow.</p>${toCart('<button type="submit" id="buy-now">Buy now</button>')}</section>`;
  const addToCart = toCart(`<button type="submit" id="${ids.addToCartButton}">Add to cart</button>`);
  return layout(
    product.name,
    frame,
    `<p><a href="/category/${product.category}" id="${ids.backLink}">Back to ${escapeHtml(section?.name ?? product.category)}</a></p>
    ${buyNowInsteadOfAddToCart ? quickBuy : ''}
    <h1>${escapeHtml(product.name)}</h1>
    <p>Colour: ${product.colour}</p>
    <p>Price: ${formatPrice(product.priceCents)}</p>
    <p>${escapeHtml(product.description)}</p>
    ${buyNowInsteadOfAddToCart ? '' : addToCart}`,
  );
}

/** The cart: each line, and the total. */
export function cartPage(lines: readonly CartLine[], frame: PageFrame): string {
  if (lines.length === 0) return layout('Your cart', frame, '<h1>Your cart</h1><p>Your cart is empty.</p>');
  const rows = lines
    .map(
      ({ product, quantity }) =>
        `<li><span>${escapeHtml(product.name)}</span><span>Colour: ${product.colour}</span><span>${formatPrice(product.priceCents)}</span><span>Quantity: ${quantity}</span></li>`,
    )
    .join('');
  const total = lines.reduce((sum, { product, quantity }) => sum + product.priceCents * quantity, 0);
  return layout(
    'Your cart',
    frame,
    `<h1>Your cart</h1><ul class="products">${rows}</ul><p>Total: ${formatPrice(total)}</p><button type="button" disabled>Checkout (not in this demo)</button>`,
  );
}

/** Anything else. */
export function notFoundPage(frame: PageFrame): string {
  return layout('Not found', frame, '<h1>Page not found</h1><p><a href="/">Back to the home page</a></p>');
}
