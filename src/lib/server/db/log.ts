/** How this folder's long-running parts (backups, start-up, shutdown) write a log line; the server passes pino's (platform/observability.ts). */
export type Log = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
