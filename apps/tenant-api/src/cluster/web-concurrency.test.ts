import { availableParallelism } from 'node:os';
import { jobsProcesses, usableCores, webConcurrency } from './web-concurrency';

describe('usableCores', () => {
  const cpus = availableParallelism();

  it('takes the CPUs the process may run on when there is no quota', () => {
    expect(usableCores('max 100000\n')).toBe(cpus);
    expect(usableCores(undefined)).toBe(cpus);
    expect(usableCores('garbage')).toBe(cpus);
  });

  it('lowers them to a cgroup quota, rounded up, never below one', () => {
    expect(usableCores('50000 100000')).toBe(1);
    expect(usableCores('100000 100000')).toBe(1);
    expect(usableCores('150000 100000')).toBe(Math.min(cpus, 2));
    expect(usableCores(`${(cpus + 4) * 100000} 100000`)).toBe(cpus);
  });
});

describe('webConcurrency', () => {
  const four = () => 4;

  it('follows WEB_CONCURRENCY when set', () => {
    expect(webConcurrency({ WEB_CONCURRENCY: 3, DATABASE_URL: 'postgres://h/d' }, four)).toBe(3);
    expect(webConcurrency({ WEB_CONCURRENCY: 1 }, four)).toBe(1);
  });

  it('defaults to one per core in production on PostgreSQL, else one', () => {
    expect(webConcurrency({ NODE_ENV: 'production', DATABASE_URL: 'postgres://h/d' }, four)).toBe(4);
    expect(webConcurrency({ NODE_ENV: 'production' }, four)).toBe(1);
    expect(webConcurrency({ DATABASE_URL: 'postgres://h/d' }, four)).toBe(1);
  });

  it('refuses several processes on the embedded database, naming the settings', () => {
    expect(() => webConcurrency({ WEB_CONCURRENCY: 2 }, four)).toThrow(
      /WEB_CONCURRENCY: 2 processes need DATABASE_URL/,
    );
  });
});

describe('jobsProcesses', () => {
  const pg = 'postgres://h/d';

  it('follows JOBS_PROCESSES when set, 0 included', () => {
    expect(jobsProcesses({ JOBS_PROCESSES: 2, DATABASE_URL: pg }, 4)).toBe(2);
    expect(jobsProcesses({ JOBS_PROCESSES: 0, DATABASE_URL: pg }, 4)).toBe(0);
    expect(jobsProcesses({ JOBS_PROCESSES: 1, DATABASE_URL: pg }, 1)).toBe(1);
    expect(jobsProcesses({ JOBS_PROCESSES: 0 }, 1)).toBe(0);
  });

  it('defaults to one beside a cluster of servers, and none beside a single process', () => {
    expect(jobsProcesses({ DATABASE_URL: pg }, 2)).toBe(1);
    expect(jobsProcesses({ DATABASE_URL: pg }, 8)).toBe(1);
    expect(jobsProcesses({ DATABASE_URL: pg }, 1)).toBe(0);
    expect(jobsProcesses({}, 1)).toBe(0);
  });

  it('refuses processes of their own on the embedded database, naming the setting', () => {
    expect(() => jobsProcesses({ JOBS_PROCESSES: 1 }, 1)).toThrow(
      /JOBS_PROCESSES: 1 processes of their own need DATABASE_URL/,
    );
  });
});
