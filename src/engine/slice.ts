/**
 * How a run's terminals are split into disjoint slices — across worker threads, and across shards
 * on several load machines — so that terminal i is the same terminal (its id, home, random stream
 * and ramp start) however the run is split. Slices are contiguous and differ in size by at most one.
 */
export interface TerminalSlice {
  /** The slice's first terminal id (0-based, global). */
  first: number;
  /** How many terminals it holds (0 when there are more slices than terminals). */
  count: number;
}

/** The `index`-th (0-based) of `parts` slices of the terminals `within` (default: all `total`). */
export function sliceTerminals(
  total: number,
  index: number,
  parts: number,
  within: TerminalSlice = { first: 0, count: total },
): TerminalSlice {
  if (!Number.isInteger(parts) || parts < 1)
    throw new RangeError(`parts must be a whole number >= 1, not ${parts}`);
  if (!Number.isInteger(index) || index < 0 || index >= parts)
    throw new RangeError(`index must be from 0 to ${parts - 1}, not ${index}`);
  const start = Math.floor((within.count * index) / parts);
  const end = Math.floor((within.count * (index + 1)) / parts);
  return { first: within.first + start, count: end - start };
}

/**
 * A slice's share of `connections`, in proportion to its terminals and at least one when it has
 * any (so the slices together may hold a few more than `connections` when it is smaller than
 * their number). The shares of all slices add up to `connections` otherwise.
 */
export function sliceConnections(connections: number, slice: TerminalSlice, total: number): number {
  if (slice.count === 0) return 0;
  const start = Math.floor((connections * slice.first) / total);
  const end = Math.floor((connections * (slice.first + slice.count)) / total);
  return Math.max(1, Math.min(slice.count, end - start));
}
