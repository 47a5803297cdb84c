/** Runs `fn` over `items` on at most `jobs` lanes at once, each lane taking the next item when done. */
export async function inLanes<T>(
  jobs: number,
  items: readonly T[],
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, lane));
}
