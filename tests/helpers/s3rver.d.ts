// s3rver ships no types: the part the S3 tests use (a local S3-compatible server on loopback).
declare module 's3rver' {
	interface S3rverOptions {
		address?: string;
		port?: number;
		silent?: boolean;
		directory: string;
		configureBuckets?: { name: string }[];
	}
	export default class S3rver {
		constructor(options: S3rverOptions);
		run(): Promise<{ address: string; port: number }>;
		close(): Promise<void>;
	}
}
