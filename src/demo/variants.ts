// The demo shop as it looks in each variant, for replay tests: the original, the same shop after
// a redesign, and one where a recorded step can no longer be done the way it was recorded.
//
// `changed`: what real shops change between a recording and a replay, while the products, their
// prices, every URL and the server's cart stay the same:
//   1. Element ids renamed: every id of `originalIds` gets another name (`nav-cart` is `header-basket`, …).
//   2. Products reordered: every listing shows its products in the reverse order
//      (`DemoShop.products` follows, as it lists them in the order the pages do).
//   3. A button's text changed slightly: the filter form's "Apply filters" reads "Apply filter".
//   4. A promotional banner at the top of every page, above the header, with its own link
//      ("Visit the garden", to the Garden section) and button ("Dismiss", which hides the banner).
//
// `broken`: everything of `changed`, and:
//   5. The product page's "Add to cart" button is gone. A "Buy now" button in a "Quick buy" box above
//      the product's name does the same (it posts the product to /cart): a reader of the page still
//      finds it, a recorded click on "Add to cart" does not.

/** Which look the shop serves: `original`, `changed` (a redesign) or `broken` (a step done differently). */
export type ShopVariant = 'original' | 'changed' | 'broken';

/** The variants, in the order above. */
export const shopVariants: readonly ShopVariant[] = ['original', 'changed', 'broken'];

/** The elements that carry an id, by what they are. */
export interface ShopIds {
  /** The shop's name in the header, a link to the home page. */
  readonly homeLink: string;
  /** The header's search field. */
  readonly searchField: string;
  /** The header's link to the cart. */
  readonly cartLink: string;
  /** A product page's link back to its section. */
  readonly backLink: string;
  /** A listing's filter form, its colour select, its price field and its submit button. */
  readonly filterForm: string;
  readonly colourSelect: string;
  readonly maxPriceField: string;
  readonly applyButton: string;
  /** A product page's "Add to cart" button. */
  readonly addToCartButton: string;
}

/** The ids of the original pages. */
export const originalIds: ShopIds = {
  homeLink: 'nav-home',
  searchField: 'search-box',
  cartLink: 'nav-cart',
  backLink: 'back-to-section',
  filterForm: 'filter-form',
  colourSelect: 'filter-colour',
  maxPriceField: 'filter-max-price',
  applyButton: 'apply-filters',
  addToCartButton: 'add-to-cart',
};

/** The same elements' ids after the redesign (change 1). */
export const changedIds: ShopIds = {
  homeLink: 'header-logo',
  searchField: 'site-search',
  cartLink: 'header-basket',
  backLink: 'breadcrumb-section',
  filterForm: 'refine-form',
  colourSelect: 'refine-colour',
  maxPriceField: 'refine-price-max',
  applyButton: 'refine-submit',
  addToCartButton: 'pdp-add-to-cart',
};

/** How a variant's pages differ from the original's; the pages read only this. */
export interface ShopLook {
  readonly variant: ShopVariant;
  readonly ids: ShopIds;
  /** The filter form's submit button text (change 3). */
  readonly applyLabel: string;
  /** Whether listings show products in the reverse order (change 2). */
  readonly reversedListings: boolean;
  /** Whether every page opens with the promotional banner (change 4). */
  readonly promotion: boolean;
  /** Whether the product page has "Buy now" in a "Quick buy" box instead of "Add to cart" (change 5). */
  readonly buyNowInsteadOfAddToCart: boolean;
}

/** The look of a variant. */
export function shopLook(variant: ShopVariant): ShopLook {
  if (variant === 'original') {
    return { variant, ids: originalIds, applyLabel: 'Apply filters', reversedListings: false, promotion: false, buyNowInsteadOfAddToCart: false };
  }
  return { variant, ids: changedIds, applyLabel: 'Apply filter', reversedListings: true, promotion: true, buyNowInsteadOfAddToCart: variant === 'broken' };
}
