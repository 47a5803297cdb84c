/**
 * A Prometheus histogram fed from HDR histograms. prom-client's Histogram takes one observation at
 * a time, and an interval's response times arrive as an HDR histogram of thousands; observing a
 * stand-in value per transaction would cost a call each and blur `_sum`. Instead this keeps, per
 * label set, cumulative bucket counts added up from every interval's HDR histogram, its exact
 * count and its sum, and hands them to prom-client's Registry, which writes the text format.
 *
 * HDR keeps each value in a bin at most 0.1% wide (3 significant digits); a bin is counted whole
 * in the first bucket whose bound is at or above the bin's lowest value, as HDR's own
 * count-below-a-value does. So a bucket holds every response at or below its bound, and possibly
 * some up to 0.1% above it.
 */
import * as hdr from 'hdr-histogram-js';
import type { Metric, Registry } from 'prom-client';
import type { Histogram } from '../metrics/histogram.js';

/**
 * How many of the histogram's values (µs) fall in each bucket: `counts[i]` for bound i (µs,
 * ascending), the last for values above every bound. Not cumulative.
 */
export function bucketCounts(h: Histogram, boundsUs: readonly number[]): number[] {
  // newHistogram and decodeHistogram build JS histograms; only those can be walked bin by bin.
  if (!(h instanceof hdr.JsHistogram))
    throw new TypeError('a response-time histogram must be a JS HDR histogram');
  const counts = new Array<number>(boundsUs.length + 1).fill(0);
  const bins = h.recordedValuesIterator;
  bins.reset();
  let bucket = 0;
  while (bins.hasNext()) {
    const bin = bins.next();
    const lowest = h.lowestEquivalentValue(bin.valueIteratedTo);
    // Bins come in ascending order, so the bucket only moves up.
    while (bucket < boundsUs.length && lowest > boundsUs[bucket]!) bucket++;
    counts[bucket]! += bin.countAtValueIteratedTo;
  }
  return counts;
}

interface Series<L extends string> {
  labels: Record<L, string>;
  /** Per bucket as bucketCounts gives them, summed over every histogram added. */
  counts: number[];
  count: number;
  sumSeconds: number;
}

interface SampleValue {
  value: number;
  labels: Record<string, string | number>;
  metricName: string;
}

/** What prom-client's Registry reads from a metric (`get`) to write the text format. */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: SampleValue[];
}

export interface HdrPrometheusHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Bucket bounds in seconds, ascending. */
  bucketsSeconds: readonly number[];
  registry: Registry;
}

export class HdrPrometheusHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly L[];
  private readonly bucketsSeconds: readonly number[];
  private readonly boundsUs: readonly number[];
  private readonly series = new Map<string, Series<L>>();

  constructor(config: HdrPrometheusHistogramConfig<L>) {
    const sorted = config.bucketsSeconds.every((b, i, all) => i === 0 || all[i - 1]! < b);
    if (!sorted) throw new TypeError(`${config.name}: bucket bounds must ascend`);
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bucketsSeconds = config.bucketsSeconds;
    this.boundsUs = config.bucketsSeconds.map((s) => s * 1_000_000);
    // The Registry needs only name, type and get() of a metric; its type admits prom-client's own.
    config.registry.registerMetric(this as unknown as Metric);
  }

  /** Adds every value of an HDR histogram in µs, read at once (the caller may reset it after). */
  add(labels: Record<L, string>, h: Histogram): void {
    if (h.totalCount === 0) return;
    const key = this.labelNames.map((n) => labels[n]).join('\u0000');
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labels: { ...labels },
        counts: new Array<number>(this.boundsUs.length + 1).fill(0),
        count: 0,
        sumSeconds: 0,
      };
      this.series.set(key, series);
    }
    const counts = bucketCounts(h, this.boundsUs);
    for (let i = 0; i < counts.length; i++) series.counts[i]! += counts[i]!;
    series.count += h.totalCount;
    series.sumSeconds += (h.mean * h.totalCount) / 1_000_000;
  }

  get(): Promise<CollectedMetric> {
    const values: SampleValue[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bucketsSeconds.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ value: cumulative, labels: { ...s.labels, le }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: s.count, labels: { ...s.labels, le: '+Inf' }, metricName: `${this.name}_bucket` });
      values.push({ value: s.sumSeconds, labels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  reset(): void {
    this.series.clear();
  }
}
