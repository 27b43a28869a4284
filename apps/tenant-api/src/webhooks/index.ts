// Webhooks of a tenant: configuration, consultation, replays and the delivery queue.
export * from './webhook-deps';
export * from './webhook-event';
export * from './configure-webhook';
export * from './get-webhook';
export * from './replay-webhook';
export * from './deliver-webhook-job';
