// The demo shop's products: a fixed catalogue, or, with a seed, the same products in a shuffled
// order with their category's prices dealt out anew, so a shopper that reads the page still wins.

/** The colours the shop's filter offers. */
export const colours = ['Blue', 'Red', 'Green', 'White', 'Yellow'] as const;

/** A colour the shop's filter offers. */
export type Colour = (typeof colours)[number];

/** One product of the shop. */
export interface Product {
  /** The URL slug: `/product/<id>`. */
  readonly id: string;
  readonly name: string;
  /** The section it is listed in: `/category/<category>`. */
  readonly category: string;
  readonly colour: Colour;
  /** The price in cents, so sums stay exact. */
  readonly priceCents: number;
  readonly description: string;
}

/** The sections of the shop, in the order the home page lists them. */
export const categories: readonly { readonly id: string; readonly name: string }[] = [
  { id: 'kitchen', name: 'Kitchen' },
  { id: 'living-room', name: 'Living room' },
  { id: 'garden', name: 'Garden' },
];

type ProductSeed = Omit<Product, 'id'>;

// The blue watering can and the blue cushion are cheaper than any blue kitchen item: a shopper
// that ignores the section picks them. Prices are distinct within a section, so the cheapest is one item.
const fixedProducts: readonly ProductSeed[] = [
  { name: 'Blue mug', category: 'kitchen', colour: 'Blue', priceCents: 1400, description: 'A stoneware mug that holds 350 ml.' },
  { name: 'Red mug', category: 'kitchen', colour: 'Red', priceCents: 900, description: 'The same mug in tomato red.' },
  { name: 'Blue bowl', category: 'kitchen', colour: 'Blue', priceCents: 1150, description: 'A cereal bowl with a matte glaze.' },
  { name: 'Blue teapot', category: 'kitchen', colour: 'Blue', priceCents: 3500, description: 'A one-litre teapot with a steel strainer.' },
  { name: 'White plate', category: 'kitchen', colour: 'White', priceCents: 700, description: 'A 27 cm dinner plate.' },
  { name: 'Green jug', category: 'kitchen', colour: 'Green', priceCents: 1800, description: 'A milk jug for the table.' },
  { name: 'Blue tray', category: 'kitchen', colour: 'Blue', priceCents: 2700, description: 'A lacquered serving tray.' },
  { name: 'Yellow egg cup', category: 'kitchen', colour: 'Yellow', priceCents: 400, description: 'An egg cup shaped like a hen.' },
  { name: 'Blue salad bowl', category: 'kitchen', colour: 'Blue', priceCents: 2250, description: 'A wide bowl for six.' },
  { name: 'Red kettle', category: 'kitchen', colour: 'Red', priceCents: 3900, description: 'A stovetop kettle that whistles.' },
  { name: 'Blue cushion', category: 'living-room', colour: 'Blue', priceCents: 1200, description: 'A linen cushion, 45 by 45 cm.' },
  { name: 'White vase', category: 'living-room', colour: 'White', priceCents: 1600, description: 'A tall porcelain vase.' },
  { name: 'Blue throw', category: 'living-room', colour: 'Blue', priceCents: 4500, description: 'A wool throw for the sofa.' },
  { name: 'Blue watering can', category: 'garden', colour: 'Blue', priceCents: 600, description: 'A five-litre watering can.' },
  { name: 'Green hose', category: 'garden', colour: 'Green', priceCents: 2500, description: 'Fifteen metres of garden hose.' },
  { name: 'Red flower pot', category: 'garden', colour: 'Red', priceCents: 800, description: 'A terracotta pot, glazed red.' },
];

/** A small deterministic random number generator (mulberry32): the same seed, the same shop. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/**
 * The shop's products. Without a seed, the fixed catalogue above. With one, each section's
 * products come in a shuffled order and its prices are dealt out among them again.
 */
export function catalogue(seed?: number): Product[] {
  const withIds = (items: readonly ProductSeed[]): Product[] => items.map((item) => ({ ...item, id: item.name.toLowerCase().replaceAll(' ', '-') }));
  if (seed === undefined) return withIds(fixedProducts);
  const random = randomFrom(seed);
  return categories.flatMap(({ id }) => {
    const section = fixedProducts.filter((product) => product.category === id);
    const prices = shuffled(
      section.map((product) => product.priceCents),
      random,
    );
    return withIds(shuffled(section, random).map((product, position) => ({ ...product, priceCents: prices[position] as number })));
  });
}

/** `1150` as `$11.50`. */
export function formatPrice(priceCents: number): string {
  return `$${(priceCents / 100).toFixed(2)}`;
}
