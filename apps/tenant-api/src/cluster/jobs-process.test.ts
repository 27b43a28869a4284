import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { jobEvents, notifyJobsDue } from '@cr/jobs';
import {
  type JobsDueMessage,
  forwardJobWakeups,
  isJobsDueMessage,
  isJobsReadyMessage,
  receiveJobWakeups,
  workerRole,
} from './jobs-process';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('workerRole', () => {
  it('reads the role the primary set, and is all otherwise', () => {
    expect(workerRole({ TENANT_WORKER_ROLE: 'web' })).toBe('web');
    expect(workerRole({ TENANT_WORKER_ROLE: 'jobs' })).toBe('jobs');
    expect(workerRole({})).toBe('all');
    expect(workerRole({ TENANT_WORKER_ROLE: 'primary' })).toBe('all');
  });
});

describe('forwardJobWakeups', () => {
  it('sends the wake-ups of one turn of the event loop in one message, queues once each', async () => {
    const sent: JobsDueMessage[] = [];
    const forward = forwardJobWakeups((m) => sent.push(m));
    try {
      notifyJobsDue('submit');
      notifyJobsDue('webhook');
      notifyJobsDue('submit');
      expect(sent).toEqual([]);
      await turn();
      expect(sent).toEqual([{ type: 'tenant-api:jobs-due', queues: ['submit', 'webhook'], all: false }]);

      forward.wake();
      notifyJobsDue('mail');
      await turn();
      expect(sent[1]).toEqual({ type: 'tenant-api:jobs-due', queues: ['mail'], all: true });

      forward.wake();
      await turn();
      expect(sent[2]).toEqual({ type: 'tenant-api:jobs-due', queues: [], all: true });
    } finally {
      forward.stop();
    }
    notifyJobsDue('submit');
    await turn();
    expect(sent).toHaveLength(3);
  });
});

describe('receiveJobWakeups', () => {
  it('turns a relayed wake-up into this process’s due events, and wakes every worker when asked', () => {
    const due: string[] = [];
    const onDue = (queue: string) => due.push(queue);
    jobEvents.on('due', onDue);
    let wokenAll = 0;
    const stop = receiveJobWakeups(() => {
      wokenAll += 1;
    });
    try {
      process.emit(
        'message',
        { type: 'tenant-api:jobs-due', queues: ['submit', 'status'], all: false },
        undefined,
      );
      expect(due).toEqual(['submit', 'status']);
      expect(wokenAll).toBe(0);
      process.emit('message', { type: 'tenant-api:jobs-due', queues: [], all: true }, undefined);
      expect(wokenAll).toBe(1);
      // Other messages on the channel (the metrics aggregator's, malformed ones) are not wake-ups.
      process.emit('message', { type: 'prom-client:getMetricsReq', requestId: 1 }, undefined);
      process.emit('message', { type: 'tenant-api:jobs-due', queues: [1], all: true }, undefined);
      process.emit('message', { type: 'tenant-api:jobs-due', queues: ['submit'] }, undefined);
      expect(due).toEqual(['submit', 'status']);
      expect(wokenAll).toBe(1);
    } finally {
      stop();
      jobEvents.off('due', onDue);
    }
    process.emit('message', { type: 'tenant-api:jobs-due', queues: ['submit'], all: true }, undefined);
    expect(wokenAll).toBe(1);
  });
});

describe('message guards', () => {
  it('recognise a jobs process’s ready word and nothing else', () => {
    expect(isJobsReadyMessage({ type: 'tenant-api:jobs-ready' })).toBe(true);
    expect(isJobsReadyMessage({ type: 'tenant-api:jobs-due', queues: [], all: true })).toBe(false);
    expect(isJobsReadyMessage(null)).toBe(false);
    expect(isJobsReadyMessage('tenant-api:jobs-ready')).toBe(false);
    expect(isJobsDueMessage(null)).toBe(false);
    expect(isJobsDueMessage({ type: 'tenant-api:jobs-due', queues: 'submit', all: false })).toBe(false);
  });
});

describe('niceEveryThread', () => {
  // In a child process: a nice value, once lowered, cannot be raised again without privilege.
  const niceAfter = (startedAt: number, asked: number): number[] => {
    const script = `
      const { readdirSync } = require('node:fs');
      const { getPriority } = require('node:os');
      const { Worker } = require('node:worker_threads');
      const { niceEveryThread } = require(${JSON.stringify(join(__dirname, 'jobs-process.ts'))});
      niceEveryThread(${asked});
      // A thread started afterwards inherits its creator's value.
      const late = new Worker('setTimeout(() => {}, 200)', { eval: true });
      late.on('online', () => {
        const values = readdirSync('/proc/self/task').map((tid) => getPriority(Number(tid)));
        console.log(JSON.stringify(values));
        process.exit(0);
      });
    `;
    const out = execFileSync(
      'nice',
      ['-n', String(startedAt), process.execPath, '--require', 'tsx/cjs', '-e', script],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    return JSON.parse(out.trim()) as number[];
  };

  const onLinux = process.platform === 'linux';

  (onLinux ? it : it.skip)('lowers every thread, those started later too, and never raises one', () => {
    // `nice -n` adds to the caller's value (this test may itself run under nice), capped at 19.
    const base = getPriority();
    const lowered = niceAfter(0, 10);
    expect(lowered.length).toBeGreaterThan(3);
    expect(new Set(lowered)).toEqual(new Set([Math.max(10, base)]));
    // Started 15 lower (the whole service under nice): asked for 10, every thread stays where it was.
    expect(new Set(niceAfter(15, 10))).toEqual(new Set([Math.min(19, base + 15)]));
  });
});
