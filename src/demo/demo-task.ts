// The demo's task, in the words the scripted shopper reads: one place, so the CLI, the MCP server
// and the run page ask for the same thing. It must not name anything but the shop it is given.

/**
 * The demo task for the shop at `shopUrl`: buy the cheapest blue kitchen item under `maxPrice`
 * dollars. The scripted shopper reads the colour, the price, the section and the URL from it.
 */
export function demoTask(shopUrl: string, maxPrice = 25): string {
  return `Find the cheapest blue item under $${maxPrice} in the Kitchen section of the shop at ${shopUrl} and add it to the cart.`;
}
