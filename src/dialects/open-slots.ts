/**
 * Opens connection slots a few at a time: thousands of simultaneous connection attempts
 * overwhelm a small server. On a failure every slot already opened is closed again.
 */
export async function openInBatches<T>(
  count: number,
  open: () => Promise<T>,
  close: (opened: T) => Promise<unknown>,
  batchSize = 16,
): Promise<T[]> {
  const opened: T[] = [];
  try {
    for (let i = 0; i < count; i += batchSize) {
      const batch = Math.min(batchSize, count - i);
      const settled = await Promise.allSettled(Array.from({ length: batch }, open));
      for (const s of settled) if (s.status === 'fulfilled') opened.push(s.value);
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }
    return opened;
  } catch (err) {
    await Promise.all(opened.map((c) => close(c).catch(() => undefined)));
    throw err;
  }
}
