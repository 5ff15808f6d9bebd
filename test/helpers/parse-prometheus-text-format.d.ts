// The package ships no types: the shape of what it returns (prom2json's), as far as the tests read it.
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    labels?: Record<string, string>;
    value?: string;
    /** Histograms: cumulative counts by upper bound, the count and the sum. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface Family {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
