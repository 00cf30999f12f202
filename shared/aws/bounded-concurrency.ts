/**
 * Maps items through an async call with at most `limit` calls in flight, keeping their order:
 * a portal's subscriptions are looked up in parallel, yet a portal holding thousands neither
 * opens thousands of connections at once nor meets the service's rate limits in one burst.
 */
export async function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  limit: number,
  call: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await call(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
