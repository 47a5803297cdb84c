/**
 * The text of a repeated measurement (repeat.json): every figure as mean ± its 95% interval over
 * the repetitions, its range and each repetition's value, the way hyperfine prints a benchmark's
 * runs; for steps and sweeps, the scaling table with mean ± interval in each cell.
 */
import type { RepeatFile, RepeatedFigure, RepeatedGroup } from '../results/repeat-file.js';
import { figureLabel } from '../results/figures.js';
import { millis } from './numbers.js';
import { formatTable, type Column } from './table.js';

/** A figure's value as the tables show it: milliseconds as the run summary does, rates with separators. */
export function figureValueText(value: number, unit: string): string {
  if (unit === 'ms') return millis(value);
  const digits = Math.abs(value) >= 100 ? 0 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * `1,638 ± 41`, `90.3 ± 1.9`: the interval to two significant digits and the mean to the same
 * decimals (digits finer than the interval are noise); just the mean when the interval cannot be
 * estimated (one repetition).
 */
export function meanPlusMinus(f: Pick<RepeatedFigure, 'mean' | 'halfWidth' | 'unit'>): string {
  const hw = f.halfWidth;
  if (hw === null) return figureValueText(f.mean, f.unit);
  const digits = hw > 0 ? Math.min(3, Math.max(0, 1 - Math.floor(Math.log10(hw)))) : 0;
  const fixed = (x: number): string =>
    x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${fixed(f.mean)} ± ${fixed(hw)}`;
}

/** What a figure is called under the repetitions' conditions (tpmC only when paced, standard mix). */
function labelOf(f: RepeatedFigure, file: RepeatFile): string {
  return figureLabel(f, file.config ?? {});
}

/** One table for one group: figure | mean ± 95% CI | min … max | rep 1 | rep 2 | … */
function figuresTable(group: RepeatedGroup, file: RepeatFile): string {
  const reps = file.repetitions;
  const columns: Column<RepeatedFigure>[] = [
    { header: 'figure', align: 'left', text: (f) => labelOf(f, file) },
    { header: 'mean ± 95% CI', align: 'right', text: meanPlusMinus },
    {
      header: 'min … max',
      align: 'right',
      text: (f) => `${figureValueText(f.min, f.unit)} … ${figureValueText(f.max, f.unit)}`,
    },
    ...reps.map((r, i): Column<RepeatedFigure> => ({
      header: `rep ${r.index}`,
      align: 'right',
      text: (f) => {
        const v = f.values[i];
        return v === null || v === undefined ? 'n/a' : figureValueText(v, f.unit);
      },
    })),
  ];
  return formatTable(columns, group.figures, 'text');
}

/** The steps or sweep table over the repetitions: one row per step or value, mean ± CI in each cell. */
function scalingTable(file: RepeatFile): string {
  const heading = file.of === 'steps' ? 'users' : (file.groups[0]?.setting ?? 'value');
  const shown = (group: RepeatedGroup): string =>
    file.of === 'steps' ? String(group.users ?? group.label) : (group.value ?? group.label);
  const rate = file.groups[0]?.figures.find((f) => f.key.startsWith('figure:'));
  const keys = ['tps', ...(rate ? [rate.key] : []), 'avgMs', 'p99Ms'];
  const columns: Column<RepeatedGroup>[] = [
    { header: heading, align: 'left', text: shown },
    ...keys.map((key): Column<RepeatedGroup> => {
      const head = file.groups[0]?.figures.find((f) => f.key === key);
      return {
        header: head ? `${labelOf(head, file)} (± 95% CI)` : key,
        align: 'right',
        text: (g) => {
          const f = g.figures.find((x) => x.key === key);
          return f === undefined ? 'n/a' : meanPlusMinus(f);
        },
      };
    }),
  ];
  return formatTable(columns, file.groups, 'text');
}

/** What `run --repeat`, `steps --repeat` and `sweep --repeat` print after their repetitions. */
export function formatRepeat(file: RepeatFile): string {
  const measured = file.repetitions.length;
  const head =
    `over ${measured} repetition${measured === 1 ? '' : 's'}` +
    (measured < file.requested ? ` of the ${file.requested} asked for` : '') +
    `${file.reload ? ', each on a freshly reloaded database' : ''}: mean ± 95% confidence interval (Student's t over the repetitions)`;
  if (file.of !== 'run') return `${head}\n${scalingTable(file)}`;
  const tables = file.groups.map((g) =>
    file.groups.length > 1 ? `${g.label}\n${figuresTable(g, file)}` : figuresTable(g, file),
  );
  return [head, ...tables].join('\n');
}
