// The demo shop's variants (src/demo/variants.ts), read over plain HTTP: each listed
// change is in the pages, nothing else moved (products, prices, URLs), and the cart still takes a POST.
import { afterEach, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/demo/catalogue';
import { startDemoShop, type DemoShop } from '../../src/demo/server';
import { changedIds, originalIds, shopVariants, type ShopVariant } from '../../src/demo/variants';

const shops: DemoShop[] = [];
afterEach(async () => {
  await Promise.all(shops.splice(0).map((shop) => shop.close()));
});

async function start(variant?: ShopVariant): Promise<DemoShop> {
  const shop = await startDemoShop(variant === undefined ? {} : { variant });
  shops.push(shop);
  return shop;
}

async function page(shop: DemoShop, path: string): Promise<string> {
  const response = await fetch(new URL(path, shop.url));
  expect(response.status, path).toBe(200);
  return response.text();
}

/** Every `id="…"` of a page, in order. */
const idsOf = (html: string): string[] => [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1] ?? '');

/** The product links of a listing, in the order it shows them. */
const listed = (html: string): string[] => [...html.matchAll(/<li><a href="\/product\/([^"]+)"/g)].map((match) => match[1] ?? '');

/** The text of each submit button. */
const submitButtons = (html: string): string[] => [...html.matchAll(/<button type="submit"[^>]*>([^<]*)<\/button>/g)].map((match) => match[1] ?? '');

const pagesOfEveryKind = ['/', '/category/kitchen', '/search?q=blue', '/product/blue-bowl', '/cart', '/no-such-page'];

describe('demo shop variants', () => {
  it('serves the original by default, with ids on its nav links, filter fields and add-to-cart button', async () => {
    const shop = await start();
    expect(shop.products).toEqual(catalogue());
    const home = await page(shop, '/');
    const listing = await page(shop, '/category/kitchen');
    const product = await page(shop, '/product/blue-bowl');
    expect(idsOf(home)).toEqual(expect.arrayContaining([originalIds.homeLink, originalIds.searchField, originalIds.cartLink]));
    expect(idsOf(listing)).toEqual(
      expect.arrayContaining([originalIds.filterForm, originalIds.colourSelect, originalIds.maxPriceField, originalIds.applyButton]),
    );
    expect(idsOf(product)).toEqual(expect.arrayContaining([originalIds.backLink, originalIds.addToCartButton]));
    expect(submitButtons(listing)).toEqual(['Apply filters']);
    expect(submitButtons(product)).toEqual(['Add to cart']);
    expect(home).not.toContain('Promotion');
    expect(listed(listing)).toEqual(
      catalogue()
        .filter((item) => item.category === 'kitchen')
        .map((item) => item.id),
    );
  });

  it('refuses a variant it does not know', async () => {
    await expect(startDemoShop({ variant: 'redesigned' as ShopVariant })).rejects.toThrow(/`variant` must be one of original, changed, broken/);
  });

  for (const variant of ['changed', 'broken'] as const) {
    describe(variant, () => {
      it('1. renames every id', async () => {
        const shop = await start(variant);
        const html = (await Promise.all(['/', '/category/kitchen', '/product/blue-bowl'].map((path) => page(shop, path)))).join('\n');
        const ids = idsOf(html);
        for (const key of Object.keys(originalIds) as (keyof typeof originalIds)[]) {
          expect(changedIds[key]).not.toBe(originalIds[key]);
          expect(ids, key).not.toContain(originalIds[key]);
          // Broken has no add-to-cart button left to carry the renamed id.
          if (!(variant === 'broken' && key === 'addToCartButton')) expect(ids, key).toContain(changedIds[key]);
        }
      });

      it('2. lists the products in another order, with the same products and prices', async () => {
        const shop = await start(variant);
        const kitchen = catalogue().filter((item) => item.category === 'kitchen');
        const shown = listed(await page(shop, '/category/kitchen'));
        expect(shown).toEqual(kitchen.map((item) => item.id).reverse());
        expect(shown).not.toEqual(kitchen.map((item) => item.id));
        expect([...shop.products].sort((a, b) => a.id.localeCompare(b.id))).toEqual(catalogue().sort((a, b) => a.id.localeCompare(b.id)));
        const filtered = listed(await page(shop, '/category/kitchen?colour=Blue&max_price=25'));
        expect(filtered).toEqual(['blue-salad-bowl', 'blue-bowl', 'blue-mug']);
        expect(await page(shop, '/product/blue-bowl')).toContain('Price: $11.50');
      });

      it('3. words the filter button slightly differently', async () => {
        const shop = await start(variant);
        expect(submitButtons(await page(shop, '/category/garden'))).toEqual(['Apply filter']);
      });

      it('4. opens every page with a promotional banner that has its own link and button', async () => {
        const shop = await start(variant);
        for (const path of pagesOfEveryKind) {
          const response = await fetch(new URL(path, shop.url));
          const html = await response.text();
          const banner = /<body>\s*<div class="promo" id="promo-banner" role="region" aria-label="Promotion">([\s\S]*?)<\/div>\s*<header>/.exec(html)?.[1];
          expect(banner, path).toBeDefined();
          expect(banner).toContain('<a href="/category/garden" id="promo-link">Visit the garden</a>');
          expect(banner).toMatch(/<button type="button" [^>]*>Dismiss<\/button>/);
        }
      });

      if (variant === 'changed') {
        it('keeps "Add to cart" on the product page', async () => {
          const shop = await start(variant);
          expect(submitButtons(await page(shop, '/product/blue-bowl'))).toEqual(['Add to cart']);
        });
      } else {
        it('5. has no "Add to cart" on the product page, and a "Buy now" above the name that posts the product to the cart', async () => {
          const shop = await start(variant);
          const product = await page(shop, '/product/blue-bowl');
          expect(product).not.toMatch(/add to cart/i);
          expect(submitButtons(product)).toEqual(['Buy now']);
          expect(product).toMatch(
            /<section class="quick-buy" aria-label="Quick buy">.*<form method="post" action="\/cart"><input type="hidden" name="product" value="blue-bowl"><button type="submit" id="buy-now">Buy now<\/button><\/form><\/section>\s*<h1>Blue bowl<\/h1>/,
          );
        });
      }
    });
  }

  for (const variant of shopVariants) {
    it(`${variant}: the cart takes a POST, redirects to /cart and shows the product`, async () => {
      const shop = await start(variant);
      const response = await fetch(new URL('/cart', shop.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'product=blue-bowl',
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/cart');
      expect(shop.cart().map(({ product, quantity }) => ({ id: product.id, quantity }))).toEqual([{ id: 'blue-bowl', quantity: 1 }]);
      const cart = await page(shop, '/cart');
      expect(cart).toContain('<span>Blue bowl</span><span>Colour: Blue</span><span>$11.50</span><span>Quantity: 1</span>');
      expect(cart).toMatch(/Cart \(1\)/);
    });
  }
});
