// What an operator has when a handler throws: a log line per failed run with the error's stack (redacted),
// the tenant, queue, job and attempt, and the job's span marked failed with the exception on it.
import {
  MemoryTransport,
  type TestDatabase,
  type TracingOptions,
  createLogger,
  startTracing,
} from '@cr/service-kit';
import { Worker, enqueue, getJob, jobResult } from '../src';
import { createClock, useJobsDatabase } from './helpers';

type SpanExporter = NonNullable<TracingOptions['exporter']>;
type FinishedSpan = Parameters<SpanExporter['export']>[0][number];

const spans: FinishedSpan[] = [];
startTracing({
  service: 'jobs-test',
  exporter: {
    export(batch, done) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  },
});

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJlc2lnbmF0dXJl';

const suite = useJobsDatabase();
let db: TestDatabase;
let logs: MemoryTransport;
beforeEach(() => {
  db = suite.db;
  logs = new MemoryTransport();
  spans.length = 0;
});

function createThrowingWorker(clock: ReturnType<typeof createClock>, maxAttempts: number): Worker {
  return new Worker({
    db,
    now: clock.now,
    logger: createLogger({ service: 'jobs', level: 'info', transports: [logs] }),
    queues: {
      submit: {
        maxAttempts,
        backoff: [1_000],
        handler: async () => {
          throw new TypeError(`cannot read properties of undefined (reading "clave"); sent Bearer ${JWT}`);
        },
      },
    },
  });
}

const lines = () => logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a handler that throws', () => {
  it('when the job will run again, then one warning carries the error with its stack, redacted, and names tenant, queue, job and attempt', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: 'acme', queue: 'submit', payload: {} });

    await createThrowingWorker(clock, 3).runOnce();

    expect(await getJob(db, { id })).toMatchObject({ state: 'pending', attempts: 1 });
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        tenant: 'acme',
        queue: 'submit',
        job: id,
        attempt: 1,
        requestId: `job_${id}`,
        err: expect.objectContaining({
          name: 'TypeError',
          message: expect.stringContaining('reading "clave"'),
          stack: expect.stringContaining('thrown-errors.test.ts'),
        }),
      }),
    ]);
    expect(logs.text).not.toContain(JWT);
  });

  it('when it was the last attempt, then one error line carries the error with its stack and the job failed', async () => {
    const clock = createClock();
    const worker = createThrowingWorker(clock, 2);
    const { id } = await enqueue(db, { tenant: 'acme', queue: 'submit', payload: {} });
    await worker.runOnce();
    clock.advance(5_000);

    await worker.runOnce();

    expect(await getJob(db, { id })).toMatchObject({ state: 'failed', attempts: 2 });
    const last = lines().slice(1);
    expect(last).toEqual([
      expect.objectContaining({
        level: 'error',
        message: expect.stringContaining('job failed'),
        tenant: 'acme',
        queue: 'submit',
        job: id,
        attempt: 2,
        err: expect.objectContaining({
          name: 'TypeError',
          stack: expect.stringContaining('reading "clave"'),
        }),
      }),
    ]);
    expect(logs.text).not.toContain(JWT);
  });

  it("when it throws, then the job's span has ERROR status and the exception, redacted", async () => {
    const clock = createClock();
    await enqueue(db, { tenant: 'acme', queue: 'submit', payload: {} });

    await createThrowingWorker(clock, 1).runOnce();

    const span = spans.find((s) => s.name === 'job submit');
    expect(span?.status).toMatchObject({ code: 2, message: 'TypeError' });
    const exception = span?.events.find((e) => e.name === 'exception');
    expect(exception?.attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': expect.stringContaining('reading "clave"'),
      'exception.stacktrace': expect.stringContaining('thrown-errors.test.ts'),
    });
    expect(JSON.stringify(exception)).not.toContain(JWT);
  });
});

describe('a handler that returns fail', () => {
  it('when it gives up, then one error line names the tenant and the reason', async () => {
    const clock = createClock();
    const worker = new Worker({
      db,
      now: clock.now,
      logger: createLogger({ service: 'jobs', level: 'info', transports: [logs] }),
      queues: { submit: { handler: async () => jobResult.fail('document 42 not found') } },
    });
    const { id } = await enqueue(db, { tenant: 'acme', queue: 'submit', payload: {} });

    await worker.runOnce();

    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'jobs: job failed',
        tenant: 'acme',
        queue: 'submit',
        job: id,
        attempt: 1,
        error: 'document 42 not found',
      }),
    ]);
  });
});
