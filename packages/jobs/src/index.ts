// @cr/jobs: a job queue in PostgreSQL/PGlite. See docs/decisions/0007-jobs-in-postgresql.md.
export * from './backoff';
export * from './migrations';
export * from './queue';
export * from './housekeeping';
export * from './periodic';
export * from './worker';
export * from './worker-group';
export * from './job-metrics';
