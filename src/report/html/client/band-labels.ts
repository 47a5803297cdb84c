/**
 * Where the shaded phases' names go: each on the first line down where it clears the name placed
 * before it on that line, so a short preconditioning's name and the warm-up's after it do not
 * overlap. Pure (pixels in, line numbers out), so the placement is unit-tested.
 */
export function bandLabelLines(): (left: number, width: number) => number {
  const lineEnds: number[] = [];
  return (left, width) => {
    const free = lineEnds.findIndex((end) => end <= left);
    const line = free < 0 ? lineEnds.length : free;
    lineEnds[line] = left + width;
    return line;
  };
}
