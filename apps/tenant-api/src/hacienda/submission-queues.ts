// The jobs queues of the Hacienda follow-up, for the app's one Worker:
// `queues: { ...submissionQueues(deps), ...webhookQueues(deps) }`.
import type { QueueOptions } from '@cr/jobs';
import { type DocumentJobPayload, STATUS_QUEUE, SUBMIT_QUEUE } from '../documents/submit-document';
import { type SubmissionDeps, schedulesOf } from '../documents/submission-deps';
import { runStatusJob } from './status-job';
import { runSubmitJob } from './submit-job';

export function submissionQueues(deps: SubmissionDeps): Record<string, QueueOptions<DocumentJobPayload>> {
  const schedules = schedulesOf(deps);
  return {
    // A thrown error (e.g. the database briefly unreachable) retries on the same schedules.
    [SUBMIT_QUEUE]: { handler: (job, ctx) => runSubmitJob(deps, job, ctx), backoff: schedules.submit },
    [STATUS_QUEUE]: {
      handler: (job, ctx) => runStatusJob(deps, job, ctx),
      backoff: schedules.status,
      backoffCapMs: schedules.statusCapMs,
    },
  };
}
