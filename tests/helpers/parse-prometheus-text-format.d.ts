// The parser ships no types; the shape of its answer (prom2json's), as the metrics tests read it.
declare module 'parse-prometheus-text-format' {
	export interface Sample {
		labels?: Record<string, string>;
		value?: string;
		buckets?: Record<string, string>;
		count?: string;
		sum?: string;
	}
	export interface MetricFamily {
		name: string;
		help: string;
		type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
		metrics: Sample[];
	}
	export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
