/**
 * What the HTML report's page and its browser script share: the charts as plain data (computed on
 * the server, drawn by the script), so the numbers tables and the pictures come from one source.
 */

/** One line or set of bars; null where the figure was not measured (a gap, not a zero). */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** The right-hand axis (a second unit), else the left. */
  axis?: 'y2' | undefined;
}

export interface ChartAxis {
  label: string;
}

export interface ChartSpec {
  /** Unique in the page; also the anchor of the chart's figure. */
  id: string;
  title: string;
  /** Lines over a numeric x; bars over categories; points joined by lines over categories. */
  kind: 'line' | 'bars' | 'categories';
  x: {
    label: string;
    values: number[];
    /** Names of the categories (kind bars or categories): x value i is categories[i]. */
    categories?: string[] | undefined;
    /** Percentiles plotted at percentileToX(p) (a log scale of the tail), labelled as percentiles. */
    percentile?: boolean | undefined;
  };
  y: ChartAxis;
  y2?: ChartAxis | undefined;
  series: ChartSeries[];
  /** Shaded x ranges (warm-up, preconditioning). */
  bands?: { from: number; to: number; label: string }[] | undefined;
  /** Vertical marks (the knee). */
  marks?: { x: number; label: string }[] | undefined;
}

/** The JSON embedded in the page for the browser script. */
export interface PageData {
  charts: ChartSpec[];
  /** Set by a live dashboard: where its updates come from. */
  live?: { eventsPath: string } | undefined;
}

/** The id of the <script type="application/json"> holding PageData. */
export const PAGE_DATA_ID = 'txbench-data';

/**
 * Where percentile p sits on the x axis: log10(1/(1 - p/100)), so 50% is at 0.3, 90% at 1, 99% at
 * 2 … 99.999% at 5. The axis is linear in this value: a log scale of the tail, drawn without
 * relying on the chart library's log scales (which snap their range to whole decades).
 */
export function percentileToX(p: number): number {
  return Math.log10(1 / (1 - p / 100));
}

/** The inverse of percentileToX, for axis labels. */
export function xToPercentile(x: number): number {
  return 100 - 100 / 10 ** x;
}
