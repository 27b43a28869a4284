// winston JSON logger shared by the services: one line per event, secrets redacted before formatting, a
// `service` field, and request ids added by the HTTP plumbing through child loggers.
import winston from 'winston';
import Transport from 'winston-transport';
import { redact } from './redact';
import { currentRequestId } from './telemetry/context';
import { activeTraceIds } from './telemetry/tracing';

export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Extra transports (tests pass a `MemoryTransport` to capture output). */
  transports?: Transport[];
}

const redactFormat = winston.format((info) => {
  const cleaned = redact({ ...info }) as Record<string | symbol, unknown>;
  for (const key of Object.keys(info)) delete (info as Record<string, unknown>)[key];
  Object.assign(info, cleaned);
  return info;
});

// Every line names the request it belongs to (and its trace), read from the async context when the caller
// logged through the root logger: a use case, a repository, the job a request enqueued.
const contextFormat = winston.format((info) => {
  if (info.requestId === undefined) {
    const requestId = currentRequestId();
    if (requestId) info.requestId = requestId;
  }
  if (info.traceId === undefined) {
    const ids = activeTraceIds();
    if (ids) {
      info.traceId = ids.traceId;
      info.spanId = ids.spanId;
    }
  }
  return info;
});

export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const silent = level === 'silent';
  const transports: Transport[] = options.transports ?? [];
  if (!options.transports) transports.push(new winston.transports.Console({ silent }));
  // winston formats every line before its transports look at the level: each request's `http` access line
  // was redacted, timestamped and serialised only to be dropped at the default `info` (5 % of a CABYS
  // search's CPU). A line no transport would take is dropped before any format runs.
  const enabledOnly = winston.format((info) => logger.isLevelEnabled(info.level) && info);
  const logger = winston.createLogger({
    level: silent ? 'error' : level,
    defaultMeta: { service: options.service },
    format: winston.format.combine(
      enabledOnly(),
      winston.format.errors({ stack: true }),
      contextFormat(),
      redactFormat(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports,
  });
  return logger;
}

/** Keeps every formatted line in memory; tests assert on what would have been logged. */
export class MemoryTransport extends Transport {
  readonly lines: string[] = [];

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    const line = info[Symbol.for('message')];
    this.lines.push(typeof line === 'string' ? line : JSON.stringify(info));
    next();
  }

  get text(): string {
    return this.lines.join('\n');
  }
}
