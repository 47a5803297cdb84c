/** The shape parse-prometheus-text-format (which ships no types) gives, as its README documents. */
declare module 'parse-prometheus-text-format' {
  /** One sample of a family; numbers stay text (`"1.2e+09"`, `"+Inf"`, `"NaN"`). */
  export interface PrometheusSample {
    labels?: Record<string, string>;
    /** Counters, gauges and untyped samples. */
    value?: string;
    timestamp_ms?: string;
    /** Histograms: count per upper bound `le`. */
    buckets?: Record<string, string>;
    /** Summaries: value per quantile. */
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }

  export interface PrometheusFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PrometheusSample[];
  }

  /** Throws on a line that is not Prometheus text. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
